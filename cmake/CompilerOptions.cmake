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

# Sanitizer builds: -O0 (still instrumented, same -fsanitize flags) for code that is slow to compile
# but runs little: the tests' own files and the apps' front ends (option parsing, HTTP / gRPC servers,
# the tools' orchestration). Called by the top-level CMakeLists.txt once every target exists.
# Optimisation changes no sanitizer check (at -O0 none is optimised away), only speed: instrumented
# Boost.Beast / gRPC / gtest code at -O1 is the bulk of the ASan build's time (clang, measured: the
# REST front end 88 s -> 26 s CPU, test_serve's second unity batch 43 s -> 14 s). The compute stays at
# -O1 (runtime/, drivers/, kernels/, the kernel-variant tests that compile kernels/src, the explorer,
# fpgacnn-quantize and fpgacnn-synth-weights), so the tests' run time stays as it was.
function(fpgacnn_sanitizer_quick_compile)
  if(NOT FPGACNN_SANITIZE)
    return()
  endif()
  set(quick fpgacnn_serve_app fpgacnn_serve_grpc_proto fpgacnn_serve_grpc fpgacnn_serve_rest fpgacnn-serve
            fpgacnn_camera_app fpgacnn-camera fpgacnn_http_common fpgacnn_app_common fpgacnn-detect fpgacnn-plan
            fpgacnn-bench fpgacnn-classify)
  set(test_targets "")
  if(FPGACNN_BUILD_TESTS)
    get_property(test_targets DIRECTORY ${PROJECT_SOURCE_DIR}/tests PROPERTY BUILDSYSTEM_TARGETS)
  endif()
  foreach(target IN LISTS test_targets)
    get_target_property(type ${target} TYPE)
    get_target_property(sources ${target} SOURCES)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY)$" AND NOT sources MATCHES "/kernels/src/")
      list(APPEND quick ${target})
    endif()
  endforeach()
  foreach(target IN LISTS quick)
    if(TARGET ${target})
      target_compile_options(${target} PRIVATE -O0)  # after the directory's -O1: the last one wins
    endif()
  endforeach()
endfunction()

# RelWithDebInfo keeps line tables only (-g1, after CMake's -g so it wins): enough for backtraces and
# perf, and about a quarter less compile time on this code base's header-heavy translation units
# (measured: 16.5 s -> 11.9 s CPU for a CLI11 translation unit).
add_compile_options($<$<CONFIG:RelWithDebInfo>:-g1>)
# ... except libfpgacnn's own objects, which keep full debug info (-g, after -g1 so it wins): the ABI
# check (scripts/check-abi.sh) reads the exported functions' parameter and struct types from it.
# Only the native non-sanitizer build, where CI runs the check (the others would compile longer for nothing).
function(fpgacnn_library_debug_info target)
  if(FPGACNN_SANITIZE OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo>:-g>)
endfunction()

# Float operations round one by one, as darknet's reference results do: the float path and the
# image preprocessing (letterbox resize) are bit-identical to libdarknet on x86, whose baseline has
# no fused multiply-add. On ARM GCC would contract a * b + c into one FMA (fewer roundings, other
# bits: the int16 layer dumps of YOLO-LITE differed from x86 in 112 of 802816 values after the
# resize). x86 is left as is: there is nothing to contract, and its compiler cache stays valid.
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|i[3-6]86)$")
  add_compile_options(-ffp-contract=off)
endif()
