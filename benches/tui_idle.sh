#!/usr/bin/env bash
# Idle cost of the TUI with every listed project watched: no busy redraw loop, no timer
# ticking, CPU near zero when nothing changes.
# Runs the release binary inside tmux (160x45) on the generated N-project root (default
# 2,000; `demo` runs it on a fresh copy of the demo banks instead), lets it settle (the
# scan, every project's figures, the watches), then over an idle window reads utime+stime
# (/proc/PID/stat) and context switches summed over its threads (/proc/PID/task/*/status:
# every wake-up of every thread is one). Peer in the same run and the same tmux: `cat`,
# which only waits on its terminal. Prints CPU % and wakeups per second for both, the
# threads, and the inotify watches the TUI holds (from /proc/PID/fdinfo) against the
# system's limit (/proc/sys/fs/inotify/max_user_watches).
#
#   usage: benches/tui_idle.sh [SECONDS] [PROJECTS|demo]      (default 10 s, 2000)
# Needs tmux (apt-get install tmux) and python3. Builds the release binary first, unless
# MBANK_BIN names a binary to measure (an older build, for a before/after).
set -euo pipefail
window=${1:-10}
projects=${2:-2000}
here=$(cd "$(dirname "$0")" && pwd)
crate=$(dirname "$here")
if ! command -v tmux >/dev/null; then
  echo "tmux is missing: apt-get install tmux" >&2
  exit 2
fi
if [ -n "${MBANK_BIN:-}" ]; then
  bin=$MBANK_BIN
else
  (cd "$crate" && cargo build --release --quiet)
  bin="$crate/target/release/mbank"
fi

work=$(mktemp -d)
session="mbank-idle-$$"
cleanup() {
  tmux -L "$session" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" \
  XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" MBANK_CACHE_DIR="$work/mbank-cache"
unset MEMORY_BANK_ROOT
mkdir -p "$HOME"
if [ "$projects" = demo ]; then
  args="--demo"
  settle=5
else
  root="$work/root"
  bash "$here/gen_root.sh" "$root" "$projects" >/dev/null
  # Warm the token cache, as a returning user has it.
  "$bin" --root "$root" list >/dev/null
  args="--root $root"
  settle=12
fi

# A private tmux server: two windows, the TUI and the peer.
tmux -L "$session" -f /dev/null new-session -d -x 160 -y 45 -s idle \
  "exec env HOME=$HOME MBANK_CACHE_DIR=$MBANK_CACHE_DIR XDG_DATA_HOME=$XDG_DATA_HOME $bin $args"
tmux -L "$session" new-window -d -t idle "exec cat"
sleep 1
pid_of() { # $1 = program name: the newest such process in our tmux server
  local pane
  for pane in $(tmux -L "$session" list-panes -s -t idle -F '#{pane_pid}'); do
    if [ "$(cat "/proc/$pane/comm")" = "$1" ]; then echo "$pane"; return; fi
  done
}
app=$(pid_of mbank)
peer=$(pid_of cat)
[ -n "$app" ] && [ -n "$peer" ] || { echo "could not find the processes" >&2; exit 1; }
# Let the scan, the figures, the highlight of the first screen and the watches settle.
sleep "$settle"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
switches() { # voluntary + involuntary, summed over every thread
  cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'
}
watches() { # inotify watches held by the process, over all its inotify instances
  cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true
}
hz=$(getconf CLK_TCK)
a0=$(ticks "$app"); p0=$(ticks "$peer"); as0=$(switches "$app"); ps0=$(switches "$peer")
t0=$(date +%s.%N)
sleep "$window"
a1=$(ticks "$app"); p1=$(ticks "$peer"); as1=$(switches "$app"); ps1=$(switches "$peer")
t1=$(date +%s.%N)
threads=$(ls /proc/"$app"/task | wc -l)
held=$(watches "$app")
limit=$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo "?")
screen=$(tmux -L "$session" capture-pane -p -t idle:0 | grep -E 'of [0-9]+ · sorted|watched|counting' | head -2 || true)

python3 - "$hz" "$t0" "$t1" "$a0" "$a1" "$p0" "$p1" "$as0" "$as1" "$ps0" "$ps1" "$threads" <<'PY'
import sys
hz, t0, t1 = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
a0, a1, p0, p1, as0, as1, ps0, ps1, threads = map(int, sys.argv[4:13])
wall = t1 - t0
def row(name, ticks, switches):
    cpu = ticks / hz / wall * 100
    print(f"{name:<14} cpu {cpu:5.2f} %  ({ticks} ticks of 1/{hz} s)  wakeups {switches / wall:7.1f}/s")
print(f"idle window {wall:.1f} s")
row(f"mbank ({threads} thr)", a1 - a0, as1 - as0)
row("cat (peer)", p1 - p0, ps1 - ps0)
PY
echo "root: $projects projects; inotify watches held by mbank: $held (system limit max_user_watches = $limit)"
[ -n "$screen" ] && echo "picker: $(echo "$screen" | tr -s ' ' | tr '\n' ' ')"
exit 0
