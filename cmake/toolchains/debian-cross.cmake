# Shared part of the Debian cross toolchain files (aarch64-linux-gnu.cmake, arm-linux-gnueabihf.cmake):
# Debian's cross compilers (g++-<triplet>) against a sysroot unpacked from Debian's packages of the
# target architecture by scripts/make-sysroot.sh, and qemu-user as the emulator that runs the
# cross-built tests (scripts/cross-run.sh). Expects FPGACNN_CROSS_TRIPLET and FPGACNN_CROSS_ARCH.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${FPGACNN_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${FPGACNN_CROSS_TRIPLET}-g++)

get_filename_component(_fpgacnn_repo "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(FPGACNN_SYSROOT "${_fpgacnn_repo}/build/sysroot-${FPGACNN_CROSS_ARCH}" CACHE PATH
    "The target sysroot (scripts/make-sysroot.sh ${FPGACNN_CROSS_ARCH})")
if(NOT EXISTS "${FPGACNN_SYSROOT}/.fpgacnn-sysroot")
  message(FATAL_ERROR "No complete sysroot at ${FPGACNN_SYSROOT}: run scripts/make-sysroot.sh ${FPGACNN_CROSS_ARCH}")
endif()
set(CMAKE_SYSROOT "${FPGACNN_SYSROOT}")
# Libraries, headers and CMake packages from the sysroot only; programs (pkg-config, ...) from here.
set(CMAKE_FIND_ROOT_PATH "${FPGACNN_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${FPGACNN_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${FPGACNN_SYSROOT}/usr/lib/${FPGACNN_CROSS_TRIPLET}/pkgconfig:${FPGACNN_SYSROOT}/usr/share/pkgconfig")
# The target's Python (python/CMakeLists.txt): FindPython looks for <triplet>-python3.N-config (which
# reports the target's headers and extension suffix) here first, not among the build machine's programs.
set(Python_ROOT_DIR "${FPGACNN_SYSROOT}/usr")
# The target's shared libraries' own dependencies (OpenCV -> its codecs, ...) resolve in the sysroot.
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT
       " -Wl,-rpath-link,${FPGACNN_SYSROOT}/usr/lib/${FPGACNN_CROSS_TRIPLET}"
       " -Wl,-rpath-link,${FPGACNN_SYSROOT}/lib/${FPGACNN_CROSS_TRIPLET}")
string(APPEND CMAKE_SHARED_LINKER_FLAGS_INIT
       " -Wl,-rpath-link,${FPGACNN_SYSROOT}/usr/lib/${FPGACNN_CROSS_TRIPLET}"
       " -Wl,-rpath-link,${FPGACNN_SYSROOT}/lib/${FPGACNN_CROSS_TRIPLET}")
# ctest (and gtest_discover_tests at build time) run the target's binaries through qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR "${_fpgacnn_repo}/scripts/cross-run.sh;${FPGACNN_CROSS_ARCH}")
