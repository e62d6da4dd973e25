# treefold_add_mpi_test(<name> SOURCES <src>... [PROCS <n>...] [TIMEOUT <s>] [LIBS <lib>...])
#
# Builds one Boost.Test executable (with the shared MPI test main) and registers it with
# ctest once per process count, as <name>.p<n>. Every test gets a TIMEOUT, PROCESSORS, the
# environment Open MPI needs to run as root, and --oversubscribe when the MPI is Open MPI
# (this machine has 2 cores; p > 2 is oversubscribed).
set(TREEFOLD_TEST_PROCS "1;2;3;4;7;8" CACHE STRING "Process counts every MPI test runs at")
set(TREEFOLD_TEST_TIMEOUT 300 CACHE STRING "Default ctest TIMEOUT (s) of an MPI test")

set(_treefold_mpi_extra_flags "")
if(MPI_CXX_LIBRARY_VERSION_STRING MATCHES "Open MPI" OR MPIEXEC_EXECUTABLE MATCHES "openmpi")
  # Oversubscription lets p exceed the cores; yield keeps idle ranks from spinning.
  set(_treefold_mpi_extra_flags --oversubscribe --mca mpi_yield_when_idle 1)
endif()

function(treefold_add_mpi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;PROCS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE treefold_test_support ${ARG_LIBS})
  treefold_target_flags(${name})
  set(procs)
  if(ARG_PROCS)
    set(procs PROCS ${ARG_PROCS})
  endif()
  set(timeout)
  if(ARG_TIMEOUT)
    set(timeout TIMEOUT ${ARG_TIMEOUT})
  endif()
  treefold_add_mpi_run(${name} ${procs} ${timeout}
    COMMAND $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS} --log_level=warning --report_level=short)
endfunction()

# treefold_add_mpi_run(<name> COMMAND <program> <args>... [PROCS <n>...] [TIMEOUT <s>] [ENVIRONMENT <VAR=value>...])
#
# Registers any program (a C, Fortran or Python test) to run under mpiexec once per process
# count, as <name>.p<n>, with the same TIMEOUT, PROCESSORS, labels and environment as
# treefold_add_mpi_test.
function(treefold_add_mpi_run name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "PROCS;COMMAND;ENVIRONMENT" ${ARGN})
  if(NOT ARG_PROCS)
    set(ARG_PROCS ${TREEFOLD_TEST_PROCS})
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${TREEFOLD_TEST_TIMEOUT})
  endif()
  foreach(np IN LISTS ARG_PROCS)
    add_test(NAME ${name}.p${np}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${_treefold_mpi_extra_flags}
              ${MPIEXEC_PREFLAGS} ${ARG_COMMAND})
    set_tests_properties(${name}.p${np} PROPERTIES
      TIMEOUT ${ARG_TIMEOUT}
      PROCESSORS ${np}
      LABELS "mpi;p${np}"
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;TREEFOLD_SOURCE_DIR=${PROJECT_SOURCE_DIR};${ARG_ENVIRONMENT}")
  endforeach()
endfunction()

# treefold_add_mpi_test_variant(<name> <variant> PROCS <n>... ENVIRONMENT <VAR=value>... [TIMEOUT <s>])
#
# Registers the executable of treefold_add_mpi_test(<name>) once more per process count, as
# <name>.<variant>.p<n>, with extra environment (e.g. TREEFOLD_RMA_WINDOW=allocate).
function(treefold_add_mpi_test_variant name variant)
  cmake_parse_arguments(ARG "" "TIMEOUT" "PROCS;ENVIRONMENT" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${TREEFOLD_TEST_TIMEOUT})
  endif()
  foreach(np IN LISTS ARG_PROCS)
    add_test(NAME ${name}.${variant}.p${np}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${_treefold_mpi_extra_flags}
              ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS}
              --log_level=warning --report_level=short)
    set_tests_properties(${name}.${variant}.p${np} PROPERTIES
      TIMEOUT ${ARG_TIMEOUT}
      PROCESSORS ${np}
      LABELS "mpi;p${np}"
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;TREEFOLD_SOURCE_DIR=${PROJECT_SOURCE_DIR};${ARG_ENVIRONMENT}")
  endforeach()
endfunction()
