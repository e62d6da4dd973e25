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
