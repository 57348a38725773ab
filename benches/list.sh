#!/usr/bin/env bash
# `mbank list` on a generated root of 2,000 projects with a warm token cache, as a whole
# process (start-up, scan, cache load, analysis, output), timed with hyperfine against a
# peer measured in the same run: `find` walking the same root and stat-ing every
# markdown file (what any listing must at least do). Target: median <= 50 ms.
#
# The runs are warm: the token cache and the listing cache (`listing-<hash>.bin`, see the
# README's caches section) were written by the first runs, so `mbank list` reads no folder
# listing and no file content, and only `stat`s each folder (to validate its remembered
# entries) and each memory file (size and mtime key the token cache). `find` still reads
# every folder, which is why it is no longer the floor. Set MBANK_BASELINE=/path/to/mbank
# to time an older build in the same run (noise on a shared machine cancels out).
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

hyperfine --warmup 5 --min-runs 30 -N \
  --export-json "$work/list.json" \
  -n "mbank list" "$bin list --root $root" \
  "${baseline[@]}" \
  -n "find -name '*.md' -ls" "find $root -name '*.md' -ls"

# Medians, which hyperfine's summary does not print.
python3 - "$work/list.json" <<'EOF' 2>/dev/null || true
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"median {r['command']}: {r['median'] * 1000:.1f} ms")
EOF
