# Debian armhf (Zynq-7000: Cortex-A9), built with g++-arm-linux-gnueabihf: ARMv7-A, Thumb-2,
# hard-float VFPv3-D16 baseline; the int16 NEON files add -mfpu=neon (runtime/CMakeLists.txt).
# Usage: scripts/cross-build.sh armhf (makes the sysroot, configures with this file, builds).
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(FPGACNN_CROSS_TRIPLET arm-linux-gnueabihf)
set(FPGACNN_CROSS_ARCH armhf)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
# GCC notes on every std::map instantiation that GCC 7.1 changed how such arguments are passed on
# ARM: an ABI note about mixing objects from GCC < 7, which a Debian 12 build never does.
string(APPEND CMAKE_CXX_FLAGS_INIT " -Wno-psabi")
