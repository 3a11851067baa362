#!/usr/bin/env bash
# The kernel built with an explorer-chosen configuration (issue 15): fpgacnn-plan --explore picks the
# best int16 build of yolov2 416 for a board, and the kernel tests plus the kernel-vs-int16 bit-exact
# tests run against the kernel compiled with those maxima, in a build folder of its own.
# Usage: scripts/test-explored-build.sh [release-build-dir] [board]   (default build/release, xc7z020)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
release="${1:-build/release}"
board="${2:-xc7z020}"
out="build/explored-$board"
mkdir -p "$out"
"$release/apps/plan/fpgacnn-plan" --cfg /usr/share/darknet/cfg/yolov2.cfg --input 416x416 --explore \
  --board "$board" --config-out "$out/fpgacnn-build.env" >/dev/null
# The maxima as -D definitions: FPGACNN_TM=37;FPGACNN_TN=4;...
defs="$(grep -E '^FPGACNN_(TM|TN|TR|TC|MAX_K|MAX_S|INT8_PAIRS)=' "$out/fpgacnn-build.env" | paste -sd';')"
echo "explored build for $board: $defs"
FPGACNN_BUILD_TARGETS="test_kernel_explored test_kernel_vs_int16_explored" \
  bash scripts/build.sh "explored-$board" -DFPGACNN_EXPLORED_KERNEL="$defs" -DFPGACNN_BUILD_BENCHMARKS=OFF \
  -DFPGACNN_BUILD_SLOW_TESTS=OFF
ctest --test-dir "$out" -R '^explored\.' --output-on-failure -j "$(nproc)"
