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
