#pragma once
/// Sum kernels for dot products: the tree node over the leaves x[i] * y[i] of two arrays,
/// computed without storing the products, with exactly the bits of kernel::scalar (and every
/// other kernel) under ops::plus over the stored products. Each product is one rounded IEEE
/// multiplication: the build's -ffp-contract=off keeps the compiler from fusing it with the
/// addition that follows, and no kernel calls an FMA.
///
/// A dot kernel policy K offers, for T = double and float,
/// `static T K::dot<T>(const T* x, const T* y, std::uint64_t len)` and
/// `static T K::sum<T>(const T* x, std::uint64_t len)`: the node over [0, len) (len > 0) of
/// the products, and of x alone (the plain sum, for the columns of treefold::dots_reducer
/// that sum one array).

#include "treefold/config.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/simd.hpp"

#include <cstdint>
#include <type_traits>

namespace treefold::kernel {

/// The reference dot kernel: kernel::scalar's binary counter over the products.
struct dot_scalar {
    /// The kernel's name in messages and benchmark rows.
    static constexpr const char* name = "scalar";
    /// The node over the products x[i] * y[i].
    template <class T>
    static T dot(const T* x, const T* y, std::uint64_t len)
    {
        ops::plus op;
        return scalar_tree<T>(len, [x, y](std::uint64_t j) { return T(x[j] * y[j]); }, op);
    }
    /// The node over x[i].
    template <class T>
    static T sum(const T* x, std::uint64_t len)
    {
        ops::plus op;
        return scalar::reduce_node(x, len, op);
    }
};

/// The SIMD dot kernel on xsimd architecture Arch (kernel::simd<Arch>'s butterfly with the
/// products made in its registers). Precompiled for sse2, avx2 and avx512f in libtreefold.a;
/// call it only where simd_supported<Arch>().
template <class Arch>
struct dot_simd {
    /// The architecture's xsimd name.
    static constexpr const char* name = Arch::name();
    /// The node over the products x[i] * y[i].
    template <class T>
    static T dot(const T* x, const T* y, std::uint64_t len)
    {
        ops::plus op;
        return simd<Arch>::reduce_products(x, y, len, op);
    }
    /// The node over x[i].
    template <class T>
    static T sum(const T* x, std::uint64_t len)
    {
        ops::plus op;
        return simd<Arch>::reduce_node(x, len, op);
    }
};

namespace detail {

template <class T>
using products_fn = T (*)(const T*, const T*, std::uint64_t);

/// simd<Arch>::reduce_products under ops::plus for the best supported architecture
/// (src/kernel/dispatch.cpp; T = double or float).
template <class T>
products_fn<T> builtin_products_kernel() noexcept;

} // namespace detail

/// The default dot kernel: the precompiled SIMD kernel of the architecture kernel::best uses
/// (best_arch_name()), the scalar tree for nodes shorter than dot_best::scalar_below; sums of
/// one array through kernel::best itself.
struct dot_best {
    /// The kernel's name in messages and benchmark rows.
    static constexpr const char* name = "best";
    /// Nodes shorter than this take the scalar tree of products (the counter, kernel::scalar_tree).
    static constexpr std::uint64_t scalar_below = 16;
    /// The node over the products x[i] * y[i].
    template <class T>
    static T dot(const T* x, const T* y, std::uint64_t len)
    {
        static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>,
                      "treefold: the dot kernels are precompiled for double and float");
        if (len < scalar_below) {
            return dot_scalar::dot(x, y, len);
        }
        static const detail::products_fn<T> fn = detail::builtin_products_kernel<T>();
        return fn(x, y, len);
    }
    /// The node over x[i].
    template <class T>
    static T sum(const T* x, std::uint64_t len)
    {
        ops::plus op;
        return best::reduce_node(x, len, op);
    }
};

} // namespace treefold::kernel
