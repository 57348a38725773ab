#!/usr/bin/env bash
# Start-up to first useful frame of the TUI on the generated 2,000-project root, whole
# process, warm token cache. Target: first frame <= 50 ms.
#
# The TUI needs a terminal, so every command runs under the same pseudo-terminal wrapper:
# benches/ptyrun.c opens a fresh 200x60 pty, drains its output and sends no input.
# (script(1) does not do here: with stdin at EOF it types ^D into the program, which may
# then quit before its first frame; with stdin open it outlives the program until stdin
# closes.) Peers timed in the same run, under the same wrapper, show the wrapper's cost:
#   true                      the wrapper alone
#   mbank --version           process start (binary load, no root)
#   mbank --root R list       the headless listing (scan + every project's figures, cached)
#   mbank --root R --exit-after-first-frame   the TUI until its first frame shows the projects
#
#   usage: benches/tui_startup.sh [RUNS]      (default 50 runs per command)
# Needs hyperfine (apt-get install hyperfine, or cargo install hyperfine), a C compiler
# (cc, with forkpty from libutil) and python3 (for the summary).
# Builds the release binary first, unless MBANK_BIN names a binary to time (an older
# build, for a before/after).
set -euo pipefail
runs=${1:-50}
here=$(cd "$(dirname "$0")" && pwd)
crate=$(dirname "$here")

if ! command -v hyperfine >/dev/null; then
  echo "hyperfine is missing: install it with 'apt-get install hyperfine' or 'cargo install hyperfine'" >&2
  exit 2
fi
for tool in cc python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool is missing: apt-get install build-essential python3" >&2
    exit 2
  fi
done

if [ -n "${MBANK_BIN:-}" ]; then
  bin=$MBANK_BIN
else
  (cd "$crate" && cargo build --release --quiet)
  bin="$crate/target/release/mbank"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Nothing leaks into the user's folders: home, config, cache and data all live in $work.
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" \
  XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" MBANK_CACHE_DIR="$work/mbank-cache"
unset MEMORY_BANK_ROOT
mkdir -p "$HOME"
root="$work/root"
bash "$here/gen_root.sh" "$root" 2000 >/dev/null
# Warm the token cache (and the page cache) once.
"$bin" --root "$root" list >/dev/null

# The wrapper: a small C program (benches/ptyrun.c), so its own cost stays a few ms.
cc -O2 -o "$work/ptyrun" "$here/ptyrun.c" -lutil
wrap() { printf '%s %s' "$work/ptyrun" "$1"; }

json="$work/startup.json"
hyperfine -N --warmup 3 --runs "$runs" --style basic --export-json "$json" \
  -n wrapper "$(wrap true)" \
  -n version "$(wrap "$bin --version")" \
  -n list "$(wrap "$bin --root $root list")" \
  -n first-frame "$(wrap "$bin --root $root --exit-after-first-frame")" >&2

# Medians, and the first frame net of the wrapper (its own start, fork/exec, pty set-up).
python3 - "$json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
ms = {name: r["median"] * 1000 for name, r in results.items()}
print("median (ms)  " + "  ".join(f"{n}={v:.1f}" for n, v in ms.items()))
frame, wrapper = ms["first-frame"], ms["wrapper"]
print(f"first frame: {frame:.1f} ms under the wrapper, {frame - wrapper:.1f} ms net of it "
      f"(target 50 ms); first-frame/list = {frame / ms['list']:.2f}, "
      f"first-frame/version = {frame / ms['version']:.2f}, "
      f"max {results['first-frame']['max'] * 1000:.1f} ms")
PY
