// The object that carries treefold_perf_pch (perf/CMakeLists.txt): bench_pch.hpp precompiled.
