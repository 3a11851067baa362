# Debian arm64 (Zynq UltraScale+, Kria: Cortex-A53), built with g++-aarch64-linux-gnu.
# Usage: scripts/cross-build.sh arm64 (makes the sysroot, configures with this file, builds).
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(FPGACNN_CROSS_TRIPLET aarch64-linux-gnu)
set(FPGACNN_CROSS_ARCH arm64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
