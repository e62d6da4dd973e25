# treefold.pc for Makefile users: `pkg-config --cflags --libs treefold` gives the whole
# compile and link line of a C or Fortran program (through treefold-fortran.pc): the core
# library (the C API is in it), Boost.MPI/Serialization, MPI's C libraries and the C++ runtime,
# as full paths found at configure time (neither has a portable .pc file of its own); no
# component and no MPI C++ bindings library, which a C program never calls. Its Cflags are
# valid for C: the include paths and no FMA contraction. treefold-cxx.pc (Requires: treefold)
# adds what only C++ compiles take: -std=c++20, xsimd's headers, MPI's C++ definitions and
# libraries, so a C++ program uses `pkg-config --cflags --libs treefold-cxx`. Each component
# has its own treefold-<component>.pc (its library, Requires: the core and the components it
# stands on): the rank-ordered C functions of collective/reduce.h need treefold-collective.
set(_pc_cflags "-ffp-contract=off -I\${includedir}")
foreach(dir IN LISTS MPI_CXX_INCLUDE_DIRS)
  if(NOT dir MATCHES "^\\$<" AND NOT dir STREQUAL "/usr/include")
    string(APPEND _pc_cflags " -I${dir}")
  endif()
endforeach()
set(_pc_cxx_cflags "-std=c++20")
foreach(dir IN LISTS TREEFOLD_XSIMD_INCLUDE)
  if(NOT dir MATCHES "^\\$<" AND NOT dir STREQUAL "/usr/include")
    string(APPEND _pc_cxx_cflags " -I${dir}")
  endif()
endforeach()
foreach(def IN LISTS MPI_CXX_COMPILE_DEFINITIONS)
  string(APPEND _pc_cxx_cflags " -D${def}")
endforeach()
foreach(opt IN LISTS MPI_CXX_COMPILE_OPTIONS)
  string(APPEND _pc_cxx_cflags " ${opt}")
endforeach()

set(_pc_libs "-L\${libdir} -ltreefold")
foreach(_loc IN ITEMS "${TREEFOLD_BOOST_MPI_LIBRARY}" "${TREEFOLD_BOOST_SERIALIZATION_LIBRARY}")
  if(_loc)
    string(APPEND _pc_libs " ${_loc}")
  endif()
endforeach()
# MPI's C libraries: FindMPI's CXX list less the C++ bindings' own (libmpi_cxx under Open MPI),
# which the library never uses (it compiles with OMPI_SKIP_MPICXX / MPICH_SKIP_MPICXX).
set(_pc_cxx_libs "")
foreach(lib IN LISTS MPI_CXX_LIBRARIES)
  if(lib MATCHES "mpi_cxx|mpicxx")
    string(APPEND _pc_cxx_libs " ${lib}")
  else()
    string(APPEND _pc_libs " ${lib}")
  endif()
endforeach()
# A C or Fortran program linked by mpicc / mpifort needs the C++ runtime for the library.
string(APPEND _pc_libs " -lstdc++ -lm")
if(MPI_CXX_LINK_FLAGS)
  string(APPEND _pc_libs " ${MPI_CXX_LINK_FLAGS}")
endif()

# Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix).
file(RELATIVE_PATH _pc_up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" _pc_up "${_pc_up}")
file(WRITE ${PROJECT_BINARY_DIR}/treefold.pc.tmp
"prefix=\${pcfiledir}/${_pc_up}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}

Name: treefold
Description: ${PROJECT_DESCRIPTION}
Version: ${PROJECT_VERSION}
Cflags: ${_pc_cflags}
Libs: ${_pc_libs}
")
file(WRITE ${PROJECT_BINARY_DIR}/treefold-cxx.pc.tmp
"Name: treefold-cxx
Description: treefold's C++ headers (C++20); C and Fortran programs use treefold / treefold-fortran
Version: ${PROJECT_VERSION}
Requires: treefold
Cflags: ${_pc_cxx_cflags}
Libs:${_pc_cxx_libs}
")
configure_file(${PROJECT_BINARY_DIR}/treefold.pc.tmp ${PROJECT_BINARY_DIR}/treefold.pc COPYONLY)
configure_file(${PROJECT_BINARY_DIR}/treefold-cxx.pc.tmp ${PROJECT_BINARY_DIR}/treefold-cxx.pc COPYONLY)
install(FILES ${PROJECT_BINARY_DIR}/treefold.pc ${PROJECT_BINARY_DIR}/treefold-cxx.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# treefold-<component>.pc: the component's library on top of the core and its dependencies
# (their order in the link line: pkg-config puts a package before what it Requires).
foreach(component IN LISTS TREEFOLD_COMPONENTS)
  set(_requires treefold)
  get_property(_needs GLOBAL PROPERTY TREEFOLD_COMPONENT_DEPENDS_${component})
  foreach(dep IN LISTS _needs)
    string(APPEND _requires " treefold-${dep}")
  endforeach()
  file(WRITE ${PROJECT_BINARY_DIR}/treefold-${component}.pc.tmp
"prefix=\${pcfiledir}/${_pc_up}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}

Name: treefold-${component}
Description: treefold's ${component} component
Version: ${PROJECT_VERSION}
Requires: ${_requires}
Libs: -L\${libdir} -ltreefold_${component}
")
  configure_file(${PROJECT_BINARY_DIR}/treefold-${component}.pc.tmp ${PROJECT_BINARY_DIR}/treefold-${component}.pc COPYONLY)
  install(FILES ${PROJECT_BINARY_DIR}/treefold-${component}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
