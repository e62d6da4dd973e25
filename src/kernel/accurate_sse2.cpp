// The sse2 block fold of kernel::accurate_simd (built with this architecture's flags, see
// sources.cmake). Called only after accurate_dispatch.cpp has checked the CPU supports sse2.
#define TREEFOLD_ARCH sse2
#include "accurate_instantiate.hpp"
