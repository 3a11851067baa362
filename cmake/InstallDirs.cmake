# Install layout, set before the targets exist (they take CMAKE_INSTALL_RPATH when created).
# GNUInstallDirs, with one Debian change: the library goes to lib/<multiarch triplet> under every
# prefix (as debhelper does), so one build installs under /usr/local or any folder and packages for
# /usr with the same layout; ld.so, pkg-config and find_package all search lib/<triplet>.
if(CMAKE_LIBRARY_ARCHITECTURE AND NOT DEFINED CACHE{CMAKE_INSTALL_LIBDIR})
  set(CMAKE_INSTALL_LIBDIR "lib/${CMAKE_LIBRARY_ARCHITECTURE}" CACHE PATH "Object code libraries (LIBDIR)")
endif()
include(GNUInstallDirs)

# Installed tools find libfpgacnn relative to themselves ($ORIGIN/../lib/<triplet>), so an install
# under any prefix runs without LD_LIBRARY_PATH; Debian's lintian accepts $ORIGIN run paths.
file(RELATIVE_PATH fpgacnn_bin_to_lib /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CMAKE_INSTALL_LIBDIR})
set(CMAKE_INSTALL_RPATH "$ORIGIN/${fpgacnn_bin_to_lib}")

# Installs `template` (a file.in) under `destination` (relative to the prefix), configured when it is
# installed: `cmake --install --prefix P` and CPack choose the prefix after configuration. The
# template sees @prefix@, @bindir@, @libdir@, @includedir@ (the last three relative to the prefix),
# @version@ and @description@.
function(fpgacnn_install_configured template destination component)
  get_filename_component(name ${template} NAME_WLE)
  set(configured ${PROJECT_BINARY_DIR}/install-time/${name})
  install(CODE "
    set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
    set(bindir \"${CMAKE_INSTALL_BINDIR}\")
    set(libdir \"${CMAKE_INSTALL_LIBDIR}\")
    set(includedir \"${CMAKE_INSTALL_INCLUDEDIR}\")
    set(version \"${PROJECT_VERSION}\")
    set(description \"${PROJECT_DESCRIPTION}\")
    configure_file(\"${template}\" \"${configured}\" @ONLY)
    file(INSTALL \"${configured}\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${destination}\")"
    COMPONENT ${component})
endfunction()
