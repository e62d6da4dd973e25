// The avx512f block fold of kernel::accurate_simd (built with this architecture's flags, see
// sources.cmake). Called only after accurate_dispatch.cpp has checked the CPU supports avx512f.
#define TREEFOLD_ARCH avx512f
#include "accurate_instantiate.hpp"
