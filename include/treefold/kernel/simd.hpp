#pragma once
/// The xsimd kernel policy: one tree node computed with whole registers, for any xsimd
/// architecture, with exactly the bits of kernel::scalar.
///
/// This header only declares the kernel; it needs no architecture flags. The definition is
/// in simd_impl.hpp and must be compiled with the architecture's flags. libtreefold.a holds
/// the instantiations for the built-in operators and element types (ops.hpp) for
/// sse2, avx2 and avx512f, one translation unit per architecture; the extern declarations
/// below keep other translation units from instantiating them again. Call an instantiation
/// only on a CPU that has the architecture (see simd_supported); kernel::best does that
/// check for you.

#include "treefold/config.hpp"
#include "treefold/kernel/ops.hpp"

#include <xsimd/config/xsimd_arch.hpp>

#include <cstdint>

namespace treefold::kernel {

/// SIMD kernel policy on xsimd architecture `Arch` (same contract as kernel::scalar).
///
/// In-register tree levels are built from compile-time xsimd::swizzle masks, selects and
/// vertical operator calls only; see doc/design.md ("SIMD kernels") for the lane schedule.
template <class Arch>
struct simd {
    using arch_type = Arch; ///< The xsimd architecture the kernel is compiled for.
    /// The architecture's xsimd name ("sse2", "avx2", "avx512f").
    static constexpr const char* name = Arch::name();

    /// Value of the node covering first[0, len) (len > 0, the node's aligned cover).
    /// `Op` must be callable on scalars and on xsimd::batch<T, Arch>.
    template <class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op);

    /// The node whose leaves are the products x[i] * y[i], i in [0, len) (len > 0): the bits of
    /// reduce_node over the stored products, each product rounded once (never fused with the
    /// operator) and never stored.
    template <class T, class Op>
    static T reduce_products(const T* x, const T* y, std::uint64_t len, Op& op);
};

/// True when the running CPU (and OS) supports the architecture named `arch` ("sse2",
/// "avx2", "avx512f"; anything else is false). Checked once per process.
bool simd_supported(const char* arch) noexcept;

/// True when the running CPU supports `Arch`.
template <class Arch>
bool simd_supported() noexcept
{
    return simd_supported(Arch::name());
}

// Precompiled in src/kernel/simd_<arch>.cpp for every pair of ops.hpp.
#define TREEFOLD_KERNEL_EXTERN(T, OP)                                                                    \
    extern template T simd<xsimd::sse2>::reduce_node<T, ops::OP>(const T*, std::uint64_t, ops::OP&);    \
    extern template T simd<xsimd::avx2>::reduce_node<T, ops::OP>(const T*, std::uint64_t, ops::OP&);    \
    extern template T simd<xsimd::avx512f>::reduce_node<T, ops::OP>(const T*, std::uint64_t, ops::OP&);
TREEFOLD_KERNEL_EACH(TREEFOLD_KERNEL_EXTERN)
#undef TREEFOLD_KERNEL_EXTERN

// The sums of products (kernel/dot.hpp), precompiled likewise for double and float.
#define TREEFOLD_KERNEL_EXTERN_PRODUCTS(T)                                                                    \
    extern template T simd<xsimd::sse2>::reduce_products<T, ops::plus>(const T*, const T*, std::uint64_t, ops::plus&); \
    extern template T simd<xsimd::avx2>::reduce_products<T, ops::plus>(const T*, const T*, std::uint64_t, ops::plus&); \
    extern template T simd<xsimd::avx512f>::reduce_products<T, ops::plus>(const T*, const T*, std::uint64_t, ops::plus&);
TREEFOLD_KERNEL_EXTERN_PRODUCTS(double)
TREEFOLD_KERNEL_EXTERN_PRODUCTS(float)
#undef TREEFOLD_KERNEL_EXTERN_PRODUCTS

} // namespace treefold::kernel
