# The installed MPI test kit as a user's project uses it (included by CMakeLists.txt).
# consumer_kit.p<n>: the passing case. The two failing cases must fail (WILL_FAIL), the
# REQUIRE one long before its 120 s timeout: check.cmake also times it and reads its output.
treefold_add_mpi_test(consumer_kit SOURCES kit_suite.cpp PROCS 1 2 ARGS --run_test=passes)
target_link_libraries(consumer_kit PRIVATE treefold::treefold)
treefold_add_mpi_test_variant(consumer_kit check_fails PROCS 2 TIMEOUT 120 ARGS --run_test=check_fails_on_one_rank)
treefold_add_mpi_test_variant(consumer_kit require_fails PROCS 2 TIMEOUT 120 ARGS --run_test=require_fails_on_one_rank)
set_tests_properties(consumer_kit.check_fails.p2 consumer_kit.require_fails.p2 PROPERTIES WILL_FAIL TRUE)
