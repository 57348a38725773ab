#!/usr/bin/env bash
# `mbank list` on a generated root of 2,000 projects with a warm token cache, as a whole
# process (start-up, scan, cache load, analysis, output), timed with hyperfine against a
# peer measured in the same run: `find` walking the same root and stat-ing every
# markdown file (what any listing must at least do). Target: median <= 50 ms.
#
# The runs are warm: the first runs wrote the caches (see docs/CONFIGURATION.md's caches),
# among them the remembered rows (`rows-<hash>.bin`), so `mbank list` reads no folder
# listing and no file content and analyses no project: it `stat`s each folder and memory
# file a row was derived from (an edit in place changes no folder) and prints the rows.
# `find` still reads every folder, which is why it is no longer the floor. The 20,000
# project target is 0.25 x `find`: `benches/list.sh 20000`. Set MBANK_BASELINE=/path/to/mbank
# to time an older build in the same run. LIST_ROUNDS (default 5) rounds of 10 runs each,
# the order of the commands alternating between rounds.
#
#   benches/list.sh [N_PROJECTS]        (default 2000)
#
# Needs hyperfine: `apt-get install hyperfine`, `brew install hyperfine` or
# `cargo install hyperfine`.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}

if ! command -v hyperfine >/dev/null 2>&1; then
  echo "hyperfine is not installed. Install it with one of:" >&2
  echo "  sudo apt-get install -y hyperfine" >&2
  echo "  brew install hyperfine" >&2
  echo "  cargo install --locked hyperfine" >&2
  exit 2
fi

cargo build --release --locked --quiet
bin=$PWD/target/release/mbank

work=$(mktemp -d -t mbank-bench-list-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
benches/gen_root.sh "$root" "$count" >/dev/null
# A private cache, config and home, so the user's files neither help nor hurt.
export MBANK_CACHE_DIR=$work/cache MBANK_CONFIG_DIR=$work/config HOME=$work/home
mkdir -p "$HOME"
unset MEMORY_BANK_ROOT

# Warm the token cache (first run counts everything) and the OS's file caches.
"$bin" list --root "$root" >/dev/null
"$bin" list --root "$root" >/dev/null
echo "projects: $("$bin" list --root "$root" --json | grep -c '"name"')"

baseline=()
if [ -n "${MBANK_BASELINE:-}" ]; then
  # Its own cache: an older build may keep another cache format, and two builds sharing
  # one would each find the other's cache stale.
  mkdir -p "$work/baseline-cache"
  MBANK_CACHE_DIR=$work/baseline-cache "$MBANK_BASELINE" list --root "$root" >/dev/null
  MBANK_CACHE_DIR=$work/baseline-cache "$MBANK_BASELINE" list --root "$root" >/dev/null
  baseline=(-n "baseline list" "env MBANK_CACHE_DIR=$work/baseline-cache $MBANK_BASELINE list --root $root")
fi

mbank=(-n "mbank list" "$bin list --root $root")
peer=(-n "find -name '*.md' -ls" "find $root -name '*.md' -ls")

# Rounds with the commands in turn first, so load that drifts during a run (a shared
# machine) falls on every command alike rather than on whichever hyperfine ran last.
rounds=${LIST_ROUNDS:-5}
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    order=("${mbank[@]}" "${baseline[@]}" "${peer[@]}")
  else
    order=("${peer[@]}" "${baseline[@]}" "${mbank[@]}")
  fi
  hyperfine --warmup 3 --runs 10 -N --style basic \
    --export-json "$work/list-$round.json" "${order[@]}" >/dev/null
done

# Medians over every round, which hyperfine's summary does not print, and the ratios.
python3 - "$work"/list-*.json <<'EOF'
import json, statistics, sys
times = {}
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
for name, median in medians.items():
    print(f"median {name}: {median:.1f} ms  ({len(times[name])} runs)")
mbank = medians.get("mbank list")
for name, median in medians.items():
    if name != "mbank list" and mbank:
        print(f"mbank list / {name}: {mbank / median:.3f}")
EOF
