# Install and export rules: find_package(treefold CONFIG) then treefold::treefold (and, when
# Boost.Test was found, the MPI test kit treefold::testing with treefold_add_mpi_test);
# pkg-config users get treefold.pc.
include(CMakePackageConfigHelpers)

# The core and the components built (TREEFOLD_COMPONENTS), in one export set.
set(_treefold_installed treefold)
foreach(component IN LISTS TREEFOLD_COMPONENTS)
  list(APPEND _treefold_installed treefold_${component})
endforeach()
install(TARGETS ${_treefold_installed} EXPORT treefoldTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/treefold
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(component IN LISTS TREEFOLD_COMPONENTS)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/components/${component}/include/treefold
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/include/treefold/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/treefold)
set(TREEFOLD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/treefold)
install(EXPORT treefoldTargets NAMESPACE treefold:: DESTINATION ${TREEFOLD_CMAKE_DIR})
if(TARGET treefold_testing)
  # A separate export set: the config loads it only where Boost.Test is found.
  install(TARGETS treefold_testing EXPORT treefoldTestingTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT treefoldTestingTargets NAMESPACE treefold:: DESTINATION ${TREEFOLD_CMAKE_DIR})
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/TreefoldTesting.cmake DESTINATION ${TREEFOLD_CMAKE_DIR})
endif()
# Boost.MPI/Serialization's library files, for treefold.pc and for the config's C and Fortran
# projects, where Boost's own config files cannot be used (they need a C++ compiler).
foreach(_component mpi serialization)
  string(TOUPPER ${_component} _upper)
  get_target_property(_loc Boost::${_component} IMPORTED_LOCATION_RELEASE)
  if(NOT _loc)
    get_target_property(_loc Boost::${_component} IMPORTED_LOCATION)
  endif()
  set(TREEFOLD_BOOST_${_upper}_LIBRARY "${_loc}")
endforeach()
# A Boost.MPI that Boost's own config does not describe (TREEFOLD_BOOST_MPI, or MPICH's from
# build/deps): the config then imports that file itself.
set(TREEFOLD_BOOST_MPI_FILE "")
if(_treefold_boost_mpi)
  set(TREEFOLD_BOOST_MPI_FILE "${_treefold_boost_mpi}")
endif()
install(FILES ${PROJECT_SOURCE_DIR}/cmake/TreefoldMpiFlavour.cmake DESTINATION ${TREEFOLD_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/treefoldConfig.cmake.in
  ${PROJECT_BINARY_DIR}/treefoldConfig.cmake INSTALL_DESTINATION ${TREEFOLD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/treefoldConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/treefoldConfig.cmake
              ${PROJECT_BINARY_DIR}/treefoldConfigVersion.cmake
        DESTINATION ${TREEFOLD_CMAKE_DIR})
include(TreefoldPkgConfig)
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
# treefold.pc itself is written by TreefoldPkgConfig.cmake (above).

if(TARGET treefold_fortran)
  # A separate export set: only projects that enable Fortran load it (it needs MPI::MPI_Fortran).
  install(TARGETS treefold_fortran EXPORT treefoldFortranTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES $<TARGET_PROPERTY:treefold_fortran,Fortran_MODULE_DIRECTORY>/treefold.mod DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/treefold/fortran)
  install(EXPORT treefoldFortranTargets NAMESPACE treefold:: DESTINATION ${TREEFOLD_CMAKE_DIR})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/treefold-fortran.pc.in ${PROJECT_BINARY_DIR}/treefold-fortran.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/treefold-fortran.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
