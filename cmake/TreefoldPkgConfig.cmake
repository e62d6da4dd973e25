# treefold.pc for Makefile users: `pkg-config --cflags --libs treefold` gives the whole
# compile and link line of a C or Fortran program (through treefold-fortran.pc), MPI's
# libraries, Boost.MPI/Serialization and the C++ runtime included, as full paths found at
# configure time (neither has a portable .pc file of its own). Its Cflags are valid for C:
# the include paths and no FMA contraction. treefold-cxx.pc (Requires: treefold) adds what
# only C++ compiles take: -std=c++20, xsimd's headers and MPI's C++ definitions, so a C++
# program uses `pkg-config --cflags --libs treefold-cxx`.
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

# The components before the core they stand on (static archives: only the objects a program
# uses are linked, so a core-only program takes nothing from them).
set(_pc_libs "-L\${libdir}")
foreach(component rma dsop model collective io)
  if(component IN_LIST TREEFOLD_COMPONENTS)
    string(APPEND _pc_libs " -ltreefold_${component}")
  endif()
endforeach()
string(APPEND _pc_libs " -ltreefold")
foreach(_loc IN ITEMS "${TREEFOLD_BOOST_MPI_LIBRARY}" "${TREEFOLD_BOOST_SERIALIZATION_LIBRARY}")
  if(_loc)
    string(APPEND _pc_libs " ${_loc}")
  endif()
endforeach()
foreach(lib IN LISTS MPI_CXX_LIBRARIES)
  string(APPEND _pc_libs " ${lib}")
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
")
configure_file(${PROJECT_BINARY_DIR}/treefold.pc.tmp ${PROJECT_BINARY_DIR}/treefold.pc COPYONLY)
configure_file(${PROJECT_BINARY_DIR}/treefold-cxx.pc.tmp ${PROJECT_BINARY_DIR}/treefold-cxx.pc COPYONLY)
install(FILES ${PROJECT_BINARY_DIR}/treefold.pc ${PROJECT_BINARY_DIR}/treefold-cxx.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
