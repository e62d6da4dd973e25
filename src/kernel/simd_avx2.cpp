// The avx2 instantiations of the SIMD kernels (built with this architecture's flags, see
// sources.cmake). Called only after dispatch.cpp has checked the CPU supports avx2.
#define TREEFOLD_ARCH avx2
#include "arch_instantiate.hpp"
