"""mbank search against basic-memory's search on the labelled questions of the corpus.

Run by run.sh inside a virtual environment that has basic-memory installed. It copies the
corpus into one basic-memory project per bank, indexes it with basic-memory's CLI, asks
every labelled question of tests/it/search_queries.toml of both tools (in the question's
project and over every project), prints recall@5 per group and the latency of warm queries
(rounds alternating which tool goes first), the index build time and the index size.

    python bench.py --mbank BIN --corpus DIR --labels FILE --work DIR [--rounds N] ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mbank", required=True, help="the mbank binary (release build)")
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--labels", required=True, type=Path)
    parser.add_argument("--work", required=True, type=Path, help="an empty folder to work in")
    parser.add_argument("--rounds", type=int, default=11, help="latency rounds (default 11)")
    parser.add_argument(
        "--cli-questions",
        type=int,
        default=8,
        help="questions in the process-to-process latency set (default 8; each basic-memory "
        "process takes seconds)",
    )
    parser.add_argument(
        "--latency-questions",
        type=int,
        default=0,
        help="questions in the warm-latency set, asked in both scopes (default 0: every one)",
    )
    parser.add_argument("--skip-latency", action="store_true")
    return parser.parse_args()


# ---------------------------------------------------------------------------------------
# The corpus, as each tool sees it
# ---------------------------------------------------------------------------------------


def visible(relative: Path) -> Path:
    """basic-memory never indexes a file or folder whose name starts with a dot (it is
    hard-coded, not an ignore pattern), and most agents keep their memory in such folders
    (.claude, .roo, .cursor, .kilocode …): its copy names them with `_` instead."""
    return Path(*[("_" + part[1:]) if part.startswith(".") else part for part in relative.parts])


def copy_for_basic_memory(corpus: Path, banks: list[str], into: Path) -> dict[tuple[str, str], str]:
    """Copies each bank into `into/<bank>`; returns (bank, copied path) → original path."""
    back: dict[tuple[str, str], str] = {}
    for bank in banks:
        source = corpus / bank
        for path in sorted(source.rglob("*")):
            if not path.is_file():
                continue
            relative = path.relative_to(source)
            target = into / bank / visible(relative)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            back[(bank, visible(relative).as_posix())] = relative.as_posix()
    return back


def project_name(bank: str) -> str:
    """The name basic-memory gives the project: its permalink slug."""
    return re.sub("[^a-z0-9]+", "-", bank.lower()).strip("-")


# ---------------------------------------------------------------------------------------
# Labels and the hit rule
# ---------------------------------------------------------------------------------------


def load_labels(path: Path, corpus: Path) -> tuple[list[dict], list[dict]]:
    queries = tomllib.loads(path.read_text())["query"]
    present = [q for q in queries if (corpus / q["project"]).is_dir()]
    absent = [q for q in queries if not (corpus / q["project"]).is_dir()]
    return present, absent


def places(query: dict) -> list[tuple[str, int, int]]:
    out = [(query["file"], query["lines"][0], query["lines"][1])]
    out += [(p["file"], p["lines"][0], p["lines"][1]) for p in query.get("also", [])]
    return out


def file_hit(query: dict, files: list[str]) -> bool:
    """The rule both tools are held to: one of the first five results is a file that holds
    a labelled answer (the file, or an `also` file), in the question's project."""
    wanted = {f for f, _, _ in places(query)}
    return any(f in wanted for f in files)


def line_hit(query: dict, results: list[tuple[str, int, int]]) -> bool:
    """tests/it/search_recall.rs's rule (mbank only: basic-memory gives no lines): a result
    lies in a labelled file and overlaps its lines."""
    return any(
        f == file and start <= end_l and start_l <= end
        for file, start, end in results
        for f, start_l, end_l in places(query)
    )


def groups(query: dict) -> list[str]:
    return [
        "all",
        query["split"],
        "paraphrase" if query["paraphrase"] else "shares words",
        "english" if query["language"] == "en" else "other languages",
        f"language {query['language']}",
    ]


# ---------------------------------------------------------------------------------------
# mbank
# ---------------------------------------------------------------------------------------


class Mbank:
    def __init__(self, binary: str, corpus: Path, work: Path):
        self.binary = binary
        self.corpus = corpus
        home = work / "mbank-home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CACHE_HOME": str(work / "mbank-cache"),
            "XDG_CONFIG_HOME": str(work / "mbank-config"),
            "NO_COLOR": "1",
        }
        self.env.pop("MEMORY_BANK_ROOT", None)
        self.cache = work / "mbank-cache"

    def command(self, question: str, project: str | None) -> list[str]:
        cmd = [self.binary, "--root", str(self.corpus), "search", "--json", "--limit", "5"]
        if project:
            cmd += ["--project", project]
        return cmd + ["--", question]

    def search(self, question: str, project: str | None) -> list[dict]:
        run = subprocess.run(
            self.command(question, project), env=self.env, capture_output=True, text=True
        )
        if run.returncode not in (0, 1):
            raise RuntimeError(f"mbank search failed ({run.returncode}): {run.stderr.strip()}")
        return json.loads(run.stdout)["results"] if run.stdout.strip() else []

    def results(self, question: str, bank: str | None) -> list[tuple[str, str, int, int]]:
        """(project folder, file relative to it, start, end) of each result."""
        out = []
        for hit in self.search(question, bank):
            project = Path(hit["project_path"])
            try:
                folder = project.relative_to(self.corpus).parts[0]
                relative = Path(hit["file"]).relative_to(self.corpus / folder).as_posix()
            except (ValueError, IndexError):
                folder, relative = "", hit["file"]
            out.append((folder, relative, hit["start_line"], hit["end_line"]))
        return out

    def index_size(self) -> int:
        return sum(p.stat().st_size for p in self.cache.rglob("*") if p.is_file() and "search" in str(p.relative_to(self.cache)))


# ---------------------------------------------------------------------------------------
# basic-memory
# ---------------------------------------------------------------------------------------


def basic_memory_env(work: Path) -> dict[str, str]:
    config = work / "bm-config"
    home = work / "bm-home"
    return {
        "BASIC_MEMORY_CONFIG_DIR": str(config),
        # Its full-text search; hybrid (the default where sqlite-vec loads) needs an
        # embedding model fetched from Hugging Face on first use.
        "BASIC_MEMORY_DEFAULT_SEARCH_TYPE": "text",
        "BASIC_MEMORY_AUTO_UPDATE": "false",
        "BASIC_MEMORY_NO_PROMOS": "1",
        "BASIC_MEMORY_CLOUD_PROMO_OPT_OUT": "true",
        "BASIC_MEMORY_LOG_LEVEL": "WARNING",
        "LOGFIRE_IGNORE_NO_CONFIG": "1",
        "HOME": str(home),
        "COLUMNS": "200",
    }


def bm_cli() -> list[str]:
    return [str(Path(sys.executable).parent / "basic-memory")]


class BasicMemoryInProcess:
    """basic-memory's `search_notes` MCP tool called in this process: the function its CLI
    (`basic-memory tool search-notes`) and its MCP server both call."""

    def __init__(self):
        from loguru import logger

        logger.remove()  # its debug lines on stderr would be timed too
        from basic_memory.mcp.tools import search_notes

        self.search_notes = search_notes
        self.loop = asyncio.new_event_loop()

    def search(self, question: str, project: str | None) -> list[dict]:
        if project:
            coro = self.search_notes(query=question, project=project, page_size=5, output_format="json")
        else:
            coro = self.search_notes(query=question, search_all_projects=True, page_size=5, output_format="json")
        result = self.loop.run_until_complete(coro)
        if isinstance(result, str):
            raise RuntimeError(result[:300])
        return result["results"][:5]


def bm_files(results: list[dict], by_id: dict[int, str], back: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    out = []
    for r in results:
        bank = by_id.get(r.get("project_id"), "")
        out.append((bank, back.get((bank, r["file_path"]), r["file_path"])))
    return out


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def mib(n: int) -> str:
    return f"{n / 1024 / 1024:.2f} MiB"


def main() -> None:
    args = parse_args()
    corpus = args.corpus.resolve()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    queries, absent = load_labels(args.labels, corpus)
    if absent:
        names = sorted({q["project"] for q in absent})
        print(f"NOTICE: {len(absent)} labelled questions skipped: their banks are not in {corpus} ({', '.join(names)})")
    banks = sorted(p.name for p in corpus.iterdir() if p.is_dir())
    hidden_answers = sum(
        1 for q in queries if any(part.startswith(".") for part in Path(q["file"]).parts)
    )
    print(f"{len(queries)} questions over {len(banks)} banks; {hidden_answers} answered in a file under a "
          "dot-folder, which basic-memory pointed at the bank itself would not index")

    # --- basic-memory: copy, register, index ------------------------------------------
    env = basic_memory_env(work)
    os.environ.update(env)
    Path(env["HOME"]).mkdir(parents=True, exist_ok=True)
    config = Path(env["BASIC_MEMORY_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    # Its default ignore list without ".*" (dot-files are skipped by its walker anyway).
    (config / ".bmignore").write_text(
        "\n".join([".git", "*.db", "*.db-shm", "*.db-wal", "config.json", "node_modules", "__pycache__"]) + "\n"
    )
    copy_root = work / "bm-banks"
    cli = bm_cli()
    if (config / "memory.db").exists():
        # An earlier run's copy and index in the same --work folder: reused, not timed.
        back = {
            (bank, visible(p.relative_to(corpus / bank)).as_posix()): p.relative_to(corpus / bank).as_posix()
            for bank in banks for p in (corpus / bank).rglob("*") if p.is_file()
        }
        bm_build = None
        reindex = subprocess.CompletedProcess([], 0, "", "")
    else:
        back = copy_for_basic_memory(corpus, banks, copy_root)
        # Projects registered in its config.json (what `basic-memory project add` writes;
        # each `project add` process took ~90 s on the loaded machine), then one
        # `basic-memory reindex --search` registers and indexes them all.
        projects = {project_name(b): {"path": str(copy_root / b), "mode": "local"} for b in banks}
        (config / "config.json").write_text(
            json.dumps({"projects": projects, "default_project": project_name(banks[0])}, indent=1)
        )
        started = time.perf_counter()
        reindex = subprocess.run(cli + ["reindex", "--search"], capture_output=True, text=True)
        bm_build = time.perf_counter() - started
        if reindex.returncode != 0:
            sys.exit(f"basic-memory reindex failed: {reindex.stdout[-2000:]}{reindex.stderr[-2000:]}")
    started = time.perf_counter()
    subprocess.run(cli + ["--version"], check=True, capture_output=True)
    bm_startup = time.perf_counter() - started
    indexed = [line.strip() for line in reindex.stdout.splitlines() if "indexed" in line]
    observed = sum(int(line.split(" observed")[0].split()[-1]) for line in indexed if " observed" in line)
    bm_db = sum(p.stat().st_size for p in config.glob("memory.db*"))

    bm = BasicMemoryInProcess()
    by_id = project_ids({project_name(b): b for b in banks})

    # --- mbank: cold first search builds its index ------------------------------------
    mbank = Mbank(args.mbank, corpus, work)
    started = time.perf_counter()
    mbank.search("retries with backoff", None)
    mbank_cold = time.perf_counter() - started
    started = time.perf_counter()
    mbank.search("retries with backoff", None)
    mbank_warm_once = time.perf_counter() - started
    mbank_size = mbank.index_size()

    # --- recall ---------------------------------------------------------------------
    counts: dict[tuple[str, str, str], list[int]] = {}
    errors: list[str] = []
    misses: list[str] = []

    def count(tool: str, scope: str, query: dict, hit: bool) -> None:
        for group in groups(query):
            entry = counts.setdefault((scope, group, tool), [0, 0])
            entry[0] += int(hit)
            entry[1] += 1

    for query in queries:
        bank = query["project"]
        for scope in ("in its project", "over every project"):
            scoped = scope == "in its project"
            m = mbank.results(query["question"], bank if scoped else None)
            m_in = [(f, s, e) for b, f, s, e in m if b == bank]
            count("mbank strict", scope, query, line_hit(query, m_in))
            count("mbank file", scope, query, file_hit(query, [f for f, _, _ in m_in]))
            try:
                b = bm_files(bm.search(query["question"], project_name(bank) if scoped else None), by_id, back)
            except Exception as problem:  # noqa: BLE001 (a failed question is a miss, named)
                errors.append(f"{scope}: {query['id']}: {problem}")
                b = []
            b_hit = file_hit(query, [f for p, f in b if p == bank])
            count("basic-memory file", scope, query, b_hit)
            if scoped and not b_hit:
                misses.append(f"{query['id']} {query['question']!r} → " + ", ".join(f for _, f in b))

    tools = ["mbank strict", "mbank file", "basic-memory file"]
    print()
    print("Recall@5 (strict: overlaps the labelled lines; file: a labelled file among the five)")
    print()
    print("| group | " + " | ".join(tools) + " |")
    print("|---|" + "---|" * len(tools))
    order = ["all", "dev", "test", "shares words", "paraphrase", "english", "other languages"]
    langs = sorted({g for (_, g, _) in counts if g.startswith("language ")})
    for scope in ("in its project", "over every project"):
        for group in order + langs:
            cells = []
            for tool in tools:
                hit, total = counts.get((scope, group, tool), [0, 0])
                cells.append(f"{hit}/{total} = {hit / total:.3f}" if total else "–")
            print(f"| {scope}, {group} | " + " | ".join(cells) + " |")
    for line in errors:
        print(f"basic-memory error: {line}")
    print()
    print("basic-memory misses in its project:")
    for line in misses:
        print(f"  {line}")

    # --- build and size -------------------------------------------------------------
    print()
    build = f"{bm_build:.1f} s" if bm_build is not None else "not timed (reused)"
    print(f"basic-memory: `basic-memory reindex --search` of {len(banks)} projects {build} "
          f"({observed} files indexed; a bare `basic-memory --version` takes {bm_startup:.1f} s); memory.db* {mib(bm_db)}")
    notes = sum(1 for _ in copy_root.rglob("*.md"))
    print(f"  markdown files in the copy: {notes}; all files: {sum(1 for p in copy_root.rglob('*') if p.is_file())}")
    print(f"mbank: cold first search (builds the index) {ms(mbank_cold)}; next warm search {ms(mbank_warm_once)}; "
          f"index {mib(mbank_size)}")
    print(f"corpus on disk: {mib(dir_size(corpus))}")
    sys.stdout.flush()

    if args.skip_latency:
        return

    # --- latency: basic-memory in-process vs mbank process, every question --------------
    latency_set = spread(queries, args.latency_questions) if args.latency_questions else queries
    asked = [(q, scope) for q in latency_set for scope in (True, False)]
    times: dict[str, list[float]] = {"mbank process": [], "basic-memory in-process": []}
    for round_no in range(args.rounds):
        for q, scoped in asked:
            pair = [
                ("mbank process", lambda: mbank.search(q["question"], q["project"] if scoped else None)),
                ("basic-memory in-process", lambda: bm.search(q["question"], project_name(q["project"]) if scoped else None)),
            ]
            if round_no % 2:
                pair.reverse()
            for name, call in pair:
                started = time.perf_counter()
                try:
                    call()
                except Exception:  # noqa: BLE001 (timed all the same; errors listed above)
                    pass
                times[name].append(time.perf_counter() - started)
    print()
    print(f"Latency, {len(latency_set)} questions in both scopes, {args.rounds} rounds alternating which tool goes first:")
    for name, values in times.items():
        print(f"  {name}: p50 {ms(statistics.median(values))}, p95 {ms(percentile(values, 95))} ({len(values)} queries)")
    sys.stdout.flush()

    # --- latency: process to process ------------------------------------------------
    subset = spread(queries, args.cli_questions)
    cli_times: dict[str, list[float]] = {"mbank search": [], "basic-memory tool search-notes": []}
    for round_no in range(args.rounds):
        for q in subset:
            pair = [
                ("mbank search", mbank.command(q["question"], q["project"]), mbank.env),
                (
                    "basic-memory tool search-notes",
                    cli + ["tool", "search-notes", "--json", "--page-size", "5", "--project", project_name(q["project"]), q["question"]],
                    os.environ,
                ),
            ]
            if round_no % 2:
                pair.reverse()
            for name, cmd, run_env in pair:
                started = time.perf_counter()
                subprocess.run(cmd, env=run_env, capture_output=True)
                cli_times[name].append(time.perf_counter() - started)
    print()
    print(f"Latency, process to process, {len(subset)} questions in their project ({', '.join(q['id'] for q in subset)}), "
          f"{args.rounds} rounds alternating:")
    for name, values in cli_times.items():
        print(f"  {name}: p50 {ms(statistics.median(values))}, p95 {ms(percentile(values, 95))} ({len(values)} runs)")


def spread(queries: list[dict], count: int) -> list[dict]:
    """`count` questions spread evenly over the list (so over banks and languages)."""
    step = max(1, len(queries) // count)
    return queries[::step][:count]


def project_ids(name_to_bank: dict[str, str]) -> dict[int, str]:
    """basic-memory's project ids (results name their project by id) → bank folder."""
    import sqlite3

    db = Path(os.environ["BASIC_MEMORY_CONFIG_DIR"]) / "memory.db"
    with sqlite3.connect(db) as connection:
        rows = connection.execute("select id, name from project").fetchall()
    return {pid: name_to_bank[name] for pid, name in rows if name in name_to_bank}


if __name__ == "__main__":
    main()
