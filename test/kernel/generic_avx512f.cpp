// Generic lambdas through kernel::simd<xsimd::avx512f> (this file is built with avx512f's flags).
#define KERNEL_TESTS_ARCH avx512f
#include "generic_checks.hpp"

void kernel_tests::run_generic_avx512f(generic_inputs& in) { run_all(in); }
