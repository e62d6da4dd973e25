# DSOP benchmark: mpirun -n P build/.../perf/dsop_bench [--sizes 500,1000,2000,4000]
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
add_executable(dsop_bench ${CMAKE_CURRENT_LIST_DIR}/dsop_bench.cpp)
target_link_libraries(dsop_bench PRIVATE treefold_all Boost::program_options)
treefold_target_flags(dsop_bench)
# The DSOP LogGP model's predictions (no MPI): build/.../perf/dsop_model [--procs ... --L ...]
add_executable(dsop_model ${CMAKE_CURRENT_LIST_DIR}/dsop_model.cpp)
target_link_libraries(dsop_model PRIVATE treefold_all Boost::program_options)
treefold_target_flags(dsop_model)
