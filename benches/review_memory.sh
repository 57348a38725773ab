#!/usr/bin/env bash
# Peak memory (maximum resident set size) of `mbank review` over a whole root of projects
# outside git, each holding one large memory file changed since its last review. A
# review holds three versions of each changed file (baseline, accepted, current), so
# the whole-root run must stay near one project's worth, not grow with the project count.
# Peer: the same review of one project alone, in the same run.
#
# Target: the whole root's peak within 1.5x the single project's.
#
#   benches/review_memory.sh [PROJECTS] [MB_PER_FILE]      (default 30 projects, 14 MB)
#
# MBANK_BIN=/path/to/mbank measures that binary instead of a release build;
# MBANK_BASELINE=/path/to/mbank measures an older build too. Needs GNU time
# (/usr/bin/time) and python3. Disk: about 2 x PROJECTS x MB_PER_FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-30}
megabytes=${2:-14}

if [ ! -x /usr/bin/time ]; then
  echo "GNU time (/usr/bin/time) is not installed: apt-get install time" >&2
  exit 2
fi

if [ -n "${MBANK_BIN:-}" ]; then
  bin=$MBANK_BIN
else
  cargo build --release --locked --quiet
  bin=$PWD/target/release/mbank
fi

work=$(mktemp -d -t mbank-bench-review-memory-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
export MBANK_CACHE_DIR=$work/cache MBANK_CONFIG_DIR=$work/config MBANK_DATA_DIR=$work/data
export HOME=$work/home NO_COLOR=1
mkdir -p "$HOME"

# One large progress file per project: distinct lines, under the 16 MB read cap.
python3 - "$root" "$count" "$megabytes" <<'EOF'
import os, sys
root, count, megabytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    bank = os.path.join(root, f"project-{i:03}", "memory-bank")
    os.makedirs(bank)
    with open(os.path.join(bank, "activeContext.md"), "w") as f:
        f.write(f"# Active Context\n\nProject {i}.\n")
    line = "- step {:08} of the project, with enough words to look like a log line\n"
    lines, size = [], 0
    n = 0
    while size < megabytes * 1024 * 1024:
        text = line.format(n)
        lines.append(text)
        size += len(text)
        n += 1
    with open(os.path.join(bank, "progress.md"), "w") as f:
        f.write("# Progress\n\n" + "".join(lines))
EOF

"$bin" --root "$root" review --mark-reviewed >/dev/null
# Each project's file changed since: a line edited in the middle, one appended.
python3 - "$root" <<'EOF'
import os, sys
root = sys.argv[1]
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name, "memory-bank", "progress.md")
    with open(path) as f:
        text = f.read()
    middle = len(text) // 2
    cut = text.index("\n", middle) + 1
    text = text[:cut] + "- an agent was here\n" + text[cut:] + "- and here\n"
    with open(path, "w") as f:
        f.write(text)
EOF

peak_kb() {
  local out=$work/time.txt
  /usr/bin/time -f '%M' -o "$out" "$@" >/dev/null || true
  tail -1 "$out"
}

report() {
  local label=$1 binary=$2
  local one whole
  one=$(peak_kb "$binary" --root "$root" review --json "$root/project-000")
  whole=$(peak_kb "$binary" --root "$root" review --json)
  python3 - "$label" "$one" "$whole" "$count" <<'EOF'
import sys
label, one, whole, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"{label}: one project {one / 1024:.0f} MB, whole root of {count} {whole / 1024:.0f} MB ({whole / one:.2f}x)")
EOF
}

echo "mbank review peak RSS, $count projects x ${megabytes} MB changed file"
report "mbank" "$bin"
if [ -n "${MBANK_BASELINE:-}" ]; then
  report "baseline" "$MBANK_BASELINE"
fi
