# The CG solver of examples/cg_poisson.cpp with one more variant, the irreproducible fast
# baseline (`--dots fastmath`: kernel_fastmath_ceiling.cpp's -ffast-math dot product +
# MPI_Allreduce), for its benchmark mode:
#   mpirun -n P build/perf/cg_bench --bench --grid 32,64,128
# -O2 as the library (the suites' TREEFOLD_SUITE_OPTIONS would lower it).
add_executable(cg_bench ${PROJECT_SOURCE_DIR}/examples/cg_poisson.cpp ${CMAKE_CURRENT_LIST_DIR}/kernel_fastmath_ceiling.cpp)
target_compile_definitions(cg_bench PRIVATE CG_POISSON_FASTMATH=1)
set_source_files_properties(${PROJECT_SOURCE_DIR}/examples/cg_poisson.cpp TARGET_DIRECTORY cg_bench PROPERTIES COMPILE_OPTIONS "-O2")
target_link_libraries(cg_bench PRIVATE treefold::treefold MPI::MPI_CXX)
treefold_target_flags(cg_bench)
