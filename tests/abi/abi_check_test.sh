#!/usr/bin/env bash
# The ABI check's verdicts on real libraries: tests/abi/abi_probe.cpp built as a shared library in
# variants (g++ -g, as libfpgacnn's release build), each dumped with abi-dumper over its public header
# and compared with the base variant by scripts/abi-compare.sh, the comparison scripts/check-abi.sh
# runs on libfpgacnn against abi/. Each case asserts the exit status and the report's wording.
# Usage: tests/abi/abi_check_test.sh WORK-DIR [C++ compiler]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="${1:?usage: abi_check_test.sh WORK-DIR [CXX]}"
cxx="${2:-c++}"
rm -rf "$work"
mkdir -p "$work/include"
cp "$here/abi_probe.hpp" "$work/include/"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# variant NAME SONAME [-D...]: builds libprobe as NAME with that SONAME and dumps its ABI to NAME.dump.
variant() {
  local name="$1" soname="$2"
  shift 2
  mkdir -p "$work/$name"
  "$cxx" -std=c++17 -g -O1 -fPIC -shared -Wl,-soname,"$soname" "$@" -o "$work/$name/$soname" \
    "$here/abi_probe.cpp"
  abi-dumper "$work/$name/$soname" -o "$work/$name.dump" -lver "$name" -public-headers "$work/include" -quiet \
    >"$work/$name.dumper.log" 2>&1 || { cat "$work/$name.dumper.log" >&2; exit 1; }
}

# expect NAME EXIT-STATUS PATTERN...: compares base with NAME; the status and every pattern must match.
expect() {
  local name="$1" expected="$2" status=0
  shift 2
  bash "$repo/scripts/abi-compare.sh" "$work/base.dump" "$work/$name.dump" "$work/compare-$name" \
    >"$work/$name.out" 2>&1 || status=$?
  echo "--- base -> $name: exit $status"
  cat "$work/$name.out"
  ((status == expected)) || fail "base -> $name: exit $status, expected $expected"
  local pattern
  for pattern in "$@"; do
    grep -qE -- "$pattern" "$work/$name.out" || fail "base -> $name: no line matches '$pattern'"
  done
}

variant base libprobe.so.1
variant added_fields libprobe.so.1 -DABI_PROBE_ADDED_FIELDS
variant added_fields_new_soname libprobe.so.2 -DABI_PROBE_ADDED_FIELDS
variant grown_options libprobe.so.1 -DABI_PROBE_GROWN_OPTIONS
variant added_function libprobe.so.1 -DABI_PROBE_ADDED_FUNCTION
variant removed_function libprobe.so.1 -DABI_PROBE_REMOVED_FUNCTION

# A field added to a public struct: its size and the size of the struct embedding it change.
expect added_fields 1 \
  "layout of struct probe::Command changed: size 88 -> 96 bytes; field 'error_offset' added at offset 88" \
  "layout of struct probe::Submission changed: size 96 -> 104 bytes; field 'command' 88 -> 96 bytes; field 'tag' moved from offset 88 to 96" \
  "FAILED: the size or layout of public types changed" "bump the SONAME"
# A struct taken only by reference grew: the checker's verdict is "compatible" (a Low problem), the
# layout check fails it (what kernel::LayerCommand's growth after 0.2.0 looked like to the checker).
expect grown_options 1 "binary compatible" "layout of struct probe::Options changed: size 8 -> 16 bytes" \
  "bump the SONAME"
# The same change with the SONAME bumped: programs built against libprobe.so.1 keep that library.
expect added_fields_new_soname 0 "libprobe.so.2 .* against the release base \(libprobe.so.1\)"
# A new free function is an addition: nothing a program built against base uses changes.
expect added_function 0 "binary compatible, source compatible, public types' layout unchanged"
# A removed function (the checker's High problem) still fails as before.
expect removed_function 1 "removed symbol: probe::legacy_count\(probe::Command const&\)" \
  "FAILED: the ABI changed incompatibly but the SONAME is still libprobe.so.1"
# The unchanged library passes.
variant same libprobe.so.1
expect same 0 "public types' layout unchanged"

((failures == 0)) || { echo "abi_check_test: $failures failure(s)" >&2; exit 1; }
echo "abi_check_test: every case passed"
