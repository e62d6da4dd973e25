# Allreduce schedules (not run by ctest):
#   mpirun -n 2 perf/schedule_fit [--out FILE] [--sizes]  alpha_p, alpha_r (--sizes: and the size model) -> FILE
#   mpirun -n P perf/osu_allreduce [--constants FILE] OSU-style latency, 8 B .. 4 KiB
#   perf/schedule_efficiency [--svg FILE]               best vs recursive doubling / both heuristics
#   mpirun -n P perf/reducer_exchange                   reducer all_reduce by exchange
foreach(prog schedule_fit osu_allreduce schedule_efficiency reducer_exchange)
  add_executable(${prog} ${CMAKE_CURRENT_LIST_DIR}/${prog}.cpp)
  target_link_libraries(${prog} PRIVATE treefold_all)
  treefold_target_flags(${prog})
endforeach()
