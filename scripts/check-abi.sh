#!/usr/bin/env bash
# Compares the ABI of a build's libfpgacnn with abi/libfpgacnn.dump, the last release's (written by
# scripts/release.sh), with abi-dumper + abi-compliance-checker (Debian packages; scripts/install-deps.sh
# --with-tests). Fails when the library is binary-incompatible and its SONAME is still the release's
# (bump FPGACNN_SOVERSION in CMakeLists.txt, docs/api-stability.md), and prints the binary- and
# source-incompatible changes either way. Needs the library's full debug info (-g): the release
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
release_soname="$(sed -n "s/^ *'LibraryName' => '\(.*\)',$/\1/p" "$reference")"
release_version="$(sed -n "s/^ *'LibraryVersion' => '\(.*\)',$/\1/p" "$reference")"

# abi-compliance-checker exits 1 on an incompatibility (binary or source), other codes on errors.
status=0
abi-compliance-checker -l fpgacnn -old "$reference" -new "$work/current.dump" -report-format xml \
  -report-path "$work/compat_report.xml" >"$work/checker.log" 2>&1 || status=$?
if ((status > 1)); then
  cat "$work/checker.log" >&2
  echo "check-abi: abi-compliance-checker failed (exit $status)" >&2
  exit 1
fi
grep -E "compatibility|problems" "$work/checker.log" || true
# The reports' problems as text (scripts/abi_report_text.py): each removed symbol and changed type.
report_text=(/usr/bin/python3 "$repo/scripts/abi_report_text.py" "$work/compat_report.xml")
"${report_text[@]}" binary
"${report_text[@]}" source
binary="$("${report_text[@]}" binary --verdict)"
echo "check-abi: $soname $version against the release $release_version ($release_soname): binary $binary," \
  "source $("${report_text[@]}" source --verdict) (report: $work/compat_report.xml)"
if [[ "$binary" == incompatible && "$soname" == "$release_soname" ]]; then
  echo "check-abi: FAILED: the ABI changed incompatibly but the SONAME is still $soname: bump FPGACNN_SOVERSION" \
    "in CMakeLists.txt (docs/api-stability.md), or keep the ABI" >&2
  exit 1
fi
