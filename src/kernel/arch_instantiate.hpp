#pragma once
// Included once by each src/kernel/simd_<arch>.cpp after defining TREEFOLD_ARCH (an xsimd
// architecture tag such as sse2). Everything instantiated here is templated on the
// architecture, so no inline function compiled with this TU's flags can be shared with (and
// picked by the linker for) other TUs.

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports the deliberately undefined source register of _mm512_permutexvar_pd
// (inside its own avx512fintrin.h) as (maybe-)uninitialized once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "arch_kernels.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/kernel/detail/simd_impl.hpp"

namespace treefold::kernel {
namespace detail {

template <class Arch, class T, ops::builtin_kind Kind>
T node_kernel(const T* first, std::uint64_t len)
{
    typename op_of<Kind>::type op;
    return simd<Arch>::reduce_node(first, len, op);
}

template <class Arch, class T, ops::builtin_kind Kind>
void row_kernel(const T* first, std::uint64_t len, std::size_t k, T* out, T* scratch)
{
    typename op_of<Kind>::type op;
    rows<Arch>::reduce(first, len, k, op, out, scratch);
}

} // namespace detail

#define TREEFOLD_INSTANTIATE(T, OP)                                                                   \
    template T simd<xsimd::TREEFOLD_ARCH>::reduce_node<T, ops::OP>(const T*, std::uint64_t, ops::OP&); \
    template T detail::node_kernel<xsimd::TREEFOLD_ARCH, T, ops::builtin_kind::OP>(const T*, std::uint64_t); \
    template void detail::row_kernel<xsimd::TREEFOLD_ARCH, T, ops::builtin_kind::OP>(                 \
        const T*, std::uint64_t, std::size_t, T*, T*);
TREEFOLD_KERNEL_EACH(TREEFOLD_INSTANTIATE)
#undef TREEFOLD_INSTANTIATE

namespace detail {
template <class Arch, class T>
T products_kernel(const T* x, const T* y, std::uint64_t len)
{
    ops::plus op;
    return simd<Arch>::reduce_products(x, y, len, op);
}
} // namespace detail

#define TREEFOLD_INSTANTIATE_PRODUCTS(T)                                                                     \
    template T simd<xsimd::TREEFOLD_ARCH>::reduce_products<T, ops::plus>(const T*, const T*, std::uint64_t, ops::plus&); \
    template T detail::products_kernel<xsimd::TREEFOLD_ARCH, T>(const T*, const T*, std::uint64_t);
TREEFOLD_INSTANTIATE_PRODUCTS(double)
TREEFOLD_INSTANTIATE_PRODUCTS(float)
#undef TREEFOLD_INSTANTIATE_PRODUCTS

} // namespace treefold::kernel
