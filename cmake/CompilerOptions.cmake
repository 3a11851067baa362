# Warnings for our own targets (not for third-party headers) and optional sanitizer builds.
add_library(fpgacnn_warnings INTERFACE)
target_compile_options(fpgacnn_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                                  -Wcast-align -Wunused -Woverloaded-virtual -Werror=return-type)

if(FPGACNN_SANITIZE)
  message(STATUS "fpgacnn: building with -fsanitize=${FPGACNN_SANITIZE}")
  # -O1 -g1 (after the build type's -O2 -g, so they win): instrumented -O2 -g code takes ~2.4x longer
  # to compile (measured: 100 s vs 42 s CPU for a CLI11 translation unit) and CI has a time budget;
  # -g1 still gives the sanitizers' stack traces file:line.
  add_compile_options(-fsanitize=${FPGACNN_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all -O1 -g1)
  add_link_options(-fsanitize=${FPGACNN_SANITIZE})
endif()

# RelWithDebInfo keeps line tables only (-g1, after CMake's -g so it wins): enough for backtraces and
# perf, and about a quarter less compile time on this code base's header-heavy translation units
# (measured: 16.5 s -> 11.9 s CPU for a CLI11 translation unit).
add_compile_options($<$<CONFIG:RelWithDebInfo>:-g1>)

# Float operations round one by one, as darknet's reference results do: the float path and the
# image preprocessing (letterbox resize) are bit-identical to libdarknet on x86, whose baseline has
# no fused multiply-add. On ARM GCC would contract a * b + c into one FMA (fewer roundings, other
# bits: the int16 layer dumps of YOLO-LITE differed from x86 in 112 of 802816 values after the
# resize). x86 is left as is: there is nothing to contract, and its compiler cache stays valid.
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|i[3-6]86)$")
  add_compile_options(-ffp-contract=off)
endif()
