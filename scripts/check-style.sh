#!/usr/bin/env bash
# clang-format must leave every C++ file unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' | grep -v '^third_party/')
if ((${#files[@]} == 0)); then exit 0; fi
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "check-style: run 'clang-format -i' on the files above" >&2
  exit 1
fi
echo "check-style: ${#files[@]} files formatted"
