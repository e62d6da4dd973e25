# The accurate sum's benchmark (time and error against the plain tree sum):
#   mpirun -n P build/rel/perf/accurate_bench [--sizes 100000,20000000] [--reps 41]
# It uses the test suite's exact reference (test/support/exact_sum.hpp) and finds the data
# sets in ../shared/data/psllh (--data DIR).
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
add_executable(accurate_bench ${CMAKE_CURRENT_LIST_DIR}/accurate_bench.cpp)
target_include_directories(accurate_bench PRIVATE ${PROJECT_SOURCE_DIR}/test)
target_compile_definitions(accurate_bench PRIVATE TREEFOLD_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
target_link_libraries(accurate_bench PRIVATE treefold_all Boost::program_options)
treefold_target_flags(accurate_bench)
