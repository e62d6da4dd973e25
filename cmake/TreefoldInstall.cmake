# Install and export rules: find_package(treefold CONFIG) then treefold::treefold.
include(CMakePackageConfigHelpers)

install(TARGETS treefold EXPORT treefoldTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/treefold
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(TREEFOLD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/treefold)
install(EXPORT treefoldTargets NAMESPACE treefold:: DESTINATION ${TREEFOLD_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/treefoldConfig.cmake.in
  ${PROJECT_BINARY_DIR}/treefoldConfig.cmake INSTALL_DESTINATION ${TREEFOLD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/treefoldConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/treefoldConfig.cmake
              ${PROJECT_BINARY_DIR}/treefoldConfigVersion.cmake
        DESTINATION ${TREEFOLD_CMAKE_DIR})
if(TARGET treefold-cli)
  install(TARGETS treefold-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
