// THE IRREPRODUCIBLE CEILING, not a treefold kernel: a plain sum compiled with -O3
// -ffast-math (perf/kernels.cmake), so the compiler reassociates it into as many vector
// accumulators as it likes. Its bits change with compiler, flags and vector width. One
// clone per instruction set, picked at load time, so it uses AVX-512 where the CPU has it.
#include <cstddef>

namespace treefold::perf {

__attribute__((target_clones("avx512f", "avx2", "default")))
double fastmath_sum(const double* x, std::size_t n)
{
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        s += x[i];
    }
    return s;
}

} // namespace treefold::perf
