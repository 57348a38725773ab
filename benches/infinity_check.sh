#!/usr/bin/env bash
# `mbank check` on Infinity stores (`.infinity/memories.json`) of 5,000 to 100,000
# memories, whole process, caches removed before every run. One memory per line, compact
# JSON, so 100,000 memories stay under the 16 MiB the store may be. Parsing is linear, so
# the time grows with the count, not its square. Target: 100,000 memories <= 2 s.
#
# Set MBANK_BASELINE=/path/to/mbank to time an older build on the same stores (give it
# only the smaller counts when it is the quadratic one: MBANK_BASELINE_MAX=20000 is the
# default cap on what it is given).
#
#   benches/infinity_check.sh [COUNT...]        (default 5000 10000 20000 100000)
#
# Then the same check on stores whose memories all share one id (10,000, 20,000 and 40,000
# memories; MBANK_SHARED_COUNTS sets the counts): each memory is a duplicate-id finding,
# and the time must still grow with the count, not its square.
#
# Uses hyperfine when installed (`apt-get install hyperfine`), else /usr/bin/time over
# a few runs; python3 writes the stores.
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(5000 10000 20000 100000)
runs=${MBANK_BENCH_RUNS:-5}
baseline_max=${MBANK_BASELINE_MAX:-20000}

if [ -z "${MBANK_BIN:-}" ]; then
  cargo build --release --locked --quiet
fi
bin=${MBANK_BIN:-$PWD/target/release/mbank}

work=$(mktemp -d -t mbank-bench-infinity-XXXXXX)
trap 'rm -rf "$work"' EXIT
export MBANK_CACHE_DIR=$work/cache MBANK_CONFIG_DIR=$work/config MBANK_DATA_DIR=$work/data
export HOME=$work/home
mkdir -p "$HOME"
unset MEMORY_BANK_ROOT

# A project whose store holds $2 memories, in $1; with $3 = shared, every memory has the
# same id (a hostile store: each is a duplicate-id finding).
make_store() {
  mkdir -p "$1/.infinity"
  echo "bench-project" >"$1/.infinity/project_id"
  python3 - "$1/.infinity/memories.json" "$2" "${3:-distinct}" <<'EOF'
import json, sys
path, count, ids = sys.argv[1], int(sys.argv[2]), sys.argv[3]
types = ["design_doc", "project_overview", "implementation_plan", "progress_tracker",
         "test_plan", "instructions", "rules", "analysis"]
with open(path, "w") as out:
    out.write('{"project_id": "bench-project", "memories": [\n')
    for i in range(count):
        memory_id = "m-shared" if ids == "shared" else f"m-{i:06d}"
        memory = {"id": memory_id, "title": f"Memory {i}", "type": types[i % 8],
                  "content": f"# Memory {i}\nSee m-{(i + 1) % count:06d}.",
                  "created_at": "2026-01-01T00:00:00Z"}
        out.write(json.dumps(memory, separators=(",", ":")))
        out.write(",\n" if i + 1 < count else "\n")
    out.write("]}\n")
EOF
}

# Median wall time in ms of `$@` over $runs runs, without hyperfine.
median_ms() {
  local times=()
  for _ in $(seq "$runs"); do
    rm -rf "$MBANK_CACHE_DIR"
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# Distinct ids at every count, then shared ids (every memory the same id) at the counts
# where that case was quadratic (MBANK_SHARED_COUNTS, default 10000 20000 40000; empty: none).
read -r -a shared_counts <<<"${MBANK_SHARED_COUNTS-10000 20000 40000}"
cases=()
for count in "${counts[@]}"; do cases+=("$count:distinct"); done
for count in "${shared_counts[@]}"; do cases+=("$count:shared"); done

for case in "${cases[@]}"; do
  count=${case%%:*}
  ids=${case##*:}
  project=$work/store-$count-$ids
  make_store "$project" "$count" "$ids"
  size=$(wc -c <"$project/.infinity/memories.json")
  echo "== $count memories, $ids ids ($size bytes)"
  commands=(-n "mbank check ($count)" "$bin check $project")
  if [ -n "${MBANK_BASELINE:-}" ] && [ "$count" -le "$baseline_max" ]; then
    commands+=(-n "baseline check ($count)" "$MBANK_BASELINE check $project")
  fi
  if command -v hyperfine >/dev/null 2>&1; then
    # check exits 1 when it finds errors; it is timed all the same.
    hyperfine --warmup 1 --runs "$runs" -N -i --prepare "rm -rf $MBANK_CACHE_DIR" \
      "${commands[@]}"
  else
    echo "median mbank check ($count): $(median_ms "$bin" check "$project") ms"
    if [ -n "${MBANK_BASELINE:-}" ] && [ "$count" -le "$baseline_max" ]; then
      echo "median baseline check ($count): $(median_ms "$MBANK_BASELINE" check "$project") ms"
    fi
  fi
done
