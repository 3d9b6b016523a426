# `cmake --install` layout:
#   bin/pbc, bin/protoc-gen-pbc
#   include/pbc/*.h                       the runtime's headers (PBC_RUNTIME_HEADERS)
#   lib/libpbc_runtime.a                  the runtime on its own (pkg-config)
#   lib/libpbc_jit.so                     pbc/jit.h: schemas compiled at run time
#   lib/cmake/pbc/pbcConfig.cmake         find_package(pbc) + pbc_add_library
#   lib/pkgconfig/pbc.pc
# Generated archives embed the runtime already; the installed library is for
# programs that use the runtime without one, or that build with pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# pbc links Debian's shared libMLIR, which is not on the default library
# path: keep LLVM's library directory in the installed binaries' RPATH.
set_target_properties(pbc protoc-gen-pbc pbc_jit PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS pbc protoc-gen-pbc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS pbc_runtime ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS pbc_jit LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(header IN LISTS PBC_RUNTIME_HEADERS ITEMS pbc/jit.h)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/include/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder})
endforeach()

set(PBC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pbc)
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/pbcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/pbcConfig.cmake
  INSTALL_DESTINATION ${PBC_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/pbcConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/pbcConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/pbcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/pbcFunctions.cmake
        DESTINATION ${PBC_CMAKE_DIR})

# pkg-config paths relative to the .pc file, so the prefix can move.
configure_file(${CMAKE_CURRENT_LIST_DIR}/pbc.pc.in
               ${PROJECT_BINARY_DIR}/cmake/pbc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/pbc.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
