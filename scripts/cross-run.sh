#!/usr/bin/env bash
# Runs a cross-built binary under qemu-user with the target's sysroot (scripts/make-sysroot.sh)
# as its root for the dynamic loader and libraries. ctest runs the cross-built tests through this
# (CMAKE_CROSSCOMPILING_EMULATOR in cmake/toolchains/debian-cross.cmake).
# Usage: scripts/cross-run.sh arm64|armhf PROGRAM [ARGS...]
# A program it starts (fork + exec of another ARM binary) is not emulated: that needs binfmt_misc.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
arch="${1:-}"
case "$arch" in
  arm64) qemu=qemu-aarch64 ;;
  armhf) qemu=qemu-arm ;;
  *) echo "usage: $0 arm64|armhf PROGRAM [ARGS...]" >&2; exit 2 ;;
esac
shift
(($# > 0)) || { echo "usage: $0 $arch PROGRAM [ARGS...]" >&2; exit 2; }
sysroot="${FPGACNN_SYSROOT:-$repo/build/sysroot-$arch}"
[[ -f "$sysroot/.fpgacnn-sysroot" ]] || {
  echo "cross-run: no complete sysroot at $sysroot: run scripts/make-sysroot.sh $arch" >&2
  exit 1
}
command -v "$qemu" >/dev/null || { echo "cross-run: $qemu is missing: apt-get install qemu-user" >&2; exit 1; }
exec "$qemu" -L "$sysroot" "$@"
