#!/usr/bin/env bash
# Idle cost of the TUI: no busy redraw loop, CPU near zero when nothing changes.
# Runs the release binary on a copy of the demo root inside tmux (160x45), lets it settle,
# then reads utime+stime (/proc/PID/stat) and context switches (/proc/PID/task/*/status)
# over an idle window. Peer in the same run and the same tmux: `cat`, which only waits on
# its terminal. Prints CPU % and wakeups per second for both.
#
#   usage: benches/tui_idle.sh [SECONDS]      (default 10)
# Needs tmux (apt-get install tmux). Builds the release binary first.
set -euo pipefail
window=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
crate=$(dirname "$here")
if ! command -v tmux >/dev/null; then
  echo "tmux is missing: apt-get install tmux" >&2
  exit 2
fi
(cd "$crate" && cargo build --release --quiet)
bin="$crate/target/release/mbank"

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

# A private tmux server: two windows, the TUI (on a fresh demo copy) and the peer.
tmux -L "$session" -f /dev/null new-session -d -x 160 -y 45 -s idle \
  "exec env HOME=$HOME MBANK_CACHE_DIR=$MBANK_CACHE_DIR $bin --demo"
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
sleep 5

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
switches() { # voluntary + involuntary, summed over every thread
  cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'
}
hz=$(getconf CLK_TCK)
a0=$(ticks "$app"); p0=$(ticks "$peer"); as0=$(switches "$app"); ps0=$(switches "$peer")
t0=$(date +%s.%N)
sleep "$window"
a1=$(ticks "$app"); p1=$(ticks "$peer"); as1=$(switches "$app"); ps1=$(switches "$peer")
t1=$(date +%s.%N)
threads=$(ls /proc/"$app"/task | wc -l)

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
