# Local kernel benchmark (Google Benchmark): ns per element of the scalar tree, every xsimd
# backend, kernel::best, std::accumulate and the irreproducible fast-math ceiling.
#   build/<dir>/perf/kernel_bench --benchmark_repetitions=15
find_package(benchmark REQUIRED)
add_executable(kernel_bench
  ${CMAKE_CURRENT_LIST_DIR}/kernel_bench.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_fastmath_ceiling.cpp)
target_link_libraries(kernel_bench PRIVATE treefold_all benchmark::benchmark)
treefold_target_flags(kernel_bench)
# kernel_fastmath_ceiling.cpp: the irreproducible ceiling, flags in perf/CMakeLists.txt.
