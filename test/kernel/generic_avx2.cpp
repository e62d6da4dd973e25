// Generic lambdas through kernel::simd<xsimd::avx2> (this file is built with avx2's flags).
#define KERNEL_TESTS_ARCH avx2
#include "generic_checks.hpp"

void kernel_tests::run_generic_avx2(generic_inputs& in) { run_all(in); }
