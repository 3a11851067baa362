#!/usr/bin/env bash
# Cross-builds fpgacnn for a Debian ARM target into build/cross-<arch>/: Debian's cross compiler,
# the target sysroot (made first by scripts/make-sysroot.sh) and cmake/toolchains/<triplet>.cmake.
# The XRT driver is left out: Debian 12 has libxrt-dev for amd64 only; so is the kernel's Verilator
# model (FPGACNN_BUILD_RTL: its tests run in the native release build, and the legs test what ships).
# Usage: scripts/cross-build.sh arm64|armhf [--target T]... [extra cmake args...]
#   no --target: everything (library, drivers, apps, tests, benchmarks); run the tests with
#   ctest --test-dir build/cross-<arch> (through qemu, scripts/cross-run.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
arch="${1:-}"
case "$arch" in
  arm64) triplet=aarch64-linux-gnu ;;
  armhf) triplet=arm-linux-gnueabihf ;;
  *) echo "usage: $0 arm64|armhf [--target T]... [extra cmake args...]" >&2; exit 2 ;;
esac
shift
targets=()
cmake_args=()
while (($# > 0)); do
  if [[ "$1" == "--target" && $# -ge 2 ]]; then
    targets+=("$2")
    shift 2
  else
    cmake_args+=("$1")
    shift
  fi
done

command -v "$triplet-g++" >/dev/null || {
  echo "cross-build: $triplet-g++ is missing: apt-get install g++-$triplet" >&2
  exit 1
}
bash scripts/make-sysroot.sh "$arch"

FPGACNN_BUILD_TARGETS="${targets[*]}" bash scripts/build.sh "cross-$arch" \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchains/$triplet.cmake" -DFPGACNN_WITH_XRT=OFF -DFPGACNN_WITH_SERVE=OFF \
  -DFPGACNN_BUILD_RTL=OFF "${cmake_args[@]}"
