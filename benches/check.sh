#!/usr/bin/env bash
# `mbank check` against `mbank list` on the generated root of 2,000 projects, both cold
# (mbank's caches removed before every run: every token is counted, every folder read),
# timed in alternating rounds (`benches/alternate.py`: each round runs every command once,
# in a rotating order) so the shared machine's noise falls on all of them alike;
# MBANK_BENCH_TIMER=hyperfine times them with hyperfine instead.
# Target: check's median within 1.5x list's.
#
# Then both warm (caches filled by a run before): each remembers its results with what
# they were derived from, so an unchanged project costs a few `stat`s. Target: warm
# check's median within 2x warm list's.
#
# check validates every bank, reads the decision logs and asks git about projects in a
# repository; the generated root has none, so check must run no git at all (it looks
# for `.git` entries with `stat` and starts git only where one is). With
# MBANK_BENCH_GIT=1 a second comparison commits the whole root as one repository:
# check then runs git a handful of times for all 2,000 projects (once per repository,
# not once per project).
#
# A second comparison checks one Cline bank of 3,000 files (MBANK_BENCH_BIG_BANK=N for
# another size) against listing it: work per file must not grow with the bank's size
# (asking per file whether the bank's contents prove its format once made it quadratic).
#
# The cold comparison times `find` printing every markdown file's size beside them: the
# floor for a program that must at least find and stat every memory file. Target: cold
# list within 1.5x find. Beside it, `find` handing every memory file to `cat`: the floor
# for one that must also read them, as a cold list does to count their tokens. Then each command's peak resident memory (GNU time's maximum
# RSS), cold and warm, the median of MBANK_BENCH_RSS_RUNS runs (default 3). Targets:
# check's peak within 1.2x list's, list's within 150 MB at 20,000 projects.
#
# Set MBANK_BASELINE=/path/to/mbank to time an older build in the same run;
# MBANK_BENCH_ROOT=DIR uses a root generated before (`benches/gen_root.sh DIR N`: 20,000
# projects take a while to generate) instead of generating one; MBANK_BENCH_COLD_RUNS
# and MBANK_BENCH_WARM_RUNS set the runs (rounds) (default 10 and 20), and
# MBANK_BENCH_ONLY_ROOT=1 leaves out the big bank and git comparisons.
#
#   benches/check.sh [N_PROJECTS]        (default 2000)
#
# Needs python3; with MBANK_BENCH_TIMER=hyperfine, hyperfine (`apt-get install hyperfine`,
# `brew install hyperfine` or `cargo install hyperfine`).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}
timer_kind=${MBANK_BENCH_TIMER:-alternate}

# hyperfine's options and JSON, from either timer.
timer() {
  if [ "$timer_kind" = hyperfine ]; then
    hyperfine "$@"
  else
    python3 benches/alternate.py "$@"
  fi
}

if [ "$timer_kind" = hyperfine ] && ! command -v hyperfine >/dev/null 2>&1; then
  echo "hyperfine is not installed. Install it with one of:" >&2
  echo "  sudo apt-get install -y hyperfine" >&2
  echo "  brew install hyperfine" >&2
  echo "  cargo install --locked hyperfine" >&2
  exit 2
fi

cargo build --release --locked --quiet
bin=$PWD/target/release/mbank

work=$(mktemp -d -t mbank-bench-check-XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -n "${MBANK_BENCH_ROOT:-}" ]; then
  root=$MBANK_BENCH_ROOT
else
  root=$work/root
  benches/gen_root.sh "$root" "$count" >/dev/null
fi
# A private cache, config, data folder and home, so the user's files neither help nor hurt.
export MBANK_CACHE_DIR=$work/cache MBANK_CONFIG_DIR=$work/config MBANK_DATA_DIR=$work/data
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
unset MEMORY_BANK_ROOT
echo "projects: $("$bin" list --root "$root" --json | grep -c '"name"')"

# check exits 1 when it finds errors; the timer must time it all the same.
cold="rm -rf $work/cache"
commands=(
  -n "find (every memory file's size)" "find $root -name '*.md' -printf '%s\\n'"
  -n "find + cat (every memory file read)" "find $root -name '*.md' -exec cat {} +"
  -n "mbank list (cold)" "$bin list --root $root"
  -n "mbank check (cold)" "$bin check --root $root"
)
if [ -n "${MBANK_BASELINE:-}" ]; then
  commands+=(-n "baseline check (cold)" "$MBANK_BASELINE check --root $root")
fi

medians() { # $1 = hyperfine JSON; prints medians and check's ratio to list
  python3 - "$1" <<'EOF' 2>/dev/null || true
import json, sys
results = json.load(open(sys.argv[1]))["results"]
by_name = {r["command"]: r["median"] for r in results}
for r in results:
    print(f"median {r['command']}: {r['median'] * 1000:.1f} ms")
for name, value in by_name.items():
    if name.startswith("mbank check") and "mbank list (cold)" in by_name:
        print(f"{name} / mbank list (cold): {value / by_name['mbank list (cold)']:.2f}x (target <= 1.5x)")
find = by_name.get("find (every memory file's size)")
if find and "mbank list (cold)" in by_name:
    print(f"mbank list (cold) / find: {by_name['mbank list (cold)'] / find:.2f}x (target <= 1.5x)")
read = by_name.get("find + cat (every memory file read)")
if read and "mbank list (cold)" in by_name:
    print(f"mbank list (cold) / find + cat: {by_name['mbank list (cold)'] / read:.2f}x")
EOF
}

# Peak resident memory of one run of the command (GNU time's maximum RSS), in KB.
peak_rss() {
  /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$work/rss"
}

# Median peak RSS of a command, cold (caches removed before each run) or warm.
rss_runs=${MBANK_BENCH_RSS_RUNS:-3}
median_rss() { # $1 = cold|warm, then the command
  local temperature=$1 values=() i
  shift
  for i in $(seq 1 "$rss_runs"); do
    if [ "$temperature" = cold ]; then rm -rf "$work/cache"; else "$@" >/dev/null 2>&1 || true; fi
    values+=("$(peak_rss "$@")")
  done
  printf '%s\n' "${values[@]}" | sort -n | sed -n "$(((rss_runs + 1) / 2))p"
}

timer --warmup 1 --min-runs "${MBANK_BENCH_COLD_RUNS:-10}" -N -i --prepare "$cold" \
  --export-json "$work/check.json" "${commands[@]}"
medians "$work/check.json"

if [ -x /usr/bin/time ]; then
  for temperature in cold warm; do
    list_kb=$(median_rss "$temperature" "$bin" list --root "$root")
    check_kb=$(median_rss "$temperature" "$bin" check --root "$root")
    echo "peak RSS ($temperature, median of $rss_runs): list $((list_kb / 1024)) MB," \
      "check $((check_kb / 1024)) MB, check / list" \
      "$(python3 -c "print(f'{$check_kb / $list_kb:.2f}')")x" \
      "(targets: <= 1.2x; list <= 150 MB at 20,000 projects)"
  done
else
  echo "peak RSS: /usr/bin/time (GNU time) is not installed" >&2
fi

# Warm: nothing changed since the run before.
warm_commands=(
  -n "mbank list (warm)" "$bin list --root $root"
  -n "mbank check (warm)" "$bin check --root $root"
)
if [ -n "${MBANK_BASELINE:-}" ]; then
  warm_commands+=(-n "baseline check (warm)" "$MBANK_BASELINE check --root $root")
fi
timer --warmup 2 --min-runs "${MBANK_BENCH_WARM_RUNS:-20}" -N -i \
  --export-json "$work/check-warm.json" "${warm_commands[@]}"
python3 - "$work/check-warm.json" <<'EOF' 2>/dev/null || true
import json, sys
results = json.load(open(sys.argv[1]))["results"]
by_name = {r["command"]: r["median"] for r in results}
list_median = by_name["mbank list (warm)"]
for r in results:
    print(f"median {r['command']}: {r['median'] * 1000:.1f} ms "
          f"({r['median'] / list_median:.2f}x warm list)")
print("target: mbank check (warm) <= 2x mbank list (warm)")
EOF

if [ "${MBANK_BENCH_ONLY_ROOT:-0}" = 1 ]; then
  exit 0
fi

# One big bank: the six core files of a Cline bank and thousands of notes beside them.
bigroot=$work/bigroot
big=$bigroot/project
mkdir -p "$big/memory-bank"
for name in projectbrief productContext systemPatterns techContext activeContext progress; do
  printf '# %s\n\nWhat the agent knows.\n' "$name" >"$big/memory-bank/$name.md"
done
for i in $(seq 1 "${MBANK_BENCH_BIG_BANK:-3000}"); do
  printf '# Note %s\n\nA line the agent wrote.\n' "$i" >"$big/memory-bank/note-$i.md"
done
big_commands=(
  -n "mbank list, one big bank (cold)" "$bin list --root $bigroot"
  -n "mbank check, one big bank (cold)" "$bin check $big"
)
if [ -n "${MBANK_BASELINE:-}" ]; then
  big_commands+=(-n "baseline check, one big bank (cold)" "$MBANK_BASELINE check $big")
fi
timer --warmup 1 --min-runs 10 -N -i --prepare "$cold" \
  --export-json "$work/check-big.json" "${big_commands[@]}"
python3 - "$work/check-big.json" <<'EOF' 2>/dev/null || true
import json, sys
results = json.load(open(sys.argv[1]))["results"]
by_name = {r["command"]: r["median"] for r in results}
list_median = by_name["mbank list, one big bank (cold)"]
for r in results:
    print(f"median {r['command']}: {r['median'] * 1000:.1f} ms "
          f"({r['median'] / list_median:.2f}x list)")
EOF

if [ "${MBANK_BENCH_GIT:-0}" = 1 ]; then
  git -C "$root" init -q -b main
  git -C "$root" add -A
  git -C "$root" -c user.name=bench -c user.email=bench@example.invalid \
    -c commit.gpgsign=false commit -q -m "generated root"
  git_commands=(-n "mbank check, root in one repository (cold)" "$bin check --root $root")
  if [ -n "${MBANK_BASELINE:-}" ]; then
    git_commands+=(-n "baseline check, root in one repository (cold)" "$MBANK_BASELINE check --root $root")
  fi
  timer --warmup 1 --runs 5 -N -i --prepare "$cold" \
    --export-json "$work/check-git.json" \
    -n "mbank list (cold)" "$bin list --root $root" \
    "${git_commands[@]}"
  medians "$work/check-git.json"
fi
