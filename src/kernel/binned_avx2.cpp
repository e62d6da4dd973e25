// The avx2 lane kernels of kernel::binned_simd (built with this architecture's flags, see
// sources.cmake). Called only after binned_dispatch.cpp has checked the CPU supports avx2.
#define TREEFOLD_ARCH avx2
#include "binned_instantiate.hpp"
