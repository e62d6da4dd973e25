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

# C and Fortran users without CMake: pkg-config files (relocatable: paths from the .pc file's
# own place), so the documented link lines are `mpicc app.c $(pkg-config --cflags --libs
# treefold)` and `mpifort app.f90 $(pkg-config --cflags --libs treefold-fortran)`. The C++
# library needs libstdc++ and Boost.MPI/Serialization at link time.
set(TREEFOLD_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(TREEFOLD_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
file(RELATIVE_PATH TREEFOLD_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/treefold.pc.in ${PROJECT_BINARY_DIR}/treefold.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/treefold.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(TARGET treefold_fortran)
  # A separate export set: only projects that enable Fortran load it (it needs MPI::MPI_Fortran).
  install(TARGETS treefold_fortran EXPORT treefoldFortranTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES $<TARGET_PROPERTY:treefold_fortran,Fortran_MODULE_DIRECTORY>/treefold.mod DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/treefold/fortran)
  install(EXPORT treefoldFortranTargets NAMESPACE treefold:: DESTINATION ${TREEFOLD_CMAKE_DIR})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/treefold-fortran.pc.in ${PROJECT_BINARY_DIR}/treefold-fortran.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/treefold-fortran.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
