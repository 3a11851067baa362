# What `cmake --install` puts under the prefix, by component (cmake/Packaging.cmake makes one Debian
# package per component):
#   lib     libfpgacnn.so.<version> and its SONAME link
#   dev     the public headers, the libfpgacnn.so link, the CMake package (fpgacnn::fpgacnn), fpgacnn.pc
#   tools   the command-line tools (apps/*/CMakeLists.txt)
#   camera  fpgacnn-camera, its systemd unit, udev rules and example defaults (apps/camera)
include(CMakePackageConfigHelpers)
set(FPGACNN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/fpgacnn)

# The library: its build-tree usage requirements stay behind (runtime/CMakeLists.txt); installed it
# carries the include folder and Threads (std::thread / std::future in the headers).
target_link_libraries(fpgacnn PUBLIC Threads::Threads)
set_target_properties(fpgacnn PROPERTIES INSTALL_RPATH "")  # its dependencies are all system libraries
install(TARGETS fpgacnn EXPORT fpgacnnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers: every header of the runtime and driver include folders (globbed when installing, so
# new headers need no edit here), and of the kernel's headers exactly those they include, directly or
# through each other (the layer command and the kernel configuration, not the HLS top level).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/ ${PROJECT_SOURCE_DIR}/drivers/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
# fpgacnn/version.hpp is generated from the project version (runtime/CMakeLists.txt).
install(FILES ${FPGACNN_GENERATED_INCLUDE_DIR}/fpgacnn/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fpgacnn
        COMPONENT dev)
install(CODE "
  set(FPGACNN_PUBLIC_INCLUDE_DIRS \"${PROJECT_SOURCE_DIR}/runtime/include;${PROJECT_SOURCE_DIR}/drivers/include\")
  set(FPGACNN_KERNEL_INCLUDE_DIR \"${PROJECT_SOURCE_DIR}/kernels/include\")
  set(FPGACNN_HEADER_DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/install_kernel_headers.cmake\")"
  COMPONENT dev)

# The CMake package and the pkg-config file.
install(EXPORT fpgacnnTargets NAMESPACE fpgacnn:: DESTINATION ${FPGACNN_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/templates/fpgacnnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/fpgacnnConfig.cmake INSTALL_DESTINATION ${FPGACNN_INSTALL_CMAKEDIR})
# find_package(fpgacnn 0.3) accepts 0.3.x only: while the major version is 0, a minor release may break
# the source (docs/api-stability.md); from 1.0 on, SameMajorVersion.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fpgacnnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fpgacnnConfig.cmake ${PROJECT_BINARY_DIR}/fpgacnnConfigVersion.cmake
        DESTINATION ${FPGACNN_INSTALL_CMAKEDIR} COMPONENT dev)
fpgacnn_install_configured(${CMAKE_CURRENT_LIST_DIR}/templates/fpgacnn.pc.in ${CMAKE_INSTALL_LIBDIR}/pkgconfig dev)
