// The avx512f lane kernels of kernel::binned_simd (built with this architecture's flags, see
// sources.cmake). Called only after binned_dispatch.cpp has checked the CPU supports avx512f.
#define TREEFOLD_ARCH avx512f
#include "binned_instantiate.hpp"
