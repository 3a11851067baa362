# `cmake --build <dir> --target docs`: the API reference (Doxygen, Debian's doxygen) of the installed
# headers in <dir>/docs/html; fails on an undocumented public declaration not listed in
# docs/reference/undocumented.txt, which is empty (docs/reference/check_warnings.cmake). CI builds it (scripts/run-tests.sh).
find_package(Doxygen)
if(NOT DOXYGEN_FOUND)
  message(STATUS "fpgacnn: no doxygen (scripts/install-deps.sh --with-tests): no docs target")
  return()
endif()
set(FPGACNN_DOCS_OUTPUT ${PROJECT_BINARY_DIR}/docs)
set(FPGACNN_DOCS_HEADERS ${FPGACNN_DOCS_OUTPUT}/prefix/include)
configure_file(${PROJECT_SOURCE_DIR}/docs/reference/Doxyfile.in ${FPGACNN_DOCS_OUTPUT}/Doxyfile @ONLY)
add_custom_target(docs
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${FPGACNN_DOCS_OUTPUT}/prefix ${FPGACNN_DOCS_OUTPUT}/html
  # The headers exactly as installed (the dev component), so the reference is the public API.
  COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR} --component dev --prefix ${FPGACNN_DOCS_OUTPUT}/prefix
  COMMAND Doxygen::doxygen ${FPGACNN_DOCS_OUTPUT}/Doxyfile
  COMMAND ${CMAKE_COMMAND} -DWARNINGS=${FPGACNN_DOCS_OUTPUT}/warnings.log
          -DBASELINE=${PROJECT_SOURCE_DIR}/docs/reference/undocumented.txt -DHEADERS=${FPGACNN_DOCS_HEADERS}
          -P ${PROJECT_SOURCE_DIR}/docs/reference/check_warnings.cmake
  WORKING_DIRECTORY ${FPGACNN_DOCS_OUTPUT} COMMENT "Doxygen: the API reference in ${FPGACNN_DOCS_OUTPUT}/html" VERBATIM)
add_dependencies(docs fpgacnn)  # installing the dev component needs the library's namelink
