#pragma once
/// The built-in reduction operators, usable on scalars and on xsimd batches alike.
///
/// Each functor gives the same bits lane by lane as on a scalar, so a kernel may apply it to
/// a whole register of independent tree nodes. Kernels recognise these (and std::plus /
/// std::multiplies of the element type) and route them to the precompiled per-architecture
/// instantiations; any other operator callable on batches takes the header-only SIMD path.

#include "treefold/config.hpp"
#include "treefold/kernel/builtins.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace treefold::ops {

/// A SIMD batch (xsimd) of signed integers.
template <class T>
concept signed_lanes = requires { typename T::value_type; typename T::arch_type; } &&
                       std::is_integral_v<typename T::value_type> && std::is_signed_v<typename T::value_type>;

/// The batch of the same architecture with the unsigned lane type.
template <class B>
struct unsigned_lanes;
template <template <class, class> class Batch, class S, class A>
struct unsigned_lanes<Batch<S, A>> {
    using type = Batch<std::make_unsigned_t<S>, A>;
};

/// a + b (signed integers wrap modulo 2^bits).
struct plus {
    template <class T>
    constexpr T operator()(const T& a, const T& b) const
    {
        if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
            // Wrap like the SIMD lanes do (no undefined overflow).
            using U = std::make_unsigned_t<T>;
            return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
        } else {
            return a + b;
        }
    }
};

/// a * b (signed integers wrap modulo 2^bits).
struct multiplies {
    template <class T>
    constexpr T operator()(const T& a, const T& b) const
    {
        if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
            using U = std::make_unsigned_t<T>;
            return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
        } else if constexpr (signed_lanes<T>) {
            // A batch of signed integers: xsimd multiplies some lane types one scalar at a
            // time, where signed overflow is undefined; unsigned lanes wrap with the same bits.
            using U = typename unsigned_lanes<T>::type;
            return bitwise_cast<T>(bitwise_cast<U>(a) * bitwise_cast<U>(b)); // xsimd's, found by ADL
        } else {
            return a * b;
        }
    }
};

/// std::min(a, b): `b < a ? b : a`, the same rule for NaN and signed zeros on every lane
/// (the hardware min instructions pick a different operand for those).
struct min {
    template <class T>
    constexpr T operator()(const T& a, const T& b) const
    {
        if constexpr (std::is_arithmetic_v<T>) {
            return b < a ? b : a;
        } else {
            return select(b < a, b, a); // found by ADL on xsimd::batch
        }
    }
};

/// std::max(a, b): `a < b ? b : a`, lane by lane (see min).
struct max {
    template <class T>
    constexpr T operator()(const T& a, const T& b) const
    {
        if constexpr (std::is_arithmetic_v<T>) {
            return a < b ? b : a;
        } else {
            return select(a < b, b, a);
        }
    }
};

/// Applies `Op` column by column to rows (std::array<T, k>): the reduction of vector
/// elements, every column through the same tree.
template <class Op>
struct columnwise {
    Op op{};
    template <class T, std::size_t K>
    constexpr std::array<T, K> operator()(const std::array<T, K>& a, const std::array<T, K>& b) const
    {
        std::array<T, K> out{};
        for (std::size_t c = 0; c < K; ++c) {
            out[c] = op(a[c], b[c]);
        }
        return out;
    }
};

/// Which built-in operator a functor is, for element type T (none for anything else).
#define TREEFOLD_KERNEL_ENUMERATOR(A, OP) , OP
enum class builtin_kind { none TREEFOLD_KERNEL_OPS(TREEFOLD_KERNEL_ENUMERATOR, ) };
#undef TREEFOLD_KERNEL_ENUMERATOR

template <class Op, class T>
inline constexpr builtin_kind builtin_kind_of = builtin_kind::none;
#define TREEFOLD_KERNEL_KIND_OF(A, OP) \
    template <class T>                 \
    inline constexpr builtin_kind builtin_kind_of<OP, T> = builtin_kind::OP;
TREEFOLD_KERNEL_OPS(TREEFOLD_KERNEL_KIND_OF, )
#undef TREEFOLD_KERNEL_KIND_OF
template <class T>
inline constexpr builtin_kind builtin_kind_of<std::plus<T>, T> = builtin_kind::plus;
template <class T>
inline constexpr builtin_kind builtin_kind_of<std::plus<>, T> = builtin_kind::plus;
template <class T>
inline constexpr builtin_kind builtin_kind_of<std::multiplies<T>, T> = builtin_kind::multiplies;
template <class T>
inline constexpr builtin_kind builtin_kind_of<std::multiplies<>, T> = builtin_kind::multiplies;

/// Element types with precompiled kernels.
#define TREEFOLD_KERNEL_IS_SAME(T, U) || std::is_same_v<T, U>
template <class T>
inline constexpr bool is_builtin_type = false TREEFOLD_KERNEL_TYPES(TREEFOLD_KERNEL_IS_SAME, T);
#undef TREEFOLD_KERNEL_IS_SAME

} // namespace treefold::ops
