#!/usr/bin/env bash
# Generates a synthetic MEMORY_BANK_ROOT with N projects (default 2000) for benchmarks:
# 60% Cline banks (7 files), 15% ConKeeper, 15% CLAUDE.md hierarchies, 5% Memory Bank MCP,
# 5% Infinity stores. Deterministic: the same N gives the same tree.
#   usage: benches/gen_root.sh OUT_DIR [N]
set -euo pipefail
out=${1:?usage: gen_root.sh OUT_DIR [N]}
count=${2:-2000}
mkdir -p "$out"

paragraph() { # $1 = seed
  local i
  for i in 1 2 3 4 5 6; do
    printf -- '- Item %s.%s: the service keeps request handling in `src/api/handler_%s.rs` and retries with backoff.\n' "$1" "$i" "$i"
  done
}

cline_bank() { # $1 = dir, $2 = seed
  local d="$1/memory-bank" f
  mkdir -p "$d"
  for f in projectbrief productContext systemPatterns techContext activeContext progress decisionLog; do
    {
      printf '# %s\n\nUpdated 2026-%02d-%02d.\n\n## Notes\n' "$f" $(( ($2 % 11) + 1 )) $(( ($2 % 27) + 1 ))
      paragraph "$2"
      if [ "$f" = decisionLog ]; then
        printf '\n## Decision: Adopt queue %s\n- **Date**: 2026-03-%02d\n- **Status**: Accepted\n' "$2" $(( ($2 % 27) + 1 ))
      fi
    } > "$d/$f.md"
  done
}

conkeeper_bank() {
  local d="$1/.claude/memory" f
  mkdir -p "$d/decisions" "$d/sessions"
  for f in active-context product-context progress patterns glossary; do
    { printf '# %s\n\n' "$f"; paragraph "$2"; } > "$d/$f.md"
  done
  printf '# ADR-001: Use SQLite\n\n**Status:** Accepted\n**Date:** 2026-02-01\n' > "$d/decisions/ADR-001-use-sqlite.md"
  printf -- '---\ntoken_budget: standard\n---\n' > "$d/.memory-config.md"
}

claude_bank() {
  mkdir -p "$1/.claude/rules"
  { printf '# Project instructions\n\n@docs/conventions.md\n\n'; paragraph "$2"; } > "$1/CLAUDE.md"
  mkdir -p "$1/docs"
  { printf '# Conventions\n\n'; paragraph "$2"; } > "$1/docs/conventions.md"
  { printf -- '---\npaths:\n  - "src/**/*.rs"\n---\n# Rust rules\n\n'; paragraph "$2"; } > "$1/.claude/rules/rust.md"
}

mcp_bank() {
  local d="$1/memory-bank" f
  mkdir -p "$d"
  for f in product-context active-context system-patterns decision-log progress; do
    { printf '# %s\n\n' "$f"; paragraph "$2"; } > "$d/$f.md"
  done
}

infinity_store() {
  mkdir -p "$1/.infinity"
  printf 'proj-%s\n' "$2" > "$1/.infinity/project_id"
  printf '{"project_id":"proj-%s","memories":[{"id":"m-%s-1","title":"Overview","type":"project_overview","content":"# Overview\\nA service.","created_at":"2026-01-01T00:00:00Z"},{"id":"m-%s-2","title":"Plan","type":"implementation_plan","content":"# Plan\\n- [ ] step","created_at":"2026-01-02T00:00:00Z"}]}\n' "$2" "$2" "$2" > "$1/.infinity/memories.json"
}

for ((n = 0; n < count; n++)); do
  dir=$(printf '%s/project-%04d' "$out" "$n")
  mkdir -p "$dir/src"
  printf 'fn main() {}\n' > "$dir/src/main.rs"
  case $(( n % 20 )) in
    0|1|2) conkeeper_bank "$dir" "$n" ;;
    3|4|5) claude_bank "$dir" "$n" ;;
    6) mcp_bank "$dir" "$n" ;;
    7) infinity_store "$dir" "$n" ;;
    *) cline_bank "$dir" "$n" ;;
  esac
done
echo "generated $count projects in $out"
