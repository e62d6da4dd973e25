# One-sided queue benchmark: mpirun -n P build/.../perf/queue_bench [--messages M --bytes B]
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
add_executable(queue_bench ${CMAKE_CURRENT_LIST_DIR}/queue_bench.cpp)
target_link_libraries(queue_bench PRIVATE treefold_all Boost::program_options)
treefold_target_flags(queue_bench)
# The thesis's queue experiments (§6.4): latency by size, memory by p, completion times under
# many producers; scripts/run-queue-experiments runs them and perf/plot_queue.py draws them.
add_executable(queue_experiments ${CMAKE_CURRENT_LIST_DIR}/queue_experiments.cpp)
target_link_libraries(queue_experiments PRIVATE treefold_all Boost::program_options)
treefold_target_flags(queue_experiments)
