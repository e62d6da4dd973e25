#pragma once
// Shared by generic_<arch>.cpp: the SIMD path of kernel::simd<Arch> with generic lambdas
// (non-associative, non-commutative), against kernel::scalar with the same lambdas.
//
// Each generic_<arch>.cpp is compiled with its architecture's flags, so it touches only
// raw arrays (no std containers whose inline code could be shared with other TUs).

#include <cstddef>
#include <cstdint>

namespace kernel_tests {

/// Inputs and outputs of one architecture's generic-lambda run: for every length n in
/// 1..max_len (at input offset offsets[n]), the SIMD result and the scalar result.
template <class T>
struct generic_case {
    const T* data = nullptr;           // at least max_len + 64 values
    const std::size_t* offsets = nullptr; // [max_len + 1]
    std::size_t max_len = 0;
    T* simd_out = nullptr;             // [max_len + 1]
    T* scalar_out = nullptr;           // [max_len + 1]
};

/// The lambdas (spelled out again in every file: each TU gets its own closure types).
///   floating point: a * 0.5 + b * 1.5;  integers: a - 2 * b (wraps identically).
struct generic_inputs {
    generic_case<double> f64;
    generic_case<float> f32;
    generic_case<std::int32_t> i32;
    generic_case<std::int64_t> i64;
};

void run_generic_sse2(generic_inputs& in);
void run_generic_avx2(generic_inputs& in);
void run_generic_avx512f(generic_inputs& in);

} // namespace kernel_tests

#ifdef KERNEL_TESTS_ARCH
#if defined(__GNUC__) && !defined(__clang__)
// As in src/kernel/arch_instantiate.hpp: GCC 12 flags the deliberately undefined source of
// AVX-512 intrinsics inside its own headers once they are inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/detail/simd_impl.hpp"

namespace kernel_tests {
namespace {

template <class T, class Op>
void run_one(generic_case<T>& c, Op op)
{
    for (std::size_t n = 1; n <= c.max_len; ++n) {
        const T* first = c.data + c.offsets[n];
        c.simd_out[n] = treefold::kernel::simd<xsimd::KERNEL_TESTS_ARCH>::reduce_node(first, n, op);
        c.scalar_out[n] = treefold::kernel::scalar::reduce_node(first, n, op);
    }
}

void run_all(generic_inputs& in)
{
    auto affine = [](auto a, auto b) {
        using V = decltype(a);
        return a * V(0.5) + b * V(1.5);
    };
    auto skew = [](auto a, auto b) {
        using V = decltype(a);
        return a - b * V(2);
    };
    run_one(in.f64, affine);
    run_one(in.f32, affine);
    run_one(in.i32, skew);
    run_one(in.i64, skew);
}

} // namespace
} // namespace kernel_tests
#endif
