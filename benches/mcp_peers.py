#!/usr/bin/env python3
"""Side-by-side benchmark of stdio MCP memory servers, through the official MCP Python SDK.

For every server, in alternating order run by run (the first server of one run is the last
of the next), on a fresh temporary root holding one 10 KB memory file:

- start-up: spawn to the answer to `initialize` (median of every start-up, 5 a run by default);
- read: one tool call reading the 10 KB file, one call at a time (p50 over every timed call
  of every run); the first reply must contain the file's last line, else the figure is
  flagged, because a server answering "not found" quickly measures nothing;
- peak RSS of the server after its reads (VmHWM from /proc, summed over the process tree,
  so a launcher such as npx counts too; median over the runs);
- concurrency safety: K clients at once, each its own server process on the same root (as
  several agents each starting their own stdio server), each sending M appends one after
  another through the write tool; once every server has exited, the entries in the decision
  file(s) are counted with a regex and compared with the appends sent (worst run shown).

Only local processes are started and nothing is downloaded: the servers' environment sets
npm, uv and pip offline, so a peer started through npx or uvx must already be installed.
Every phase is bounded in count and in time.

Prerequisite: `pip install mcp` (psutil is optional: it finds the process tree where /proc
is missing, with RSS sampled instead of the kernel's peak).

Usage, with no --server: mbank alone, `target/release/mbank` (or MBANK_BIN):

    python3 benches/mcp_peers.py

With servers named on the command line (each NAME=VALUE option belongs to server NAME):

    python3 benches/mcp_peers.py \\
      --server 'mbank=target/release/mbank --root {root} mcp' \\
      --env 'mbank=MBANK_DATA_DIR={data}' \\
      --setup 'mbank=set_memory_bank_path:{"path":"demo"}' \\
      --read 'mbank=memory_bank_read:{"projectPath":"demo","fileName":"activeContext.md"}' \\
      --append 'mbank=log_decision:{"title":"Bench decision {n}","context":"c","decision":"d"}' \\
      --server 'peer=npx --offline some-memory-server {root}' \\
      --read 'peer=...' --append 'peer=...' --decisions 'peer=**/decisions*.md'

Placeholders: {root} (the run's root, holding the memory file; each server starts in it) and
{data} (an empty folder beside it, for the server's own state) in commands, environment
values and tool arguments; {python} (this interpreter) and {cwd} (the folder this script was
started in) in commands and environment values;
{client}, {seq} and {n} (the append's client, its number within the client, and its number
in the run) in the append's arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as error:  # pragma: no cover - the prerequisite is documented
    sys.exit(f"this benchmark needs the MCP Python SDK: pip install mcp ({error})")

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup  # anyio's dependency before 3.11

try:
    import psutil  # type: ignore
except ImportError:
    psutil = None

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SEED = "demo/memory-bank/activeContext.md"
DEFAULT_DECISIONS = "demo/memory-bank/decisionLog.md"
DEFAULT_COUNT = r"^## "
# Keeps every package manager a server may be started through from fetching anything.
OFFLINE_ENV = {"npm_config_offline": "true", "UV_OFFLINE": "1", "PIP_NO_INDEX": "1"}


def ten_kb() -> str:
    """A 10 KB active context, the same text the Rust stdio bench reads."""
    lines = ["# Active Context\n\n## Current Focus\n"]
    size = len(lines[0])
    i = 0
    while size < 10 * 1024:
        i += 1
        line = f"- Step {i}: the agent moved request handling for module {i} behind the retry policy.\n"
        lines.append(line)
        size += len(line)
    return "".join(lines)


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class Server:
    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    setup: list[ToolCall] = field(default_factory=list)
    read: ToolCall | None = None
    append: ToolCall | None = None
    seed: str = DEFAULT_SEED
    decisions: str = DEFAULT_DECISIONS
    count: str = DEFAULT_COUNT


@dataclass
class RunResult:
    startups_s: list[float] = field(default_factory=list)
    reads_s: list[float] = field(default_factory=list)
    read_checked: bool = False
    peak_rss_kib: int | None = None
    rss_is_peak: bool = True
    sent: int = 0
    acknowledged: int = 0
    kept: int | None = None
    append_wall_s: float | None = None
    timed_out: bool = False
    error: str | None = None


def split_named(value: str, option: str) -> tuple[str, str]:
    name, sep, rest = value.partition("=")
    if not sep or not name:
        sys.exit(f"{option} takes NAME=VALUE, got {value!r}")
    return name, rest


def parse_call(value: str, option: str) -> ToolCall:
    tool, sep, arguments = value.partition(":")
    if not tool:
        sys.exit(f"{option} takes NAME=TOOL:JSON, got {value!r}")
    try:
        parsed = json.loads(arguments) if sep and arguments.strip() else {}
    except json.JSONDecodeError as error:
        sys.exit(f"{option}: the arguments of {tool} are not JSON: {error}")
    if not isinstance(parsed, dict):
        sys.exit(f"{option}: the arguments of {tool} must be a JSON object")
    return ToolCall(tool, parsed)


def substitute(value: Any, values: dict[str, str]) -> Any:
    """Replaces the {placeholders} in every string of a JSON value (keys included)."""
    if isinstance(value, str):
        for key, replacement in values.items():
            value = value.replace("{" + key + "}", replacement)
        return value
    if isinstance(value, list):
        return [substitute(v, values) for v in value]
    if isinstance(value, dict):
        return {substitute(k, values): substitute(v, values) for k, v in value.items()}
    return value


def mbank_default() -> Server:
    binary = os.environ.get("MBANK_BIN") or str(REPO / "target/release/mbank")
    return Server(
        name="mbank",
        command=[binary, "--root", "{root}", "mcp"],
        env={"MBANK_DATA_DIR": "{data}"},
        setup=[ToolCall("set_memory_bank_path", {"path": "demo"})],
        read=ToolCall("memory_bank_read", {"projectPath": "demo", "fileName": "activeContext.md"}),
        append=ToolCall(
            "log_decision",
            {
                "title": "Bench decision {n}",
                "context": "Client {client} appends its entry {seq}.",
                "decision": "Keep entry {n}.",
            },
        ),
    )


def servers_from(args: argparse.Namespace) -> list[Server]:
    if not args.server:
        return [mbank_default()]
    servers: dict[str, Server] = {}
    for value in args.server:
        name, command = split_named(value, "--server")
        words = shlex.split(command)
        if not words:
            sys.exit(f"--server {name}: empty command")
        # The server starts in its own root, so a relative program path is resolved here.
        if os.sep in words[0] and not os.path.isabs(words[0]):
            words[0] = os.path.abspath(words[0])
        servers[name] = Server(name=name, command=words)

    def server(value: str, option: str) -> tuple[Server, str]:
        name, rest = split_named(value, option)
        if name not in servers:
            sys.exit(f"{option} names {name!r}, which no --server defines")
        return servers[name], rest

    for value in args.env or []:
        target, rest = server(value, "--env")
        key, sep, env_value = rest.partition("=")
        if not sep or not key:
            sys.exit(f"--env takes NAME=KEY=VALUE, got {value!r}")
        target.env[key] = env_value
    for value in args.setup or []:
        target, rest = server(value, "--setup")
        target.setup.append(parse_call(rest, "--setup"))
    for value in args.read or []:
        target, rest = server(value, "--read")
        target.read = parse_call(rest, "--read")
    for value in args.append or []:
        target, rest = server(value, "--append")
        target.append = parse_call(rest, "--append")
    for value in args.seed or []:
        target, rest = server(value, "--seed")
        target.seed = rest
    for value in args.decisions or []:
        target, rest = server(value, "--decisions")
        target.decisions = rest
    for value in args.count or []:
        target, rest = server(value, "--count")
        try:
            re.compile(rest)
        except re.error as error:
            sys.exit(f"--count {target.name}: not a regex: {error}")
        target.count = rest
    return list(servers.values())


# ---------------------------------------------------------------- processes and memory


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, grandchildren, ...)."""
    if psutil is not None:
        try:
            return [p.pid for p in psutil.Process(pid).children(recursive=True)]
        except psutil.Error:
            return []
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name in parentheses may hold spaces: the fields follow its last ")".
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in parents.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def peak_rss_kib(pid: int) -> tuple[int | None, bool]:
    """The process's peak resident set in KiB and whether it is the kernel's peak."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]), True
    except (OSError, ValueError, IndexError):
        pass
    if psutil is not None:
        try:
            return psutil.Process(pid).memory_info().rss // 1024, False
        except psutil.Error:
            return None, False
    return None, False


def tree_peak_rss(pids: list[int]) -> tuple[int | None, bool]:
    total, is_peak, seen = 0, True, False
    for pid in pids:
        rss, peak = peak_rss_kib(pid)
        if rss is not None:
            total += rss
            is_peak = is_peak and peak
            seen = True
    return (total if seen else None), is_peak


# ---------------------------------------------------------------- one server, one run


def describe(error: BaseException) -> str:
    """The error's type and message, the first inner one for a task group's group."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


def reply_text(result: Any) -> str:
    try:
        return json.dumps(result.model_dump(mode="json", by_alias=True))
    except AttributeError:
        return str(result)


def is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def parameters(server: Server, root: Path, data: Path) -> StdioServerParameters:
    # The server starts in its root: {cwd} names a file beside the caller instead.
    places = {"root": str(root), "data": str(data), "python": sys.executable, "cwd": os.getcwd()}
    env = {**OFFLINE_ENV, **{k: substitute(v, places) for k, v in server.env.items()}}
    command = [substitute(word, places) for word in server.command]
    return StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(root))


async def setup_session(session: Any, server: Server, places: dict[str, str], timeout: float) -> None:
    for call in server.setup:
        result = await session.call_tool(call.name, substitute(call.arguments, places), read_timeout_seconds=timeout)
        if is_error(result):
            raise RuntimeError(f"setup call {call.name} failed: {reply_text(result)[:300]}")


async def read_phase(server: Server, root: Path, data: Path, log, opts, result: RunResult, marker: str) -> None:
    places = {"root": str(root), "data": str(data)}
    started = time.perf_counter()
    # The whole session is bounded: start-up, then reads bounded by count and by time.
    with anyio.fail_after(opts.startup_timeout + opts.read_seconds + 3 * opts.call_timeout):
        async with stdio_client(parameters(server, root, data), errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(opts.startup_timeout):
                    await session.initialize()
                result.startups_s.append(time.perf_counter() - started)
                # The server is this process's only child while this session lives.
                pids = descendants(os.getpid())
                try:
                    await setup_session(session, server, places, opts.call_timeout)
                    if server.read is not None:
                        await timed_reads(session, server.read, places, opts, result, marker)
                finally:
                    pids = sorted(set(pids) | set(descendants(os.getpid())))
                    result.peak_rss_kib, result.rss_is_peak = tree_peak_rss(pids)


async def startup_only(server: Server, root: Path, data: Path, log, opts, result: RunResult) -> None:
    """One more start-up: spawn, initialize, close (a steadier median on a busy machine)."""
    started = time.perf_counter()
    with anyio.fail_after(opts.startup_timeout + 3 * opts.call_timeout):
        async with stdio_client(parameters(server, root, data), errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(opts.startup_timeout):
                    await session.initialize()
                result.startups_s.append(time.perf_counter() - started)


async def timed_reads(session: Any, call: ToolCall, places: dict[str, str], opts, result: RunResult, marker: str) -> None:
    arguments = substitute(call.arguments, places)
    first = await session.call_tool(call.name, arguments, read_timeout_seconds=opts.call_timeout)
    if is_error(first):
        raise RuntimeError(f"read {call.name} failed: {reply_text(first)[:300]}")
    result.read_checked = marker in reply_text(first)
    for _ in range(opts.warmup):
        await session.call_tool(call.name, arguments, read_timeout_seconds=opts.call_timeout)
    deadline = time.perf_counter() + opts.read_seconds
    for _ in range(opts.calls):
        started = time.perf_counter()
        reply = await session.call_tool(call.name, arguments, read_timeout_seconds=opts.call_timeout)
        result.reads_s.append(time.perf_counter() - started)
        if is_error(reply):
            raise RuntimeError(f"read {call.name} failed: {reply_text(reply)[:300]}")
        if time.perf_counter() > deadline:
            break


def count_entries(root: Path, pattern: str, regex: str) -> int:
    """Entries in the decision file(s): matches of `regex`, or its distinct first captures."""
    compiled = re.compile(regex, re.MULTILINE)
    matches: list[Any] = []
    for path in sorted(root.glob(pattern)):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            matches.extend(m.group(1) if compiled.groups else m.group(0) for m in compiled.finditer(text))
    return len(set(matches)) if compiled.groups else len(matches)


async def append_phase(server: Server, root: Path, data: Path, log, opts, result: RunResult) -> None:
    assert server.append is not None
    places = {"root": str(root), "data": str(data)}
    before = count_entries(root, server.decisions, server.count)
    failures: list[str] = []

    async def client(number: int) -> None:
        try:
            async with stdio_client(parameters(server, root, data), errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    with anyio.fail_after(opts.startup_timeout):
                        await session.initialize()
                    await setup_session(session, server, places, opts.call_timeout)
                    for seq in range(opts.appends):
                        values = {**places, "client": str(number), "seq": str(seq), "n": str(number * opts.appends + seq)}
                        arguments = substitute(server.append.arguments, values)
                        result.sent += 1
                        reply = await session.call_tool(server.append.name, arguments, read_timeout_seconds=opts.call_timeout)
                        if is_error(reply):
                            failures.append(reply_text(reply)[:200])
                        else:
                            result.acknowledged += 1
        except Exception as error:  # one client failing must not hide the others' figures
            failures.append(f"client {number}: {describe(error)}"[:300])

    started = time.perf_counter()
    with anyio.move_on_after(opts.append_timeout) as scope:
        async with anyio.create_task_group() as group:
            for number in range(opts.clients):
                group.start_soon(client, number)
    result.append_wall_s = time.perf_counter() - started
    result.timed_out = scope.cancelled_caught
    result.kept = count_entries(root, server.decisions, server.count) - before
    if failures:
        print(f"  {server.name}: {len(failures)} append failures, first: {failures[0]}", file=sys.stderr)


async def run_once(server: Server, opts, run: int) -> RunResult:
    result = RunResult()
    base = Path(tempfile.mkdtemp(prefix=f"mcp-peers-{server.name}-"))
    root, data = base / "root", base / "data"
    data.mkdir()
    seed = root / server.seed
    seed.parent.mkdir(parents=True, exist_ok=True)
    content = ten_kb()
    seed.write_text(content, encoding="utf-8")
    marker = content.rstrip("\n").splitlines()[-1]
    log_path = base / "server-stderr.log"
    try:
        with open(log_path, "w", encoding="utf-8") as log:
            errors = []
            try:
                for _ in range(opts.startups - 1):
                    await startup_only(server, root, data, log, opts, result)
            except Exception as error:
                errors.append(f"start-up: {describe(error)}")
            try:
                await read_phase(server, root, data, log, opts, result, marker)
            except Exception as error:
                errors.append(f"read session: {describe(error)}")
            # A misconfigured read leaves the concurrency figure worth having.
            wants_appends = server.append is not None and opts.clients > 0 and opts.appends > 0
            if wants_appends and result.startups_s:
                try:
                    await append_phase(server, root, data, log, opts, result)
                except Exception as error:
                    errors.append(f"appends: {describe(error)}")
            result.error = "; ".join(errors) or None
        if result.error:
            tail = log_path.read_text(encoding="utf-8", errors="replace")[-600:].strip()
            print(f"  {server.name} run {run + 1}: {result.error}", file=sys.stderr)
            if tail:
                print(f"  its stderr ends: {tail}", file=sys.stderr)
    finally:
        if opts.keep_roots:
            print(f"  {server.name} run {run + 1}: kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    return result


# ---------------------------------------------------------------- report


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * p))]


def table(servers: list[Server], results: dict[str, list[RunResult]], opts) -> str:
    sent_per_run = opts.clients * opts.appends
    lines = [
        "| server | start-up (median) | read 10 KB (p50) | peak RSS | decisions kept / sent (worst run) |",
        "|---|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    for server in servers:
        runs = results[server.name]
        startups = [t for r in runs for t in r.startups_s]
        startup = f"{statistics.median(startups) * 1e3:.1f} ms" if startups else "—"
        reads = [t for r in runs for t in r.reads_s]
        read = f"{percentile(reads, 0.5) * 1e3:.3f} ms" if reads else "—"
        if reads and not all(r.read_checked for r in runs if r.reads_s):
            read += " ¹"
            notes.append(f"¹ {server.name}: the read's reply did not contain the file's last line.")
        rss = [r.peak_rss_kib for r in runs if r.peak_rss_kib is not None]
        peak = f"{statistics.median(rss) / 1024:.1f} MiB" if rss else "—"
        if rss and not all(r.rss_is_peak for r in runs if r.peak_rss_kib is not None):
            peak += " ²"
            notes.append(f"² {server.name}: RSS at the end of the reads (no kernel peak here).")
        appended = [r for r in runs if r.kept is not None]
        if appended:
            worst = min(appended, key=lambda r: (r.kept - r.sent, r.kept))
            kept = f"{worst.kept} / {worst.sent}"
            if worst.sent < sent_per_run or any(r.timed_out for r in appended):
                kept += " ³"
                notes.append(f"³ {server.name}: the append phase hit its {opts.append_timeout:.0f} s bound or a client failed.")
            if any(r.acknowledged < r.sent for r in appended):
                kept += " ⁴"
                refused = max(r.sent - r.acknowledged for r in appended)
                notes.append(f"⁴ {server.name}: up to {refused} appends a run answered with an error.")
        else:
            kept = "—"
        failed = sum(1 for r in runs if r.error is not None)
        name = server.name + (f" ({failed} of {len(runs)} runs had errors)" if failed else "")
        lines.append(f"| {name} | {startup} | {read} | {peak} | {kept} |")
    return "\n".join(lines + ([""] + notes if notes else []))


def details(servers: list[Server], results: dict[str, list[RunResult]]) -> str:
    out = []
    for server in servers:
        for number, r in enumerate(results[server.name], 1):
            reads = f"read p50 {percentile(r.reads_s, 0.5) * 1e3:.3f} ms n={len(r.reads_s)}" if r.reads_s else "no reads"
            startup = f"{statistics.median(r.startups_s) * 1e3:.1f} ms" if r.startups_s else "—"
            rss = f"{r.peak_rss_kib / 1024:.1f} MiB" if r.peak_rss_kib is not None else "—"
            appends = ""
            if r.kept is not None and r.append_wall_s:
                appends = (
                    f", kept {r.kept} / acked {r.acknowledged} / sent {r.sent}"
                    f" in {r.append_wall_s:.2f} s ({r.acknowledged / r.append_wall_s:.0f} appends/s)"
                )
            error = f", ERROR {r.error}" if r.error else ""
            out.append(f"{server.name} run {number}: start-up {startup}, {reads}, peak RSS {rss}{appends}{error}")
    return "\n".join(out)


async def main_async(opts) -> int:
    servers = servers_from(opts)
    for server in servers:
        if server.read is None:
            print(f"note: {server.name} has no --read: no read figure", file=sys.stderr)
        if server.append is None:
            print(f"note: {server.name} has no --append: no concurrency figure", file=sys.stderr)
    results: dict[str, list[RunResult]] = {s.name: [] for s in servers}
    for run in range(opts.runs):
        # Rotated every run, so no server always runs first (or right after another).
        shift = run % len(servers)
        for server in servers[shift:] + servers[:shift]:
            print(f"run {run + 1}/{opts.runs}: {server.name}", file=sys.stderr)
            results[server.name].append(await run_once(server, opts, run))
    print(details(servers, results), file=sys.stderr)
    print(
        f"\n{opts.runs} runs per server, alternating; {opts.startups} start-ups a run; read: {opts.calls} calls a run after {opts.warmup} "
        f"warm-up; appends: {opts.clients} clients × {opts.appends}, each client its own server process.\n"
    )
    print(table(servers, results, opts))
    return 0 if all(r.error is None for rs in results.values() for r in rs) else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Side-by-side benchmark of stdio MCP memory servers (see the module docstring).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--server", action="append", metavar="NAME=COMMAND", help="a stdio server; {root}, {data} are replaced")
    parser.add_argument("--env", action="append", metavar="NAME=KEY=VALUE", help="an environment variable of server NAME")
    parser.add_argument("--setup", action="append", metavar="NAME=TOOL:JSON", help="a call made once per session before reading or appending")
    parser.add_argument("--read", action="append", metavar="NAME=TOOL:JSON", help="the call reading the 10 KB file")
    parser.add_argument("--append", action="append", metavar="NAME=TOOL:JSON", help="the call appending one decision ({client}, {seq}, {n})")
    parser.add_argument("--seed", action="append", metavar="NAME=RELPATH", help=f"where the 10 KB file goes under the root (default {DEFAULT_SEED})")
    parser.add_argument("--decisions", action="append", metavar="NAME=GLOB", help=f"the decision file(s) under the root (default {DEFAULT_DECISIONS})")
    parser.add_argument("--count", action="append", metavar="NAME=REGEX", help=f"what one entry looks like, multiline (default {DEFAULT_COUNT!r}; with a group: distinct captures)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--startups", type=int, default=5, help="start-ups a run (the read session's is one; default 5)")
    parser.add_argument("--calls", type=int, default=500, help="timed reads a run (default 500)")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--read-seconds", type=float, default=30, help="time bound of the timed reads a run")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--appends", type=int, default=50, help="appends per client")
    parser.add_argument("--append-timeout", type=float, default=120, help="time bound of the append phase a run")
    parser.add_argument("--startup-timeout", type=float, default=60, help="time bound of a server's start-up")
    parser.add_argument("--call-timeout", type=float, default=30)
    parser.add_argument("--keep-roots", action="store_true", help="keep the temporary roots to look at")
    opts = parser.parse_args()
    for name in ("runs", "startups", "calls", "clients", "appends"):
        if not 0 <= getattr(opts, name) <= 100_000:
            sys.exit(f"--{name} must be between 0 and 100000")
    if opts.runs < 1 or opts.startups < 1:
        sys.exit("--runs and --startups must be at least 1")
    return anyio.run(main_async, opts)


if __name__ == "__main__":
    sys.exit(main())
