#!/usr/bin/env bash
# Claims checked against the code: `mbank check` on a generated repository of 10,000
# tracked source files whose memory bank names 300 paths, symbols and scripts (some gone,
# one renamed in history), against the peer doing the same look-ups with git and grep:
# `git ls-files` plus `grep -F -w` of the same symbols over every tracked file, in the
# same run so the shared machine's noise cancels out.
#
# Targets: check ≤ 1 s warm (mbank's caches and the page cache filled by a previous run),
# ≤ 3 s cold (mbank's caches removed before every run; the page cache dropped too when
# this runs as root and /proc/sys/vm/drop_caches is writable, else said so).
#
#   benches/claims.sh [N_FILES]          (default 10000)
#
# Uses hyperfine when installed (`apt-get install hyperfine`), else a loop of 10 runs
# each, printing the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-10000}

cargo build --release --locked --quiet
bin=$PWD/target/release/mbank

work=$(mktemp -d -t mbank-bench-claims-XXXXXX)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
export MBANK_CACHE_DIR=$work/cache MBANK_CONFIG_DIR=$work/config MBANK_DATA_DIR=$work/data
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
mkdir -p "$HOME" "$repo"
unset MEMORY_BANK_ROOT

python3 - "$repo" "$count" <<'EOF'
import os, sys
repo, count = sys.argv[1], int(sys.argv[2])
per_dir = 100
for i in range(count):
    d = os.path.join(repo, "src", f"mod{i // per_dir:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"file{i % per_dir:03d}.rs"), "w") as f:
        f.write(f"//! Module {i}.\n")
        f.write(f"pub struct Widget{i}Service {{ id: u64 }}\n")
        f.write(f"pub fn handle_widget_{i}_event() -> u64 {{ {i} }}\n")
        f.write("pub fn helper() -> u64 { 1 + 2 + 3 }\n" * 20)
with open(os.path.join(repo, "package.json"), "w") as f:
    f.write('{"name": "bench", "scripts": {"build": "tsc", "test": "vitest"}, "dependencies": {"zod": "3"}}\n')
with open(os.path.join(repo, "Makefile"), "w") as f:
    f.write(".PHONY: deploy\ndeploy:\n\ttrue\n")
bank = os.path.join(repo, "memory-bank")
os.makedirs(bank, exist_ok=True)
lines = ["# System Patterns", ""]
symbols = []
step = max(count // 100, 1)
for n, i in enumerate(range(0, count, step)):
    path = f"src/mod{i // per_dir:03d}/file{i % per_dir:03d}.rs"
    # One in ten names something that is not there.
    symbol = f"Widget{i}Service" if n % 10 else f"Gadget{i}Service"
    lines.append(f"- `{path}` holds `{symbol}` and `handle_widget_{i}_event()`.")
    symbols += [symbol, f"handle_widget_{i}_event"]
lines.append("- The entry point is `src/legacy/main.rs`; build with `npm run build`, ship with `make deploy`.")
for name in ["projectbrief.md", "activeContext.md", "progress.md", "productContext.md", "techContext.md"]:
    with open(os.path.join(bank, name), "w") as f:
        f.write(f"# {name}\n\nFilled in.\n")
with open(os.path.join(bank, "systemPatterns.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(os.path.dirname(repo), "symbols.txt"), "w") as f:
    f.write("\n".join(symbols) + "\n")
EOF
mkdir -p "$repo/src/legacy" && echo 'fn main() {}' > "$repo/src/legacy/main.rs"
git -C "$repo" init -q -b main
git -C "$repo" add -A && git -C "$repo" commit -q -m first
git -C "$repo" mv src/legacy/main.rs src/main.rs && git -C "$repo" commit -q -m "move main"
echo "tracked files: $(git -C "$repo" ls-files | wc -l)"
echo "claim findings: $("$bin" check --json "$repo" | grep -c '"code": "claim-missing')"
"$bin" check "$repo" | grep 'src/legacy/main.rs' || true

symbols=$work/symbols.txt
peer="git -C $repo ls-files -z | (cd $repo && xargs -0 grep -F -w -l -f $symbols) >/dev/null; true"
check="$bin check $repo >/dev/null; true"
cold_prep="rm -rf $work/cache"
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
  cold_prep="$cold_prep; sync; echo 3 > /proc/sys/vm/drop_caches"
  echo "cold: mbank's caches removed and the page cache dropped before each run"
else
  echo "cold: mbank's caches removed before each run (the page cache cannot be dropped here)"
fi

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 2 --runs 10 \
    -n "mbank check (warm)" "$check" \
    -n "git ls-files + grep -F (warm)" "$peer" \
    --export-json "$work/warm.json" >/dev/null
  hyperfine --runs 5 --prepare "$cold_prep" \
    -n "mbank check (cold)" "$check" \
    -n "git ls-files + grep -F (cold)" "$peer" \
    --export-json "$work/cold.json" >/dev/null
  python3 - "$work/warm.json" "$work/cold.json" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        print(f"{r['command']:<34} median {r['median']:.3f} s  (min {r['min']:.3f}, max {r['max']:.3f})")
EOF
else
  median() { # $1 = command, $2 = prepare
    local times=()
    for _ in $(seq 10); do
      [ -n "${2:-}" ] && bash -c "$2"
      local start end
      start=$(date +%s.%N)
      bash -c "$1"
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n 5p
  }
  bash -c "$check"
  echo "mbank check (warm)            median $(median "$check") s"
  echo "git ls-files + grep -F (warm) median $(median "$peer") s"
  echo "mbank check (cold)            median $(median "$check" "$cold_prep") s"
  echo "git ls-files + grep -F (cold) median $(median "$peer" "$cold_prep") s"
fi
