# Debian packages: `cpack -G DEB` in the build folder makes one package per install component
# (cmake/Install.cmake), for the architecture the build targets (cross builds included):
#   libfpgacnnN     lib      the shared library (N: the SONAME's number, FPGACNN_SOVERSION)
#   libfpgacnn-dev  dev      headers, libfpgacnn.so, the CMake package, fpgacnn.pc
#   fpgacnn-tools   tools    the command-line tools; fpgacnn-serve with its systemd unit (where gRPC is)
#   fpgacnn-camera  camera   the camera server, its systemd unit and udev rules, the fpgacnn user
#   python3-fpgacnn python   the Python package fpgacnn (python/; where the build has it)
# Depends come from dpkg-shlibdeps plus the packages' own relations; docs/install.md shows them.
set(FPGACNN_PACKAGE_MAINTAINER "fpgacnn developers <fpgacnn@example.org>" CACHE STRING
    "The packages' Maintainer field (Name <address>); set it when publishing packages")
set(FPGACNN_PACKAGE_REVISION 1 CACHE STRING "Debian revision of the packages (the N in <version>-N)")
set(FPGACNN_DEB_ARCHITECTURE "" CACHE STRING "Debian architecture of the packages (empty: the build's target)")

# The target's Debian architecture: from the toolchain's multiarch triplet (aarch64-linux-gnu -> arm64,
# arm-linux-gnueabihf -> armhf), not the build machine's.
if(NOT FPGACNN_DEB_ARCHITECTURE AND CMAKE_LIBRARY_ARCHITECTURE)
  execute_process(COMMAND dpkg-architecture -t${CMAKE_LIBRARY_ARCHITECTURE} -qDEB_HOST_ARCH
                  OUTPUT_VARIABLE FPGACNN_DEB_ARCHITECTURE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT FPGACNN_DEB_ARCHITECTURE)
  message(STATUS "fpgacnn: no Debian architecture for '${CMAKE_LIBRARY_ARCHITECTURE}' (set FPGACNN_DEB_ARCHITECTURE "
                 "to make packages); cpack -G DEB would fail")
endif()

# Every package's /usr/share/doc/<package>/{copyright,changelog.Debian.gz} (Debian policy 12.5, 12.7)
# and its lintian overrides (packaging/debian/lintian-overrides.in says why).
# The changelog's newest entry must be this version: a release edits both.
set(fpgacnn_deb_version ${PROJECT_VERSION}-${FPGACNN_PACKAGE_REVISION})
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog fpgacnn_changelog_top LIMIT_COUNT 1)
if(NOT fpgacnn_changelog_top MATCHES "^fpgacnn \\(${fpgacnn_deb_version}\\) ")
  message(FATAL_ERROR "packaging/debian/changelog starts with '${fpgacnn_changelog_top}', not version "
                      "${fpgacnn_deb_version} (project version - FPGACNN_PACKAGE_REVISION): add an entry")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog)
set(fpgacnn_changelog_gz ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/packaging)
execute_process(COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/packaging/debian/changelog
                OUTPUT_FILE ${fpgacnn_changelog_gz} COMMAND_ERROR_IS_FATAL ANY)

set(fpgacnn_deb_components lib dev tools camera)
if(TARGET fpgacnn_python)
  list(APPEND fpgacnn_deb_components python)
endif()
set(fpgacnn_deb_name_lib libfpgacnn${FPGACNN_SOVERSION})  # the SONAME's number (Debian policy 8.1)
set(fpgacnn_deb_name_dev libfpgacnn-dev)
set(fpgacnn_deb_name_tools fpgacnn-tools)
set(fpgacnn_deb_name_camera fpgacnn-camera)
set(fpgacnn_deb_name_python python3-fpgacnn)
foreach(component IN LISTS fpgacnn_deb_components)
  string(TOUPPER ${component} upper)
  set(CPACK_DEBIAN_${upper}_PACKAGE_NAME ${fpgacnn_deb_name_${component}})
  # Only in packages (EXCLUDE_FROM_ALL: a plain `cmake --install` leaves them out).
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${fpgacnn_changelog_gz}
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${fpgacnn_deb_name_${component}}
          COMPONENT ${component} EXCLUDE_FROM_ALL)
  set(package ${fpgacnn_deb_name_${component}})
  configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/lintian-overrides.in
                 ${PROJECT_BINARY_DIR}/packaging/lintian-overrides/${package} @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/lintian-overrides/${package}
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()
# The service's arguments, a conffile of the package (cmake --install puts the example under share/).
install(FILES ${PROJECT_SOURCE_DIR}/packaging/fpgacnn-camera.default DESTINATION /etc/default
        RENAME fpgacnn-camera COMPONENT camera EXCLUDE_FROM_ALL)
# A package's maintainer files: packaging/debian/<package>/{conffiles,postinst,prerm,postrm}.
macro(fpgacnn_deb_maintainer_files component package)
  string(TOUPPER ${component} fpgacnn_upper)
  set(fpgacnn_files ${PROJECT_SOURCE_DIR}/packaging/debian/${package})
  set(CPACK_DEBIAN_${fpgacnn_upper}_PACKAGE_CONTROL_EXTRA
      ${fpgacnn_files}/conffiles ${fpgacnn_files}/postinst ${fpgacnn_files}/prerm ${fpgacnn_files}/postrm)
  set(CPACK_DEBIAN_${fpgacnn_upper}_PACKAGE_CONTROL_STRICT_PERMISSION ON)
endmacro()
# fpgacnn-serve (in fpgacnn-tools, where it is built: gRPC found): its systemd unit (installed, not enabled),
# its arguments as a conffile /etc/default/fpgacnn-serve (the example under share/ with cmake --install)
# and the maintainer scripts that tell systemd. The binary itself: apps/serve/CMakeLists.txt.
if(TARGET fpgacnn-serve)
  fpgacnn_install_configured(${PROJECT_SOURCE_DIR}/packaging/fpgacnn-serve.service.in lib/systemd/system tools)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/fpgacnn-serve.default
          DESTINATION ${CMAKE_INSTALL_DATADIR}/fpgacnn/examples COMPONENT tools)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/fpgacnn-serve.default DESTINATION /etc/default
          RENAME fpgacnn-serve COMPONENT tools EXCLUDE_FROM_ALL)
  fpgacnn_deb_maintainer_files(tools fpgacnn-tools)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fpgacnn)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${FPGACNN_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VENDOR "fpgacnn developers")
# Empty: each package's description below starts with its own synopsis line (CPack would put the
# project's description first in all four).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${fpgacnn_deb_components})
# DESTDIR staging: the install scripts see CMAKE_INSTALL_PREFIX=/usr, so files configured at install
# time (the unit's ExecStart, fpgacnn.pc) name /usr, and /etc/default lands in the package.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>-<revision>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${FPGACNN_PACKAGE_REVISION})
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${FPGACNN_DEB_ARCHITECTURE})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends from the ELF files; libfpgacnn.so.N itself is found in the build tree, and its package
# gets a shlibs file (plus the ldconfig trigger) so that others can depend on it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/runtime)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# Cross builds: no package of this machine owns the target's libraries, so dpkg-shlibdeps finds them
# in the sysroot's library folders (given as private folders) and reads their dependency information
# from the sysroot's DEBIAN/{symbols,shlibs}, which scripts/make-sysroot.sh collects from the target's
# packages (dpkg-shlibdeps's lookup for libraries under a folder holding DEBIAN/). DEB_HOST_ARCH, set
# in cpack's environment by the project config file, makes it read the ELF files with
# <triplet>-objdump and search the target's multiarch folders.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSROOT AND FPGACNN_DEB_ARCHITECTURE)
  if(NOT EXISTS ${CMAKE_SYSROOT}/DEBIAN/symbols)
    message(WARNING "fpgacnn: ${CMAKE_SYSROOT}/DEBIAN/symbols is missing (a sysroot made by an older "
                    "scripts/make-sysroot.sh): remake it, or cpack -G DEB cannot compute the packages' Depends")
  endif()
  list(APPEND CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_SYSROOT}/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}
       ${CMAKE_SYSROOT}/lib/${CMAKE_LIBRARY_ARCHITECTURE})
  set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/packaging/cpack-cross-environment.cmake)
  file(WRITE ${CPACK_PROJECT_CONFIG_FILE} "set(ENV{DEB_HOST_ARCH} ${FPGACNN_DEB_ARCHITECTURE})\n")
endif()

set(fpgacnn_lib_exact "${fpgacnn_deb_name_lib} (= ${fpgacnn_deb_version})")
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# ldconfig through dpkg's trigger (lintian: lacks-ldconfig-trigger); CPack 3.25 also writes
# postinst/postrm calling ldconfig, which is redundant but harmless.
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/libfpgacnn/triggers)
set(CPACK_DEBIAN_LIB_DESCRIPTION "Darknet CNNs on FPGA accelerators - shared library
libfpgacnn runs darknet YOLOv2 networks on FPGA accelerators (Alveo and Zynq
UltraScale+ through XRT, Zynq-7000 through UIO) or on a bit-exact CPU fallback
(float or int16): model loading, quantization, planning and detection.")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${fpgacnn_lib_exact}")
set(CPACK_DEBIAN_DEV_DESCRIPTION "Darknet CNNs on FPGA accelerators - development files
Headers, the CMake package (find_package(fpgacnn), target fpgacnn::fpgacnn)
and the pkg-config file (fpgacnn) for building programs with libfpgacnn.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION science)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${fpgacnn_lib_exact}")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "Darknet CNNs on FPGA accelerators - command-line tools
fpgacnn-detect (detections on images, folders and videos), fpgacnn-classify
(the top-5 classes of darknet's classifiers), fpgacnn-quantize
(int16 calibration), fpgacnn-plan (the accelerator's tiling), fpgacnn-bench
(throughput, latency, power), fpgacnn-train (float fine-tuning of YOLOv2 models)
and fpgacnn-synth-weights.")
if(TARGET fpgacnn-serve)
  string(APPEND CPACK_DEBIAN_TOOLS_DESCRIPTION "
fpgacnn-serve serves detections over the KServe v2 / Triton inference
protocol (REST and gRPC); its systemd unit fpgacnn-serve.service is installed
but not enabled: set the model repository in /etc/default/fpgacnn-serve, then
systemctl enable --now fpgacnn-serve.")
endif()
set(CPACK_DEBIAN_CAMERA_PACKAGE_SECTION video)
set(CPACK_DEBIAN_CAMERA_PACKAGE_DEPENDS "${fpgacnn_lib_exact}, adduser")
set(CPACK_DEBIAN_CAMERA_DESCRIPTION "Darknet CNNs on FPGA accelerators - live camera server
fpgacnn-camera serves a camera's frames with their detections over HTTP (MJPEG
stream and a web page). The systemd unit fpgacnn-camera.service runs it as the
system user fpgacnn (created on install) with its arguments from
/etc/default/fpgacnn-camera; udev rules give the group fpgacnn the
accelerator's /dev/uio* and /dev/udmabuf* nodes. The service is not started
until configured: edit /etc/default/fpgacnn-camera, then
systemctl enable --now fpgacnn-camera.")
fpgacnn_deb_maintainer_files(camera fpgacnn-camera)
if(TARGET fpgacnn_python)
  # The extension is built for one interpreter version (its file name and folder say which).
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "${fpgacnn_lib_exact}, python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}), python3 (<< ${Python_VERSION_MAJOR}.${fpgacnn_next_python_minor}), python3-numpy")
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION "Darknet CNNs on FPGA accelerators - Python package
import fpgacnn: darknet YOLOv2 detectors on FPGA accelerators or the CPU
from Python (Jupyter / PYNQ notebooks, OpenCV camera loops). numpy arrays
are read in place, detections come back as objects, frames can be submitted
asynchronously (concurrent.futures), and the GIL is released while the
runtime works. fpgacnn.quantize() and fpgacnn.plan() return what the tools'
--json prints.")
endif()

include(CPack)
