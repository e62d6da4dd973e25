// The avx512f instantiations of the SIMD kernels (built with this architecture's flags, see
// sources.cmake). Called only after dispatch.cpp has checked the CPU supports avx512f.
#define TREEFOLD_ARCH avx512f
#include "arch_instantiate.hpp"
