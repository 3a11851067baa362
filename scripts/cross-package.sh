#!/usr/bin/env bash
# The Debian packages for an ARM target: cross-builds the library and the tools (not the tests) into
# build/cross-<arch>/ (scripts/cross-build.sh, which makes the sysroot first) and runs
# `cpack -G DEB` there; the five .debs (python3-fpgacnn: the Python package, built against the sysroot's
# python3-dev) land in build/cross-<arch>/debs/.
# Usage: scripts/cross-package.sh arm64|armhf
#   Architecture field: the target's (cmake/Packaging.cmake, from the toolchain's triplet).
#   Depends: dpkg-shlibdeps against the sysroot's libraries and their packages' symbols / shlibs
#   files (build/sysroot-<arch>/DEBIAN/, scripts/make-sysroot.sh), as for a native build.
#   Checked by tests/cross/check-debs.sh <arch> (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:-}"
[[ "$arch" == arm64 || "$arch" == armhf ]] || { echo "usage: $0 arm64|armhf" >&2; exit 2; }
build="build/cross-$arch"

# What the packages install, and nothing else: CMAKE_SKIP_INSTALL_ALL_DEPENDENCY keeps cpack's
# install step from building the whole tree (tests, benchmarks) first.
targets=(fpgacnn fpgacnn-detect fpgacnn-classify fpgacnn-quantize fpgacnn-plan fpgacnn-bench fpgacnn-train fpgacnn-synth-weights
         fpgacnn-camera fpgacnn_python)
target_args=()
for t in "${targets[@]}"; do target_args+=(--target "$t"); done
bash scripts/cross-build.sh "$arch" "${target_args[@]}" -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON -DFPGACNN_BUILD_PYTHON=ON

rm -rf "$build/debs"
(cd "$build" && cpack -G DEB -B "$PWD/debs" >cpack.log 2>&1) || {
  cat "$build/cpack.log"
  echo "cross-package: cpack -G DEB failed in $build" >&2
  exit 1
}
# CPack's staging folder, not a result.
rm -rf "$build/debs/_CPack_Packages"
echo "cross-package: $(cd "$build/debs" && echo *.deb) in $build/debs/"
