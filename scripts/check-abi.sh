#!/usr/bin/env bash
# Compares the ABI of a build's libfpgacnn with abi/libfpgacnn.dump, the last release's (written by
# scripts/release.sh), with abi-dumper + abi-compliance-checker (Debian packages; scripts/install-deps.sh
# --with-tests). Fails when the library is binary-incompatible or a public type's size or layout
# changed, and its SONAME is still the release's (bump FPGACNN_SOVERSION in CMakeLists.txt,
# docs/api-stability.md), and prints the binary- and source-incompatible changes either way (the
# comparison: scripts/abi-compare.sh). Needs the library's full debug info (-g): the release
# build's RelWithDebInfo has it (cmake/CompilerOptions.cmake, fpgacnn_library_debug_info).
# Usage: scripts/check-abi.sh [build-dir] [reference.dump | --dump-only]
#        (defaults: build/release, abi/libfpgacnn.dump; --dump-only: write build-dir/abi-check/current.dump only)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$repo/build/release}" && pwd)"
reference="${2:-$repo/abi/libfpgacnn.dump}"
work="$build/abi-check"
rm -rf "$work"
mkdir -p "$work"

# The library copied under its SONAME: the dump records the file's name as the library's name (a
# symbolic link would be resolved to libfpgacnn.so.<version>), and the SONAME is what is compared.
[[ -e "$build/runtime/libfpgacnn.so" ]] || { echo "check-abi: no $build/runtime/libfpgacnn.so (build the fpgacnn target)" >&2; exit 1; }
soname="$(objdump -p "$build/runtime/libfpgacnn.so" | awk '$1 == "SONAME" {print $2}')"
library="$work/$soname"
cp "$build/runtime/libfpgacnn.so" "$library"
# The public API is what `cmake --install` puts under include/ (the dev component).
cmake --install "$build" --component dev --prefix "$work/prefix" >/dev/null
version="$(sed -n 's/^#define FPGACNN_VERSION_STRING "\(.*\)"/\1/p' "$work/prefix/include/fpgacnn/version.hpp")"
abi-dumper "$library" -o "$work/current.dump" -lver "$version" -public-headers "$work/prefix/include" -quiet \
  >"$work/abi-dumper.log" 2>&1 || { cat "$work/abi-dumper.log" >&2; exit 1; }
if ! grep -q "'Param'" "$work/current.dump"; then
  echo "check-abi: $library has no parameter types in its debug info (built without -g?)" >&2
  exit 1
fi
[[ "$reference" == --dump-only ]] && exit 0
[[ -f "$reference" ]] || { echo "check-abi: no reference ABI dump $reference (scripts/release.sh writes it)" >&2; exit 1; }
bash "$repo/scripts/abi-compare.sh" "$reference" "$work/current.dump" "$work"
