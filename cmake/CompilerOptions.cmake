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
