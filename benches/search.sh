#!/usr/bin/env bash
# `mbank search` as a whole process (start-up, discovery, the index checked against every
# project's files, the query, output) on the generated 2,000-project root, warm (the
# index in the cache folder, nothing changed), against peers measured in the same run:
# `grep -rli` for the same word over every markdown file (what a person does without
# search) and `mbank list` (the same discovery and stats, no index). Then the run after one
# file changed, and the peak RSS of a warm search (GNU time). Rounds alternate the
# commands' order; medians over all rounds.
#
#   benches/search.sh [N_PROJECTS]        (default 2000; needs hyperfine and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}

if ! command -v hyperfine >/dev/null 2>&1; then
  echo "hyperfine is not installed (apt-get install hyperfine, brew install hyperfine or cargo install hyperfine)" >&2
  exit 2
fi

if [ -z "${MBANK_BIN:-}" ]; then
  cargo build --release --locked --quiet
fi
bin=${MBANK_BIN:-$PWD/target/release/mbank}

work=$(mktemp -d -t mbank-bench-search-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
benches/gen_root.sh "$root" "$count" >/dev/null
export XDG_CACHE_HOME=$work/cache XDG_CONFIG_HOME=$work/config HOME=$work/home
mkdir -p "$HOME"
unset MEMORY_BANK_ROOT

start=$(date +%s.%N)
"$bin" search --root "$root" "retries with backoff" >/dev/null 2>&1 || true
echo "cold (first) search: $(python3 -c "print(f'{($(date +%s.%N) - $start) * 1000:.0f} ms')")"
"$bin" list --root "$root" >/dev/null
du -ch "$XDG_CACHE_HOME"/mbank/search-* | tail -1 | sed 's/^/index on disk: /'

search=(-n "mbank search" "$bin search --root $root adopt queue --limit 10")
list=(-n "mbank list" "$bin list --root $root")
peer=(-n "grep -rli queue" "grep -rli --include=*.md queue $root")
rounds=${SEARCH_ROUNDS:-5}
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    order=("${search[@]}" "${list[@]}" "${peer[@]}")
  else
    order=("${peer[@]}" "${list[@]}" "${search[@]}")
  fi
  hyperfine --warmup 2 --runs 10 -N -i --style basic \
    --export-json "$work/search-$round.json" "${order[@]}" >/dev/null
done

# One file changed before each run: the search reads that project again.
file=$(find "$root" -name activeContext.md -print -quit)
hyperfine --runs 20 -N -i --style basic \
  --prepare "sh -c 'echo \"- moved the retries to the outbox \$RANDOM\" >> $file'" \
  --export-json "$work/changed.json" \
  -n "mbank search, one file changed" "$bin search --root $root adopt queue --limit 10" >/dev/null

python3 - "$work"/search-*.json "$work/changed.json" <<'PY'
import json, statistics, sys
times = {}
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
for name, median in medians.items():
    print(f"median {name}: {median:.1f} ms  ({len(times[name])} runs)")
search = medians["mbank search"]
for name in ("mbank list", "grep -rli queue"):
    print(f"mbank search / {name}: {search / medians[name]:.2f}")
PY
if command -v /usr/bin/time >/dev/null 2>&1; then
  /usr/bin/time -v "$bin" search --root "$root" adopt queue >/dev/null 2>"$work/time.txt" || true
  grep "Maximum resident" "$work/time.txt" | sed 's/^\s*/warm search /'
fi
