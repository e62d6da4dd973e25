# Per-architecture kernel translation units: each gets exactly its architecture's flags.
# Nothing else in libtreefold (and nothing a user compiles) gets them; dispatch.cpp checks
# the CPU before it calls into these files.
# -O2 in every build type: at -O0 (Debug) the inline helpers these files use (std::, xsimd,
# treefold headers) are emitted as weak symbols compiled with the architecture's flags,
# which the linker may then pick for callers on CPUs without it (test_kernels.arch_symbols);
# optimised, they are inlined into the arch-named functions. The later -O2 wins over -O0.
set(_treefold_kernel_dir ${CMAKE_CURRENT_LIST_DIR})
set_source_files_properties(${_treefold_kernel_dir}/simd_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-O2")
set_source_files_properties(${_treefold_kernel_dir}/simd_avx512f.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512dq;-O2")
# xsimd 8.1's avx512f int64 multiply uses an AVX512DQ instruction, so that TU also gets
# -mavx512dq and dispatch.cpp requires both features before choosing it.
# The accurate sum's block folds (kernel/accurate_impl.hpp): the same flags per architecture.
set_source_files_properties(${_treefold_kernel_dir}/accurate_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-O2")
set_source_files_properties(${_treefold_kernel_dir}/accurate_avx512f.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512dq;-O2")
# The binned sum's lane kernels (kernel/binned_impl.hpp): the same flags per architecture.
set_source_files_properties(${_treefold_kernel_dir}/binned_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-O2")
set_source_files_properties(${_treefold_kernel_dir}/binned_avx512f.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512dq;-O2")
# Unity builds (CMAKE_UNITY_BUILD) leave this folder's files alone: each per-architecture TU
# must see only its own architecture's instantiations.
file(GLOB _treefold_kernel_sources ${_treefold_kernel_dir}/*.cpp)
set_source_files_properties(${_treefold_kernel_sources} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
