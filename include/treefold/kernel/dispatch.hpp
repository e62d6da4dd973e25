#pragma once
/// kernel::best, the default local kernel: picks, per call site, the fastest kernel that
/// gives the scalar tree's bits.
///
/// - Built-in operator and element type (ops::plus/multiplies/min/max, std::plus and
///   std::multiplies of the type; double, float, int32, int64): the precompiled kernel of
///   the best architecture the running CPU supports (avx512f, avx2, sse2), chosen once per
///   process. One libtreefold.a therefore runs on CPUs without AVX-512.
/// - Rows (std::array<U, K>) under ops::columnwise: kernel::reduce_rows (kernel/rows.hpp,
///   which row_reducer.hpp includes): the precompiled row kernel for a built-in operator, SIMD
///   across the K columns.
/// - Another operator that may run on xsimd batches (opted in by kernel::allow_simd, below, or
///   a treefold operator on an element type without a precompiled kernel, such as
///   std::uint64_t): the header-only simd<Arch> kernel, Arch being the best architecture the
///   including translation unit is compiled for (xsimd::default_arch: sse2 unless you pass
///   -mavx2 or -mavx512f). It lives in kernel/simd_ops.hpp, which such a program includes.
/// - Anything else (any callable not opted in, a generic lambda included): kernel::scalar,
///   which calls the operator with T only.
///
/// The two header-only paths stay out of this header so that a program on built-in operators
/// does not compile them; a program that needs one and lacks its header stops at compile time
/// with a message naming the header.

#include "treefold/config.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/scalar.hpp"

#include <xsimd/config/xsimd_arch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace treefold::kernel {

/// Whether the SIMD kernels may call `Op` with xsimd batches instead of T: true for treefold's
/// own operators (ops::plus, multiplies, min, max, std::plus<>, std::multiplies<>), false for
/// every other operator, which is then only ever called with T (so a generic lambda such as
/// `[](auto a, auto b) { return a < b ? b : a; }` compiles and runs on the scalar kernel).
/// Opt an operator in when its body, called with two batches, computes lane by lane exactly
/// what it computes on two scalars (xsimd's arithmetic, xsimd::select for a choice):
///
///     template <> struct treefold::kernel::allow_simd<my_op> : std::true_type {};
///
/// Every kernel gives the scalar tree's bits for such an operator; an operator that is not
/// lane-wise (a branch on a comparison, a call of a scalar function) must not be opted in.
template <class Op>
struct allow_simd : std::bool_constant<ops::is_treefold_op<Op>> {};

namespace detail {

template <class T, ops::builtin_kind Kind>
using builtin_fn = T (*)(const T*, std::uint64_t);

/// The precompiled kernel for (T, Kind) on the best supported architecture (src/kernel).
template <class T, ops::builtin_kind Kind>
builtin_fn<T, Kind> builtin_kernel() noexcept;

/// small_node for (T, Kind), precompiled in libtreefold (nodes below dispatch::scalar_below).
template <class T, ops::builtin_kind Kind>
T builtin_small_node(const T* first, std::uint64_t len);

/// The kernel for nodes below dispatch::scalar_below: for plus and multiplies on avx2 and
/// avx512f the precompiled SIMD kernel (its short path, folder::run_short), else
/// builtin_small_node.
template <class T, ops::builtin_kind Kind>
builtin_fn<T, Kind> builtin_short_kernel() noexcept;

/// Element types the SIMD kernels support: those xsimd 8.1 can swizzle on every x86 arch.
template <class T>
inline constexpr bool simd_element =
    std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;

/// Whether `Op` on T takes the header-only SIMD path (kernel/simd_ops.hpp), which calls it on
/// batches where it is callable on them and on T otherwise.
template <class Op, class T>
inline constexpr bool simd_candidate = simd_element<T> && allow_simd<Op>::value;

/// The header-only paths, each defined in the header a program that needs it includes:
/// row_path<Arch>::reduce (kernel/rows.hpp) and simd_path<Arch>::reduce_node
/// (kernel/simd_ops.hpp).
template <class Arch>
struct row_path;
template <class Arch>
struct simd_path;

/// True where `P`'s definition has been seen.
template <class P>
concept defined = requires { sizeof(P); };

template <class T>
struct row_of : std::false_type {};
template <class U, std::size_t K>
struct row_of<std::array<U, K>> : std::true_type {
    using value_type = U;
    static constexpr std::size_t columns = K;
};

template <class Op>
struct columnwise_of : std::false_type {};
template <class Inner>
struct columnwise_of<ops::columnwise<Inner>> : std::true_type {
    using inner = Inner;
};

} // namespace detail

/// Dispatching kernel policy (see the file comment); `Arch` is only used for operators
/// without precompiled kernels.
template <class Arch = xsimd::default_arch>
struct dispatch {
    /// The kernel's name (the C API's "kernel" option).
    static constexpr const char* name = "best";
    /// Nodes shorter than this take the scalar tree as straight-line code (small_node: the same
    /// tree, hence the same bits; precompiled for the built-in operators), except plus and
    /// multiplies on avx2 and avx512f from short_simd_from values on, which take the SIMD
    /// kernel's short path (full power-of-two pieces folded in registers). Below 256 values
    /// either is faster than the SIMD kernel's general path, whose last levels are a chain of
    /// permutes, selects and operator calls a node this short cannot amortise
    /// (doc/performance.md, "Small nodes").
    static constexpr std::uint64_t scalar_below = 256;
    /// Below this plus and multiplies keep the straight-line scalar tree too (called directly,
    /// without the architecture's function pointer): the SIMD short path gains little or
    /// loses there (doc/performance.md, "Small nodes").
    static constexpr std::uint64_t short_simd_from = 32;

    /// Same contract as kernel::scalar::reduce_node.
    template <class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op)
    {
        using namespace detail;
        using O = std::remove_cv_t<Op>;
        constexpr ops::builtin_kind kind = ops::builtin_kind_of<O, T>;
        if constexpr (ops::is_builtin_type<T> && kind != ops::builtin_kind::none) {
            if (len < scalar_below) {
                if (len < short_simd_from) {
                    return builtin_small_node<T, kind>(first, len);
                }
                static const builtin_fn<T, kind> short_fn = builtin_short_kernel<T, kind>();
                return short_fn(first, len);
            }
            static const builtin_fn<T, kind> fn = builtin_kernel<T, kind>();
            return fn(first, len);
        } else if constexpr (row_of<T>::value && columnwise_of<O>::value) {
            static_assert(sizeof(T) == sizeof(typename row_of<T>::value_type) * row_of<T>::columns,
                          "rows must be contiguous");
            static_assert(defined<row_path<Arch>>,
                          "treefold: rows (std::array) under ops::columnwise need #include <treefold/kernel/rows.hpp> "
                          "(or <treefold/row_reducer.hpp>)");
            T out;
            row_path<Arch>::reduce(first->data(), len, row_of<T>::columns, op.op, out.data());
            return out;
        } else if constexpr (simd_candidate<O, T>) {
            static_assert(defined<simd_path<Arch>>,
                          "treefold: this operator may run on SIMD batches (kernel::allow_simd, or a treefold operator "
                          "on a type without a precompiled kernel): #include <treefold/kernel/simd_ops.hpp>");
            return simd_path<Arch>::template reduce_node<scalar_below>(first, len, op);
        } else {
            return scalar::reduce_node(first, len, op);
        }
    }
};

/// The default kernel of treefold::reducer.
using best = dispatch<>;

/// Name of the architecture kernel::best uses for built-in operators on this CPU.
const char* best_arch_name() noexcept;

} // namespace treefold::kernel
