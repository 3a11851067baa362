#!/usr/bin/env bash
# Compares two abi-dumper dumps of a library with abi-compliance-checker and fails when a program built
# against the old one could not use the new one under the same SONAME: the checker finds it binary-
# incompatible (a removed symbol, a changed signature or vtable: its High and Medium problems), or a
# public type's size or layout changed (fields added, removed, moved or resized), which the checker
# rates "Low" or leaves out, although programs allocate, copy and embed the type at its old size
# (read from the dumps by scripts/abi_layout.py). Prints the binary- and
# source-incompatible changes either way. scripts/check-abi.sh runs it on libfpgacnn; tests/abi on a
# small library built in variants.
# Usage: scripts/abi-compare.sh OLD.dump NEW.dump WORK-DIR   (the XML report goes to WORK-DIR)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
old="${1:?usage: abi-compare.sh OLD.dump NEW.dump WORK-DIR}"
new="${2:?usage: abi-compare.sh OLD.dump NEW.dump WORK-DIR}"
work="${3:?usage: abi-compare.sh OLD.dump NEW.dump WORK-DIR}"
mkdir -p "$work"
# A dump names the library by its file name, which check-abi.sh makes the SONAME.
dump_field() { sed -n "s/^ *'$1' => '\(.*\)',$/\1/p" "$2"; }
old_soname="$(dump_field LibraryName "$old")"
old_version="$(dump_field LibraryVersion "$old")"
soname="$(dump_field LibraryName "$new")"
version="$(dump_field LibraryVersion "$new")"
library="$(basename "${soname%%.so*}")"
library="${library#lib}"

# abi-compliance-checker exits 1 on an incompatibility (binary or source), other codes on errors.
status=0
abi-compliance-checker -l "$library" -old "$old" -new "$new" -report-format xml \
  -report-path "$work/compat_report.xml" >"$work/checker.log" 2>&1 || status=$?
if ((status > 1)); then
  cat "$work/checker.log" >&2
  echo "check-abi: abi-compliance-checker failed (exit $status)" >&2
  exit 1
fi
grep -E "compatibility|problems" "$work/checker.log" || true
# The reports' problems as text: each removed symbol and changed type.
report_text=(/usr/bin/python3 "$repo/scripts/abi_report_text.py" "$work/compat_report.xml")
"${report_text[@]}" binary
"${report_text[@]}" source
binary="$("${report_text[@]}" binary --verdict)"
layout="$(/usr/bin/python3 "$repo/scripts/abi_layout.py" "$old" "$new")"
echo "check-abi: $soname $version against the release $old_version ($old_soname): binary $binary," \
  "source $("${report_text[@]}" source --verdict), public types' layout $([[ -n "$layout" ]] && echo changed || echo unchanged)" \
  "(report: $work/compat_report.xml)"
if [[ "$soname" != "$old_soname" ]]; then
  # A new SONAME: programs built against the old one keep that library. The changes, for the changelog.
  [[ -z "$layout" ]] || printf 'check-abi: the layout changes the new SONAME %s covers:\n%s\n' "$soname" "$layout"
  exit 0
fi
if [[ -n "$layout" ]]; then
  echo "check-abi: FAILED: the size or layout of public types changed since $old_version:" >&2
  echo "$layout" >&2
  echo "check-abi: programs built against $old_version allocate, copy and embed these types at their old size and" \
    "offsets, but the SONAME is still $soname: bump the SONAME (FPGACNN_SOVERSION in CMakeLists.txt," \
    "docs/api-stability.md), or keep the layout" >&2
  exit 1
fi
if [[ "$binary" == incompatible ]]; then
  echo "check-abi: FAILED: the ABI changed incompatibly but the SONAME is still $soname: bump the SONAME" \
    "(FPGACNN_SOVERSION in CMakeLists.txt, docs/api-stability.md), or keep the ABI" >&2
  exit 1
fi
