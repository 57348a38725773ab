#!/usr/bin/env bash
# mbank search against basic-memory's search on the labelled questions of the corpus.
#
#   benches/search-vs-basic-memory/run.sh [PYTHON] [-- bench.py options]
#
# PYTHON (or $BM_PYTHON): a Python >= 3.12.1 with sqlite3 (basic-memory needs it). A
# virtual environment with basic-memory $BM_VERSION is made once in
# ${XDG_CACHE_HOME:-~/.cache}/mbank-bench/ (it downloads from PyPI). mbank is built
# (release) unless $MBANK_BIN names a binary. The corpus is ../shared/corpus beside the
# repository unless $MBANK_CORPUS names one. Options after `--` go to bench.py (--rounds,
# --latency-questions, --cli-questions, --skip-latency).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
version=${BM_VERSION:-0.24.1}

python=${BM_PYTHON:-}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  python=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
if [ -z "$python" ]; then
  for candidate in python3.13 python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then
      python=$(command -v "$candidate")
      break
    fi
  done
fi
if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 12, 1))' 2>/dev/null; then
  echo "basic-memory needs Python >= 3.12.1; ${python:-no python} is not one." >&2
  echo "Give one: $0 /path/to/python3.12 (or BM_PYTHON=/path/to/python3.12 $0)" >&2
  exit 2
fi
if ! "$python" -c 'import sqlite3; sqlite3.connect(":memory:").execute("create virtual table t using fts5(a)")' 2>/dev/null; then
  echo "$python has no sqlite3 with FTS5, which basic-memory's search needs" >&2
  exit 2
fi

py_version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
venv=${XDG_CACHE_HOME:-$HOME/.cache}/mbank-bench/basic-memory-$version-py$py_version
if [ ! -x "$venv/bin/basic-memory" ]; then
  echo "making $venv (basic-memory $version from PyPI)" >&2
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet "basic-memory==$version"
fi

corpus=${MBANK_CORPUS:-$repo/../shared/corpus}
if [ ! -d "$corpus" ]; then
  echo "no corpus at $corpus (set MBANK_CORPUS)" >&2
  exit 2
fi
if [ -z "${MBANK_BIN:-}" ]; then
  (cd "$repo" && cargo build --release --locked --quiet)
fi
bin=${MBANK_BIN:-$repo/target/release/mbank}

work=$(mktemp -d -t mbank-vs-basic-memory-XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "$("$venv/bin/basic-memory" --version 2>/dev/null | tail -1), $("$venv/bin/python" --version), $("$bin" --version)"
"$venv/bin/python" "$here/bench.py" --mbank "$bin" --corpus "$corpus" \
  --labels "$repo/tests/it/search_queries.toml" --work "$work" "$@"
