# Every dependency comes from a Debian package (see scripts/install-deps.sh); nothing is downloaded.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenCV 4 REQUIRED COMPONENTS core imgproc imgcodecs videoio dnn)
# libjpeg (libjpeg62-turbo-dev, the library OpenCV decodes with): load_image checks JPEGs for damage.
find_package(JPEG REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
# OpenBLAS (pthread flavour) for the float reference path's sgemm.
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)
if(FPGACNN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(FPGACNN_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

# fpgacnn-serve (apps/serve) needs gRPC and protobuf (Debian's libgrpc++-dev, libprotobuf-dev,
# protobuf-compiler-grpc). FPGACNN_WITH_SERVE: AUTO (default: built when they are found), ON (fail
# without them), OFF (never; the ARM cross builds, whose sysroots hold no gRPC). Debian 12's
# libgrpc++-dev ships gRPC's CMake package; protobuf comes through CMake's FindProtobuf.
set(FPGACNN_WITH_SERVE AUTO CACHE STRING "Build fpgacnn-serve: AUTO (when gRPC is found), ON, OFF")
set_property(CACHE FPGACNN_WITH_SERVE PROPERTY STRINGS AUTO ON OFF)
set(FPGACNN_HAVE_SERVE OFF)
if(NOT FPGACNN_WITH_SERVE STREQUAL "OFF")
  find_package(Protobuf QUIET)
  find_package(gRPC CONFIG QUIET)
  if(Protobuf_FOUND AND gRPC_FOUND)
    set(FPGACNN_HAVE_SERVE ON)
    message(STATUS "fpgacnn: fpgacnn-serve enabled (gRPC ${gRPC_VERSION})")
  elseif(FPGACNN_WITH_SERVE STREQUAL "ON")
    message(FATAL_ERROR "FPGACNN_WITH_SERVE=ON but gRPC or protobuf is missing: apt-get install "
                        "libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc")
  else()
    message(STATUS "fpgacnn: gRPC not found, building without fpgacnn-serve")
  endif()
endif()

# XRT (Debian's libxrt-dev, XRT 2.13): the xrt driver is built when it is found. FPGACNN_WITH_XRT:
# AUTO (default: when found), ON (fail without it), OFF (never). Its pkg-config file has a broken
# prefix in Debian 12, so the library and headers are found directly. libuuid is named explicitly:
# XRT's headers call it inline.
set(FPGACNN_WITH_XRT AUTO CACHE STRING "Build the XRT driver: AUTO (when libxrt-dev is found), ON, OFF")
set_property(CACHE FPGACNN_WITH_XRT PROPERTY STRINGS AUTO ON OFF)
set(FPGACNN_HAVE_XRT OFF)
if(NOT FPGACNN_WITH_XRT STREQUAL "OFF")
  find_path(XRT_INCLUDE_DIR xrt/xrt_device.h PATH_SUFFIXES xrt)
  find_library(XRT_COREUTIL_LIBRARY xrt_coreutil)
  find_library(UUID_LIBRARY uuid)
  find_package(Boost)
  if(XRT_INCLUDE_DIR AND XRT_COREUTIL_LIBRARY AND UUID_LIBRARY AND Boost_FOUND)
    add_library(XRT::coreutil INTERFACE IMPORTED)
    target_include_directories(XRT::coreutil SYSTEM INTERFACE ${XRT_INCLUDE_DIR} ${Boost_INCLUDE_DIRS})
    target_link_libraries(XRT::coreutil INTERFACE ${XRT_COREUTIL_LIBRARY} ${UUID_LIBRARY})
    get_filename_component(XRT_LIBRARY_DIR ${XRT_COREUTIL_LIBRARY} DIRECTORY)
    set(FPGACNN_HAVE_XRT ON)
    message(STATUS "fpgacnn: XRT driver enabled (${XRT_COREUTIL_LIBRARY})")
  elseif(FPGACNN_WITH_XRT STREQUAL "ON")
    message(FATAL_ERROR "FPGACNN_WITH_XRT=ON but libxrt-dev (xrt_coreutil, headers), uuid-dev or Boost is "
                        "missing: apt-get install libxrt-dev uuid-dev libboost-dev")
  else()
    message(STATUS "fpgacnn: libxrt-dev not found, building without the XRT driver")
  endif()
endif()
