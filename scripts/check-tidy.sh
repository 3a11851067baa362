#!/usr/bin/env bash
# clang-tidy over the product's sources, using the compile database of a configured build.
# Usage: scripts/check-tidy.sh [build dir]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
[[ -f "$build/compile_commands.json" ]] || { echo "check-tidy: configure $build first" >&2; exit 1; }
mapfile -t files < <(git ls-files 'runtime/*.cpp' 'drivers/*.cpp' 'kernels/*.cpp' 'apps/*.cpp')
((${#files[@]})) || exit 0
# A unity build's database names its batches, not their files: one entry per file (its batch's command).
# clang-tidy then parses each file alone, which also shows a file that compiles only inside its batch.
database="$build/tidy-database"
/usr/bin/python3 scripts/expand_unity_commands.py "$build" "$database"
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$database" --quiet 2>/dev/null
echo "check-tidy: ${#files[@]} files clean"
