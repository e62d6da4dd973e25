#pragma once
/// The built-in reduction operators, usable on scalars and on xsimd batches alike.
///
/// Each functor gives the same bits lane by lane as on a scalar, so a kernel may apply it to
/// a whole register of independent tree nodes. Kernels recognise these (and std::plus /
/// std::multiplies of the element type) and route them to the precompiled per-architecture
/// instantiations; another operator takes the header-only SIMD path only when opted in by
/// kernel::allow_simd (kernel/dispatch.hpp), else the scalar kernel.

#include "treefold/config.hpp"

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

// The one list of element types and operators with precompiled kernels. Everything that
// enumerates them is generated from it: ops::builtin_kind and ops::is_builtin_type
// (ops.hpp), the extern declarations (simd.hpp), the per-architecture instantiations
// (src/kernel/arch_instantiate.hpp) and the dispatch accessors (src/kernel/dispatch.cpp).
//
// TREEFOLD_KERNEL_TYPES(X, A) expands X(A, T) for every element type T;
// TREEFOLD_KERNEL_OPS(X, A) expands X(A, OP) for every operator ops::OP (which is also the
// enumerator ops::builtin_kind::OP), in that order; A is passed through (it may be empty).
// TREEFOLD_KERNEL_EACH(X) expands X(T, OP) for every pair.
#define TREEFOLD_KERNEL_TYPES(X, A) X(A, double) X(A, float) X(A, std::int32_t) X(A, std::int64_t)
#define TREEFOLD_KERNEL_OPS(X, A) X(A, plus) X(A, multiplies) X(A, min) X(A, max)
#define TREEFOLD_KERNEL_EACH(X) TREEFOLD_KERNEL_TYPES(TREEFOLD_KERNEL_OPS, X)

namespace treefold::ops {

/// A SIMD batch (xsimd) of signed integers.
template <class T>
concept signed_lanes = requires { typename T::value_type; typename T::arch_type; } &&
                       std::is_integral_v<typename T::value_type> && std::is_signed_v<typename T::value_type>;

/// The batch of the same architecture with the unsigned lane type.
template <class B>
struct unsigned_lanes;
/// For a batch `Batch<S, A>`: `Batch<std::make_unsigned_t<S>, A>`.
template <template <class, class> class Batch, class S, class A>
struct unsigned_lanes<Batch<S, A>> {
    using type = Batch<std::make_unsigned_t<S>, A>; ///< the batch with unsigned lanes
};

/// a + b (signed integers wrap modulo 2^bits).
struct plus {
    /// a + b, for scalars and xsimd batches alike.
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
    /// a * b, for scalars and xsimd batches alike.
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
    /// `b < a ? b : a` (lane by lane on xsimd batches).
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
    /// `a < b ? b : a` (lane by lane on xsimd batches).
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
    Op op{}; ///< the operator applied to each column
    /// The row whose column c is op(a[c], b[c]).
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

#define TREEFOLD_KERNEL_ENUMERATOR(A, OP) , OP
/// The built-in operators with precompiled kernels: none, plus, multiplies, min, max.
enum class builtin_kind { none TREEFOLD_KERNEL_OPS(TREEFOLD_KERNEL_ENUMERATOR, ) };
#undef TREEFOLD_KERNEL_ENUMERATOR

/// Which built-in operator a functor is, for element type T (none for anything else;
/// std::plus and std::multiplies count as plus and multiplies).
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

/// Operators treefold knows (the built-ins above, std::plus / std::multiplies, and columnwise
/// of them): their NaN results are the canonical quiet NaN (see canonical_nan_result).
template <class Op>
inline constexpr bool is_treefold_op =
    std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies> || std::is_same_v<Op, min> ||
    std::is_same_v<Op, max> || std::is_same_v<Op, std::plus<>> || std::is_same_v<Op, std::multiplies<>>;
template <class U>
inline constexpr bool is_treefold_op<std::plus<U>> = true;
template <class U>
inline constexpr bool is_treefold_op<std::multiplies<U>> = true;
/// columnwise of an operator treefold knows is one too.
template <class Inner>
inline constexpr bool is_treefold_op<columnwise<Inner>> = is_treefold_op<Inner>;

/// The result of a reduction of N = 0 values under Op on T, where Op has an identity.
/// treefold defines it for plus and multiplies (std::plus, std::multiplies too) on arithmetic
/// and std::complex types (0 and 1), min and max on arithmetic types (+inf / -inf for floating
/// point, the type's largest / lowest value for integers), and columnwise of those on rows. A
/// user operator gets one by specialising this template with `static T value()`:
///
///     template <> struct treefold::ops::identity<my_op, double> {
///         static double value() { return 0.0; }
///     };
///
/// Without one, a reduction of N = 0 values throws std::domain_error on every rank.
template <class Op, class T>
struct identity {};

/// True when identity<Op, T> gives a value.
template <class Op, class T>
concept has_identity = requires {
    { identity<Op, T>::value() } -> std::convertible_to<T>;
};

namespace detail {
template <class T>
inline constexpr bool complex_type = false;
template <class U>
inline constexpr bool complex_type<std::complex<U>> = true;
template <class T>
concept ring_element = std::is_arithmetic_v<T> || complex_type<T>;
template <class Op>
inline constexpr bool is_sum = std::is_same_v<Op, plus> || std::is_same_v<Op, std::plus<>>;
template <class Op>
inline constexpr bool is_product = std::is_same_v<Op, multiplies> || std::is_same_v<Op, std::multiplies<>>;
template <class U>
inline constexpr bool is_sum<std::plus<U>> = true;
template <class U>
inline constexpr bool is_product<std::multiplies<U>> = true;
} // namespace detail

/// Sums of arithmetic and std::complex values: 0.
template <class Op, detail::ring_element T>
    requires detail::is_sum<Op>
struct identity<Op, T> {
    /// T(0).
    static T value() { return T(0); }
};
/// Products of arithmetic and std::complex values: 1.
template <class Op, detail::ring_element T>
    requires detail::is_product<Op>
struct identity<Op, T> {
    /// T(1).
    static T value() { return T(1); }
};
/// min on arithmetic types: the largest value.
template <class T>
    requires std::is_arithmetic_v<T>
struct identity<min, T> {
    /// +inf for floating point, else the type's largest value.
    static T value()
    {
        if constexpr (std::numeric_limits<T>::has_infinity) {
            return std::numeric_limits<T>::infinity();
        } else {
            return std::numeric_limits<T>::max();
        }
    }
};
/// max on arithmetic types: the lowest value.
template <class T>
    requires std::is_arithmetic_v<T>
struct identity<max, T> {
    /// -inf for floating point, else the type's lowest value.
    static T value()
    {
        if constexpr (std::numeric_limits<T>::has_infinity) {
            return -std::numeric_limits<T>::infinity();
        } else {
            return std::numeric_limits<T>::lowest();
        }
    }
};
/// columnwise<Inner> on rows: Inner's identity in every column.
template <class Inner, class U, std::size_t K>
    requires has_identity<Inner, U>
struct identity<columnwise<Inner>, std::array<U, K>> {
    /// A row filled with identity<Inner, U>::value().
    static std::array<U, K> value()
    {
        std::array<U, K> out;
        out.fill(identity<Inner, U>::value());
        return out;
    }
};

#define TREEFOLD_KERNEL_IS_SAME(T, U) || std::is_same_v<T, U>
/// Whether T is an element type with precompiled kernels (double, float, std::int32_t,
/// std::int64_t).
template <class T>
inline constexpr bool is_builtin_type = false TREEFOLD_KERNEL_TYPES(TREEFOLD_KERNEL_IS_SAME, T);
#undef TREEFOLD_KERNEL_IS_SAME

} // namespace treefold::ops
