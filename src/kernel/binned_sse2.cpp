// The sse2 lane kernels of kernel::binned_simd (built with this architecture's flags, see
// sources.cmake). Called only after binned_dispatch.cpp has checked the CPU supports sse2.
#define TREEFOLD_ARCH sse2
#include "binned_instantiate.hpp"
