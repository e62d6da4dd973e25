#pragma once
/// kernel::best, the default local kernel: picks, per call site, the fastest kernel that
/// gives the scalar tree's bits.
///
/// - Built-in operator and element type (ops::plus/multiplies/min/max, std::plus and
///   std::multiplies of the type; double, float, int32, int64): the precompiled kernel of
///   the best architecture the running CPU supports (avx512f, avx2, sse2), chosen once per
///   process. One libtreefold.a therefore runs on CPUs without AVX-512.
/// - Rows (std::array<U, K>) under ops::columnwise<built-in>: the precompiled row kernel,
///   SIMD across the K columns.
/// - Another operator opted in by kernel::allow_simd (below) and callable on
///   xsimd::batch<T, Arch>: the header-only simd<Arch> kernel, Arch being the best architecture
///   the including translation unit is compiled for (xsimd::default_arch: sse2 unless you pass
///   -mavx2 or -mavx512f).
/// - Anything else (any callable not opted in, a generic lambda included): kernel::scalar,
///   which calls the operator with T only.

#include "treefold/config.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/kernel/scalar.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/detail/kernel/simd_impl.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

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

template <class T>
using row_fn = void (*)(const T*, std::uint64_t, std::size_t, T*, T*);

/// Scratch rows for the row kernels, per thread; grows, never shrinks, so calls allocate
/// only while the largest node seen so far grows.
template <class T>
T* row_scratch(std::uint64_t len, std::size_t k)
{
    thread_local std::vector<T> buffer;
    const std::size_t need = rows<xsimd::sse2>::scratch_size(len, k);
    if (buffer.size() < need) {
        buffer.resize(need);
    }
    return buffer.data();
}

/// The precompiled row kernel for (T, Kind) on the best supported architecture.
template <class T, ops::builtin_kind Kind>
row_fn<T> builtin_row_kernel() noexcept;

template <class Op, class T, class Arch>
struct batch_callable_check
    : std::bool_constant<std::is_invocable_v<Op&, const xsimd::batch<T, Arch>&, const xsimd::batch<T, Arch>&>> {};

/// Element types the SIMD kernels support: those xsimd 8.1 can swizzle on every x86 arch.
template <class T>
inline constexpr bool simd_element =
    std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;

template <class Op, class T, class Arch>
inline constexpr bool batch_callable =
    std::conjunction_v<std::bool_constant<simd_element<T>>, allow_simd<Op>, batch_callable_check<Op, T, Arch>>;

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

/// Row kernel: out[c] = the tree over column c of the `len` rows of `k` values at `first`: the
/// precompiled row kernel for a built-in operator, rows<Arch> for another operator callable
/// on batches, row_tree with scalar operator calls otherwise.
template <class Arch, class T, class Op>
void reduce_rows(const T* first, std::uint64_t len, std::size_t k, Op& op, T* out)
{
    using O = std::remove_cv_t<Op>;
    constexpr ops::builtin_kind kind = ops::builtin_kind_of<O, T>;
    T* const scratch = detail::row_scratch<T>(len, k);
    if constexpr (ops::is_builtin_type<T> && kind != ops::builtin_kind::none) {
        static const detail::row_fn<T> fn = detail::builtin_row_kernel<T, kind>();
        fn(first, len, k, out, scratch);
    } else if constexpr (detail::batch_callable<O, T, Arch>) {
        rows<Arch>::reduce(first, len, k, op, out, scratch);
    } else {
        row_tree(len, k, scratch, out, [first, k](std::uint64_t j, T*) { return first + j * k; },
                 [&op, k](T* left, const T* right) {
                     for (std::size_t c = 0; c < k; ++c) {
                         left[c] = op(std::as_const(left[c]), right[c]);
                     }
                 });
    }
}

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
            T out;
            reduce_rows<Arch>(first->data(), len, row_of<T>::columns, op.op, out.data());
            return out;
        } else if constexpr (batch_callable<O, T, Arch>) {
            if (len < scalar_below) {
                return small_node<scalar_below - 1>(first, len, op);
            }
            return simd<Arch>::reduce_node(first, len, op);
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
