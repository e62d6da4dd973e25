# The project's own MPI suites use the installed test kit (cmake/TreefoldTesting.cmake,
# treefold::testing) with project defaults: every process count below, a longer timeout,
# the warning flags and helpers of test/support (treefold_test_support, test/CMakeLists.txt)
# and TREEFOLD_SOURCE_DIR for the suites that read ../shared.
set(TREEFOLD_TEST_PROCS "1;2;3;4;7;8" CACHE STRING "Process counts every MPI test runs at")
set(TREEFOLD_TEST_TIMEOUT 300 CACHE STRING "Default ctest TIMEOUT (s) of an MPI test")
set(TREEFOLD_MPI_TEST_PROCS ${TREEFOLD_TEST_PROCS})
set(TREEFOLD_MPI_TEST_TIMEOUT ${TREEFOLD_TEST_TIMEOUT})
set(TREEFOLD_MPI_TEST_LIBRARIES treefold_test_support)
set(TREEFOLD_MPI_TEST_ENVIRONMENT "TREEFOLD_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
include(TreefoldTesting)
# The tests that launch MPI themselves (scripts, the consumer checks) take the launcher from
# the configuration: TREEFOLD_MPIRUN in their environment (mpiexec and its flags, as words),
# with TREEFOLD_MPI_RUN_ENVIRONMENT, so no script names an implementation's flags.
treefold_mpi_launcher(TREEFOLD_MPIRUN TREEFOLD_MPI_RUN_ENVIRONMENT)
list(JOIN TREEFOLD_MPIRUN " " TREEFOLD_MPIRUN_WORDS)
list(APPEND TREEFOLD_MPI_RUN_ENVIRONMENT "TREEFOLD_MPIRUN=${TREEFOLD_MPIRUN_WORDS}")

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
      COMMAND ${TREEFOLD_MPIRUN} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS} ${ARG_COMMAND})
    set_tests_properties(${name}.p${np} PROPERTIES
      TIMEOUT ${ARG_TIMEOUT}
      PROCESSORS ${np}
      LABELS "mpi;p${np}"
      ENVIRONMENT "${TREEFOLD_MPI_RUN_ENVIRONMENT};TREEFOLD_SOURCE_DIR=${PROJECT_SOURCE_DIR};${ARG_ENVIRONMENT}")
  endforeach()
endfunction()
