#!/usr/bin/env bash
# `mbank check` of a real repository against the peer doing the claims' look-ups with git
# and grep (`git ls-files` plus `grep -F -w -l` of every name the memory writes in
# backticks over every tracked file), in four states of the repository:
#
#   cold       mbank's caches removed: the first check of a clone, which walks history
#   warm       nothing changed since the check before
#   edited     a tracked source file edited before each check (a hook before `git add`)
#   committed  a tracked source file edited and committed before each check (a hook on
#              every commit, CI on every push): HEAD is new each time
#
# Runs alternate, the peer and mbank taking turns (who goes first alternates too), so the
# shared machine's noise falls on both; medians and the ratio of medians are printed.
# Target: check ≤ 1× the peer. The repository is cloned into a temporary folder first,
# since the edited and committed states change it.
#
#   benches/claims_repo.sh REPOSITORY [PAIRS]      (default 11 pairs per state)
#
# MBANK_BIN=… measures another build. Needs git, grep and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: benches/claims_repo.sh REPOSITORY [PAIRS]" >&2
  exit 2
fi
source_repo=$(cd "$1" && pwd)
pairs=${2:-11}

if [ -z "${MBANK_BIN:-}" ]; then
  cargo build --release --locked --quiet
fi
bin=${MBANK_BIN:-$PWD/target/release/mbank}

work=$(mktemp -d -t mbank-bench-claims-repo-XXXXXX)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
export MBANK_CACHE_DIR=$work/cache MBANK_CONFIG_DIR=$work/config MBANK_DATA_DIR=$work/data
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
mkdir -p "$HOME"
unset MEMORY_BANK_ROOT
git clone -q --no-hardlinks "$source_repo" "$repo"
# mbank trusts a file's times only once they are older than its racy window (2 s: a file
# written within it may change again without its times changing) and checks such a file
# again on every run. Every file of a clone made a moment ago is that new, which no
# repository someone works in is; wait until the clone's files are past the window.
sleep 3

# The names the memory writes in backticks, from the memory files mbank lists.
"$bin" tokens --json "$repo" | python3 -c '
import json, re, sys
names = set()
for bank in json.load(sys.stdin).get("banks", []):
    for f in bank.get("files", []):
        if f.get("class") != "memory":
            continue
        try:
            text = open(f["path"], encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for quoted in re.findall(r"`([^`\n]+)`", text):
            quoted = quoted.strip().rstrip("()")
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{2,}", quoted):
                names.add(quoted)
print("\n".join(sorted(names)))
' > "$work/names.txt"

# A tracked source file to edit: the largest text file under 1 MB outside the memory
# that is not a lock file.
edit=$(cd "$repo" && git ls-files | python3 -c '
import os, sys
best = (0, "")
for name in sys.stdin.read().splitlines():
    lower = name.lower()
    if lower.endswith(".md") or "lock" in lower or not os.path.isfile(name) or os.path.islink(name):
        continue
    size = os.path.getsize(name)
    if size < 1 << 20 and size > best[0] and b"\0" not in open(name, "rb").read(8192):
        best = (size, name)
print(best[1])
')
if [ -z "$edit" ]; then
  echo "no tracked text file to edit in $source_repo" >&2
  exit 2
fi
echo "repository: $source_repo"
echo "tracked files: $(git -C "$repo" ls-files | wc -l), commits: $(git -C "$repo" rev-list --count HEAD)"
echo "names the peer greps: $(wc -l < "$work/names.txt"); file edited: $edit"
echo "claim findings: $("$bin" check --json "$repo" | grep -c '"code": "claim-' || true)"

cat > "$work/peer.sh" <<EOF
#!/bin/sh
git -C '$repo' ls-files -z | (cd '$repo' && xargs -0 grep -F -w -l -f '$work/names.txt') >/dev/null
exit 0
EOF
cat > "$work/edit.sh" <<EOF
#!/bin/sh
printf '\n' >> '$repo/$edit'
EOF
cat > "$work/commit.sh" <<EOF
#!/bin/sh
printf '\n' >> '$repo/$edit' && git -C '$repo' commit -q -a -m 'bench: edit'
EOF
chmod +x "$work/peer.sh" "$work/edit.sh" "$work/commit.sh"

python3 - "$pairs" "$bin" "$repo" "$work" <<'EOF'
import os, statistics, subprocess, sys, time
pairs, mbank, repo, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
peer = [f"{work}/peer.sh"]
check = [mbank, "check", repo]
states = [
    ("cold", f"rm -rf {work}/cache"),
    ("warm", None),
    ("edited", f"{work}/edit.sh"),
    ("committed", f"{work}/commit.sh"),
]

def timed(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start

for name, prepare in states:
    # One untimed run first: the warm state's caches, and the page cache for both.
    subprocess.run(check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = {"peer": [], "check": []}
    for i in range(pairs):
        order = ["peer", "check"] if i % 2 == 0 else ["check", "peer"]
        for who in order:
            if who == "check" and prepare:
                subprocess.run(prepare, shell=True, check=True)
            times[who].append(timed(peer if who == "peer" else check))
    p, c = statistics.median(times["peer"]), statistics.median(times["check"])
    print(f"{name:9s}  peer {p * 1000:7.1f} ms  check {c * 1000:7.1f} ms  check/peer {c / p:5.2f}x  (target <= 1x)")
EOF
