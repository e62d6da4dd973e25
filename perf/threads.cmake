# Threads inside a rank: kernel::split<best> on t threads against the fast-math ceiling on the
# same t threads (figures in doc/performance.md, "Threads inside a rank").
#   build/<dir>/perf/thread_bench [--threads 1,2] [--n 2097152,20000000] [--rounds 41]
add_executable(thread_bench
  ${CMAKE_CURRENT_LIST_DIR}/thread_bench.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_fastmath_ceiling.cpp)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
target_link_libraries(thread_bench PRIVATE treefold_all Boost::program_options)
treefold_target_flags(thread_bench)
