# Warnings for our own targets (not for third-party headers) and optional sanitizer builds.
add_library(fpgacnn_warnings INTERFACE)
target_compile_options(fpgacnn_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                                  -Wcast-align -Wunused -Woverloaded-virtual -Werror=return-type)

if(FPGACNN_SANITIZE)
  message(STATUS "fpgacnn: building with -fsanitize=${FPGACNN_SANITIZE}")
  add_compile_options(-fsanitize=${FPGACNN_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${FPGACNN_SANITIZE})
endif()
