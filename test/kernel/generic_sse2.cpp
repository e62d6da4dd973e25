// Generic lambdas through kernel::simd<xsimd::sse2> (this file is built with sse2's flags).
#define KERNEL_TESTS_ARCH sse2
#include "generic_checks.hpp"

void kernel_tests::run_generic_sse2(generic_inputs& in) { run_all(in); }
