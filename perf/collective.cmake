# OSU-style latency of the rank-ordered tree reductions against MPI_Reduce (not run by ctest):
#   mpirun -n 2 perf/osu_reduce            (prints an OSU-style table as # comments, then CSV)
add_executable(osu_reduce ${CMAKE_CURRENT_LIST_DIR}/osu_reduce.cpp)
target_link_libraries(osu_reduce PRIVATE treefold_all)
treefold_target_flags(osu_reduce)
