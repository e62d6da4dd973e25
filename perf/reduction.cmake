# The distributed reduction benchmark: mpirun -n P build/.../perf/reduction_bench --help
# scripts/run-benchmarks runs the whole suite and writes CSV and figures to build/perf-results/.
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
add_executable(reduction_bench
  ${CMAKE_CURRENT_LIST_DIR}/reduction_bench.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_fastmath_ceiling.cpp)
target_link_libraries(reduction_bench PRIVATE treefold_all Boost::program_options)
treefold_target_flags(reduction_bench)
# The `fast` mode links the irreproducible ceiling (flags in perf/CMakeLists.txt).
# Reproducibility over p at the thesis's scale (seed 000, Table 4.2): real ranks under mpirun,
# virtual ranks in one process (reproducibility_sweep --help; scripts/run-binary-tree-thesis).
add_executable(reproducibility_sweep
  ${CMAKE_CURRENT_LIST_DIR}/reproducibility_sweep.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_fastmath_ceiling.cpp)
target_link_libraries(reproducibility_sweep PRIVATE treefold_all Boost::program_options)
treefold_target_flags(reproducibility_sweep)
# automatic's choice against the best explicit core exchange over independent plans.
add_executable(automatic_regret ${CMAKE_CURRENT_LIST_DIR}/automatic_regret.cpp)
target_link_libraries(automatic_regret PRIVATE treefold::treefold Boost::program_options)
treefold_target_flags(automatic_regret)
# Where the time of one small native-exchange call goes, piece by piece (call_breakdown --help).
add_executable(call_breakdown
  ${CMAKE_CURRENT_LIST_DIR}/call_breakdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_fastmath_ceiling.cpp)
target_link_libraries(call_breakdown PRIVATE treefold::treefold Boost::program_options)
treefold_target_flags(call_breakdown)
