# Everything comes from Debian packages installed by scripts/setup; nothing is downloaded.
#
# The MPI is chosen the CMake way, through FindMPI's hints (MPI_CXX_COMPILER, MPI_HOME,
# MPIEXEC_EXECUTABLE): Open MPI by default on Debian. Boost.MPI must be built against the same
# MPI: TREEFOLD_BOOST_MPI names its library file; empty, it is Debian's (built for Open MPI)
# when the MPI is Open MPI, and build/deps/boost-mpi-mpich's (scripts/setup --mpich) when it
# is MPICH. A Boost.MPI of another MPI than the chosen one stops the configure with a message
# naming both (cmake/TreefoldMpiFlavour.cmake).
find_package(MPI REQUIRED COMPONENTS CXX)
include(TreefoldMpiFlavour)
treefold_mpi_of_headers(TREEFOLD_MPI_IMPLEMENTATION ${MPI_CXX_INCLUDE_DIRS})
if(NOT TREEFOLD_MPI_IMPLEMENTATION)
  set(TREEFOLD_MPI_IMPLEMENTATION "unknown")
endif()
set(TREEFOLD_BOOST_MPI "" CACHE FILEPATH
    "Boost.MPI library built against the chosen MPI (empty: Debian's for Open MPI, build/deps/boost-mpi-mpich for MPICH)")
set(_treefold_boost_mpi "${TREEFOLD_BOOST_MPI}")
set(TREEFOLD_DEPS_DIR "${PROJECT_SOURCE_DIR}/build/deps" CACHE PATH "Where scripts/setup --mpich puts Boost.MPI for MPICH")
if(NOT _treefold_boost_mpi AND TREEFOLD_MPI_IMPLEMENTATION STREQUAL "MPICH")
  set(_treefold_boost_mpi "${TREEFOLD_DEPS_DIR}/boost-mpi-mpich/lib/libboost_mpi.a")
  if(NOT EXISTS "${_treefold_boost_mpi}")
    message(FATAL_ERROR
      "treefold: the MPI chosen is MPICH (${MPI_CXX_COMPILER}), and no Boost.MPI built against it was "
      "found (${_treefold_boost_mpi}). Fix: scripts/setup --mpich (builds it there from Debian's "
      "boost1.74 sources), or -DTREEFOLD_BOOST_MPI=<a libboost_mpi built against MPICH>.")
  endif()
endif()
if(_treefold_boost_mpi)
  find_package(Boost 1.74 REQUIRED COMPONENTS serialization)
  add_library(Boost::mpi UNKNOWN IMPORTED)
  set_target_properties(Boost::mpi PROPERTIES IMPORTED_LOCATION "${_treefold_boost_mpi}"
                        INTERFACE_INCLUDE_DIRECTORIES "${Boost_INCLUDE_DIRS}"
                        INTERFACE_LINK_LIBRARIES "Boost::serialization;MPI::MPI_CXX")
  set(_treefold_boost_mpi_file "${_treefold_boost_mpi}")
else()
  find_package(Boost 1.74 REQUIRED COMPONENTS mpi serialization)
  get_target_property(_treefold_boost_mpi_file Boost::mpi IMPORTED_LOCATION_RELEASE)
  if(NOT _treefold_boost_mpi_file)
    get_target_property(_treefold_boost_mpi_file Boost::mpi IMPORTED_LOCATION)
  endif()
endif()
treefold_check_boost_mpi("${_treefold_boost_mpi_file}" "${TREEFOLD_MPI_IMPLEMENTATION}"
                         "MPI_CXX_COMPILER ${MPI_CXX_COMPILER}")
message(STATUS "treefold: MPI ${TREEFOLD_MPI_IMPLEMENTATION} (${MPI_CXX_COMPILER}), Boost.MPI ${_treefold_boost_mpi_file}")
# xsimd is header-only. Debian's exported xsimd target also names an `xtl` link library
# that is only needed for xtl's complex types, so treefold takes just its include path.
find_package(xsimd REQUIRED)
get_target_property(TREEFOLD_XSIMD_INCLUDE xsimd INTERFACE_INCLUDE_DIRECTORIES)

# How this build's programs are started: the launcher of the chosen MPI with its flags and the
# environment it needs (treefold_mpi_launcher, cmake/TreefoldTesting.cmake), written into the
# build folder as treefold-mpi.txt for the scripts (scripts/common.sh) and for checks that
# start another build's programs (test/mpi/check_mpi_bits.sh): one line each, KEY=value.
# Under MPICH, every launch from the harness preloads test/support/oversubscribed_wait.cpp,
# which lets a waiting rank sleep when the job has more ranks than CPUs (ch4:ucx ranks spin
# and never yield; Open MPI's runs say --mca mpi_yield_when_idle 1 instead).
if(NOT TREEFOLD_MPI_IMPLEMENTATION STREQUAL "Open MPI" AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_library(treefold_oversubscribed_wait MODULE test/support/oversubscribed_wait.cpp)
  target_link_libraries(treefold_oversubscribed_wait PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(treefold_oversubscribed_wait PROPERTIES
                        LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/harness PREFIX "" OUTPUT_NAME oversubscribed_wait)
  set(TREEFOLD_MPI_WAIT_PRELOAD ${PROJECT_BINARY_DIR}/harness/oversubscribed_wait.so)
endif()
include(TreefoldTesting)
treefold_mpi_launcher(_treefold_launcher _treefold_launcher_environment)
list(JOIN _treefold_launcher " " _treefold_launcher)
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/treefold-mpi.txt CONTENT
"# The MPI of this build and how to start its programs (cmake/TreefoldDependencies.cmake)
implementation=${TREEFOLD_MPI_IMPLEMENTATION}
mpirun=${_treefold_launcher}
environment=${_treefold_launcher_environment}
" @ONLY)
