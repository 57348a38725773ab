#!/usr/bin/env bash
# The journal's bounds with `mbank watch` following the generated N-project root (default
# 2,000): how long it takes to start (the first catch-up records every file) and to start
# again (nothing changed), its CPU and resident memory left idle over a window (utime +
# stime from /proc/PID/stat, VmRSS and VmHWM from /proc/PID/status), the inotify watches
# it holds (/proc/PID/fdinfo) against the limit, then the latency from a write to its
# version being in the history (the watch logs a version once it is recorded) over W
# writes to memory files of random projects, one every 100 ms; p50/p95/max. Peer in the
# same run: the latency from the same writes to a bare `inotifywait` printing them, when
# installed (the kernel's floor; the watch batches writes until 30 ms pass without one).
# Then the CPU the watch spends on each of 50 writes of a file that is not memory in a
# watched folder (a project's own file beside its banks). Last, in a user namespace
# whose inotify limit is 200 watches (`unshare -Ur`, /proc/sys/user/max_inotify_watches;
# nothing outside it changes), a second watch's log: it must say how many folders it
# watches, which limit stopped it and that it falls back to a periodic scan.
#
#   usage: benches/journal_watch.sh [PROJECTS] [WRITES] [IDLE_SECONDS]  (2000, 300, 10)
# Needs python3 (the writer and the figures). Builds the release binary first, unless
# MBANK_BIN names a binary to measure (an older build, for a before/after).
# Targets: idle CPU about 0, RSS ≤ 100 MiB, p50 ≤ 50 ms from write to history.
set -euo pipefail
projects=${1:-2000}
writes=${2:-300}
window=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
crate=$(dirname "$here")
if [ -n "${MBANK_BIN:-}" ]; then
  bin=$MBANK_BIN
else
  (cd "$crate" && cargo build --release --quiet)
  bin="$crate/target/release/mbank"
fi

work=$(mktemp -d)
watch_pid=
cleanup() {
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" \
  XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" MBANK_DATA_DIR="$work/mbank-data"
unset MEMORY_BANK_ROOT MBANK_NOW
mkdir -p "$HOME"
root="$work/root"
bash "$here/gen_root.sh" "$root" "$projects" >/dev/null

now() { date +%s.%N; }
# Starts a watch logging to $1 and waits until it watches; $took: the seconds it took.
start_watch() {
  local log=$1 t0
  t0=$(now)
  "$bin" watch --root "$root" >/dev/null 2>"$log" &
  watch_pid=$!
  until grep -q 'watching for changes' "$log"; do
    kill -0 "$watch_pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.01
  done
  took=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$(now)")
}
stop_watch() {
  kill -TERM "$watch_pid"
  wait "$watch_pid" || true
  watch_pid=
}

start_watch "$work/watch-1.log"
first=$took
files=$(grep -o 'following [0-9]* memory files in [0-9]* stores' "$work/watch-1.log" || true)
stop_watch
start_watch "$work/watch-2.log"
again=$took
pid=$watch_pid
caught=$(grep -o 'caught up: .*' "$work/watch-2.log" || true)

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
sleep 1
a0=$(ticks "$pid"); t0=$(now)
sleep "$window"
a1=$(ticks "$pid"); t1=$(now)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
threads=$(ls "/proc/$pid/task" | wc -l)
held=$(cat /proc/"$pid"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true)
limit=$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo "?")

echo "root: $projects projects ($files)"
echo "start: ${first} s with the first catch-up (every file recorded), ${again} s again ($caught)"
python3 - "$hz" "$t0" "$t1" "$a0" "$a1" "$rss" "$hwm" "$threads" <<'PY'
import sys
hz, t0, t1 = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
a0, a1, rss, hwm, threads = map(int, sys.argv[4:9])
wall = t1 - t0
print(f"idle {wall:.1f} s: cpu {(a1 - a0) / hz / wall * 100:.2f} % ({a1 - a0} ticks of 1/{hz} s), "
      f"RSS {rss / 1024:.1f} MiB (peak {hwm / 1024:.1f} MiB), {threads} threads")
PY
echo "inotify watches held by mbank watch: $held (system limit max_user_watches = $limit)"

# Write latency: W writes, one every 100 ms, to the progress file of a random Cline
# project; each is timed until the watch's log names its new version.
python3 - "$root" "$work/watch-2.log" "$writes" "$projects" <<'PY'
import os, random, shutil, subprocess, sys, time
root, log, writes, projects = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
random.seed(33)
cline = [n for n in range(projects) if n % 20 >= 8]
peer = None
if shutil.which("inotifywait"):
    folders = [f"{root}/project-{n:04d}/memory-bank" for n in cline]
    peer = subprocess.Popen(["inotifywait", "-m", "-q", "-e", "close_write", "--format", "%w%f", *folders],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(2)
logf = open(log)
logf.seek(0, os.SEEK_END)
latencies, peers = [], []
for i in range(writes):
    n = random.choice(cline)
    path = f"{root}/project-{n:04d}/memory-bank/progress.md"
    text = open(path).read() + f"- step {i} of the bench\n"
    t0 = time.perf_counter()
    with open(path, "w") as f:
        f.write(text)
    if peer:
        while peer.stdout.readline().strip() != path:
            pass
        peers.append(time.perf_counter() - t0)
    needle = f"project-{n:04d}/memory-bank/progress.md: version"
    seen = ""
    deadline = t0 + 10
    while needle not in seen:
        line = logf.readline()
        if line:
            seen = line
            continue
        if time.perf_counter() > deadline:
            sys.exit(f"write {i} to {path} was not recorded within 10 s")
        time.sleep(0.0005)
    latencies.append(time.perf_counter() - t0)
    time.sleep(max(0.0, 0.1 - (time.perf_counter() - t0)))
def show(name, values):
    values = sorted(v * 1000 for v in values)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    print(f"{name:<28} p50 {pick(0.5):6.1f} ms  p95 {pick(0.95):6.1f} ms  max {values[-1]:6.1f} ms  ({len(values)} writes)")
show("write -> in the history", latencies)
if peer:
    show("write -> inotifywait (peer)", peers)
    peer.terminate()
else:
    print("(no inotifywait for the peer: apt-get install inotify-tools)")
PY

# Writes that are not memory, in watched folders (a file beside each project's banks, as
# a README or a build file): CPU the watch spends per write, one every 100 ms.
n_other=50
o0=$(ticks "$pid"); t0=$(now)
for ((i = 0; i < n_other; i++)); do
  printf 'notes %s\n' "$i" > "$root/project-$(printf %04d $(( (i * 37) % projects )))/notes.txt"
  sleep 0.1
done
sleep 0.5
o1=$(ticks "$pid"); t1=$(now)
python3 -c "import sys; hz, a, b, n = map(int, sys.argv[1:5]); print(f'{n} writes of a file that is not memory: {(b - a) / hz * 1000 / n:.1f} ms of CPU each')" \
  "$hz" "$o0" "$o1" "$n_other"
stop_watch

# Running out of watches, in a user namespace whose limit is 200 (the system's stays).
if unshare -Ur sh -c 'echo 200 > /proc/sys/user/max_inotify_watches' 2>/dev/null; then
  unshare -Ur sh -c 'echo 200 > /proc/sys/user/max_inotify_watches && exec "$0" watch --root "$1"' \
    "$bin" "$root" >/dev/null 2>"$work/watch-3.log" &
  watch_pid=$!
  until grep -q 'watching for changes' "$work/watch-3.log"; do
    kill -0 "$watch_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "with 200 watches allowed: $(grep -E 'watching [0-9]+ of' "$work/watch-3.log" | sed 's/^mbank watch: //' || echo 'no word on the missing watches')"
  stop_watch
else
  echo "(no user namespaces here: the limited-watches check is skipped)"
fi
