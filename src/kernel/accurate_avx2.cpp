// The avx2 block fold of kernel::accurate_simd (built with this architecture's flags, see
// sources.cmake). Called only after accurate_dispatch.cpp has checked the CPU supports avx2.
#define TREEFOLD_ARCH avx2
#include "accurate_instantiate.hpp"
