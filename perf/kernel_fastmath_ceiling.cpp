// THE IRREPRODUCIBLE CEILING, not a treefold kernel: a plain sum compiled with -O3
// -ffast-math (perf/kernels.cmake), so the compiler reassociates it into as many vector
// accumulators as it likes. Its bits change with compiler, flags and vector width. An
// AVX-512 and an AVX2 copy are picked at run time where the CPU has them.
#include <cstddef>

namespace treefold::perf {

namespace {

// 32 independent partial sums: left alone, GCC vectorises `s += x[i]` into a single vector
// accumulator and is then bound by the add latency, which would flatter the tree kernels.
// Reassociated freely (-ffast-math), this is as fast as the memory and adders allow.
#define TREEFOLD_CEILING_BODY                               \
    double part[32] = {};                                   \
    std::size_t i = 0;                                      \
    for (; i + 32 <= n; i += 32) {                          \
        for (std::size_t j = 0; j < 32; ++j) {              \
            part[j] += x[i + j];                            \
        }                                                   \
    }                                                       \
    double s = 0.0;                                         \
    for (; i < n; ++i) {                                    \
        s += x[i];                                          \
    }                                                       \
    for (std::size_t j = 0; j < 32; ++j) {                  \
        s += part[j];                                       \
    }                                                       \
    return s;

__attribute__((target("avx512f"))) double sum_avx512f(const double* x, std::size_t n)
{
    TREEFOLD_CEILING_BODY
}

__attribute__((target("avx2"))) double sum_avx2(const double* x, std::size_t n)
{
    TREEFOLD_CEILING_BODY
}

double sum_default(const double* x, std::size_t n)
{
    TREEFOLD_CEILING_BODY
}

// The dot product the same way (perf/cg.cmake's cg_bench): 32 partial sums of x[i] * y[i],
// reassociated and fused into FMAs as the compiler likes.
#define TREEFOLD_CEILING_DOT_BODY                           \
    double part[32] = {};                                   \
    std::size_t i = 0;                                      \
    for (; i + 32 <= n; i += 32) {                          \
        for (std::size_t j = 0; j < 32; ++j) {              \
            part[j] += x[i + j] * y[i + j];                 \
        }                                                   \
    }                                                       \
    double s = 0.0;                                         \
    for (; i < n; ++i) {                                    \
        s += x[i] * y[i];                                   \
    }                                                       \
    for (std::size_t j = 0; j < 32; ++j) {                  \
        s += part[j];                                       \
    }                                                       \
    return s;

__attribute__((target("avx512f,fma"))) double dot_avx512f(const double* x, const double* y, std::size_t n)
{
    TREEFOLD_CEILING_DOT_BODY
}

__attribute__((target("avx2,fma"))) double dot_avx2(const double* x, const double* y, std::size_t n)
{
    TREEFOLD_CEILING_DOT_BODY
}

double dot_default(const double* x, const double* y, std::size_t n)
{
    TREEFOLD_CEILING_DOT_BODY
}

using dot_fn = double (*)(const double*, const double*, std::size_t);

dot_fn pick_dot()
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) {
        return dot_avx512f;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return dot_avx2;
    }
    return dot_default;
}

using sum_fn = double (*)(const double*, std::size_t);

sum_fn pick()
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        return sum_avx512f;
    }
    if (__builtin_cpu_supports("avx2")) {
        return sum_avx2;
    }
    return sum_default;
}

} // namespace

double fastmath_sum(const double* x, std::size_t n)
{
    static const sum_fn fn = pick();
    return fn(x, n);
}

double fastmath_dot(const double* x, const double* y, std::size_t n)
{
    static const dot_fn fn = pick_dot();
    return fn(x, y, n);
}

} // namespace treefold::perf
