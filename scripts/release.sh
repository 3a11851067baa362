#!/usr/bin/env bash
# Makes a release's files consistent and refreshes the ABI reference CI compares with (abi/).
# Before running: set the version in CMakeLists.txt's project() (the one place it is stated), bump
# FPGACNN_SOVERSION there if the ABI broke, move CHANGELOG.md's [Unreleased] entries under
# "## [VERSION] - date" and add the packaging/debian/changelog entry (docs/api-stability.md, "Releasing").
# Then: scripts/release.sh VERSION. It checks those, builds the library, prints the ABI report against
# the previous release (scripts/check-abi.sh) and writes abi/libfpgacnn.dump from this build; commit
# that with the release, and tag it vVERSION.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
version="${1:?usage: scripts/release.sh VERSION (e.g. 0.2.0)}"
fail() {
  echo "release: $*" >&2
  exit 1
}
grep -q "^project(fpgacnn VERSION $version " CMakeLists.txt || fail "CMakeLists.txt's project() is not VERSION $version"
grep -q "^## \[$version\] - " CHANGELOG.md || fail "CHANGELOG.md has no '## [$version] - DATE' section"
head -1 packaging/debian/changelog | grep -q "^fpgacnn ($version-" ||
  fail "packaging/debian/changelog does not start with version $version-N"

FPGACNN_BUILD_TARGETS=fpgacnn bash scripts/build.sh release
if [[ -f abi/libfpgacnn.dump ]]; then
  bash scripts/check-abi.sh build/release abi/libfpgacnn.dump
else
  bash scripts/check-abi.sh build/release --dump-only  # the first release with a reference
fi
[[ -s build/release/abi-check/current.dump ]] || fail "no ABI dump was written (build/release/abi-check)"
cp build/release/abi-check/current.dump abi/libfpgacnn.dump
echo "release: abi/libfpgacnn.dump is $version's ABI; commit it with the release and tag v$version"
