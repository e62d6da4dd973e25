#pragma once
// Included once by each src/kernel/simd_<arch>.cpp after defining TREEFOLD_ARCH (an xsimd
// architecture tag such as sse2) and TREEFOLD_ARCH_TABLE (the table function's name).
// Everything instantiated here is templated on the architecture, so no inline function
// compiled with this TU's flags can be shared with (and picked by the linker for) other TUs.

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports the deliberately undefined source register of _mm512_permutexvar_pd
// (inside its own avx512fintrin.h) as (maybe-)uninitialized once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "arch_kernels.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/kernel/simd_impl.hpp"

namespace treefold::kernel {

#define TREEFOLD_INSTANTIATE_ONE(T, OP) \
    template T simd<xsimd::TREEFOLD_ARCH>::reduce_node<T, ops::OP>(const T*, std::uint64_t, ops::OP&);
#define TREEFOLD_INSTANTIATE_TYPE(T)        \
    TREEFOLD_INSTANTIATE_ONE(T, plus)       \
    TREEFOLD_INSTANTIATE_ONE(T, multiplies) \
    TREEFOLD_INSTANTIATE_ONE(T, min)        \
    TREEFOLD_INSTANTIATE_ONE(T, max)
TREEFOLD_INSTANTIATE_TYPE(double)
TREEFOLD_INSTANTIATE_TYPE(float)
TREEFOLD_INSTANTIATE_TYPE(std::int32_t)
TREEFOLD_INSTANTIATE_TYPE(std::int64_t)
#undef TREEFOLD_INSTANTIATE_TYPE
#undef TREEFOLD_INSTANTIATE_ONE

namespace dispatch_detail {
namespace {

using arch = xsimd::TREEFOLD_ARCH;

template <class T, class Op>
T node_kernel(const T* first, std::uint64_t len)
{
    Op op;
    return simd<arch>::reduce_node(first, len, op);
}

template <class T, class Op>
void row_kernel(const T* first, std::uint64_t len, std::size_t k, T* out, T* scratch)
{
    Op op;
    rows<arch>::reduce(first, len, k, op, out, scratch);
}

template <class T>
void fill(arch_table& t, type_code c)
{
    const auto i = static_cast<unsigned>(c);
    t.node[i][0] = reinterpret_cast<erased_fn>(&node_kernel<T, ops::plus>);
    t.node[i][1] = reinterpret_cast<erased_fn>(&node_kernel<T, ops::multiplies>);
    t.node[i][2] = reinterpret_cast<erased_fn>(&node_kernel<T, ops::min>);
    t.node[i][3] = reinterpret_cast<erased_fn>(&node_kernel<T, ops::max>);
    t.rows[i][0] = reinterpret_cast<erased_fn>(&row_kernel<T, ops::plus>);
    t.rows[i][1] = reinterpret_cast<erased_fn>(&row_kernel<T, ops::multiplies>);
    t.rows[i][2] = reinterpret_cast<erased_fn>(&row_kernel<T, ops::min>);
    t.rows[i][3] = reinterpret_cast<erased_fn>(&row_kernel<T, ops::max>);
}

arch_table make_table()
{
    arch_table t{};
    t.name = arch::name();
    fill<double>(t, type_code::f64);
    fill<float>(t, type_code::f32);
    fill<std::int32_t>(t, type_code::i32);
    fill<std::int64_t>(t, type_code::i64);
    return t;
}

} // namespace

const arch_table& TREEFOLD_ARCH_TABLE() noexcept
{
    static const arch_table table = make_table();
    return table;
}

} // namespace dispatch_detail
} // namespace treefold::kernel
