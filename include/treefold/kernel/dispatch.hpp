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

#include <xsimd/config/xsimd_arch.hpp>

#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

// The scalar local kernel: the value of one tree node from the elements it covers.
// 
// A local kernel is a policy type K with
// template <class T, class Op> static T K::reduce_node(const T* first, std::uint64_t len, Op& op);
// returning the value of a node whose cover [x, x + len) starts at `first` (x is aligned
// to the node's level, and len is 2^level, or less when the cover is clipped at N). The
// tree inside depends on len alone, so the caller need not pass x. The SIMD kernels
// (kernel/simd.hpp) implement the same contract and must return the same bits.
namespace treefold::kernel {

/// A fixed-capacity stack of values in raw storage: no allocation, no default constructor
/// needed. One entry per tree level is enough.
template <class T, std::size_t Capacity = 65>
class value_stack {
public:
    value_stack() = default;
    value_stack(const value_stack&) = delete;
    value_stack& operator=(const value_stack&) = delete;
    ~value_stack() { clear(); }

    /// Pushes `v` (size() must be below Capacity).
    void push(T v)
    {
        assert(size_ < Capacity);
        ::new (static_cast<void*>(slot(size_))) T(std::move(v));
        ++size_;
    }
    /// Removes the top value and returns it (the stack must not be empty).
    T pop()
    {
        assert(size_ > 0);
        --size_;
        T v = std::move(*slot(size_));
        std::destroy_at(slot(size_));
        return v;
    }
    /// The top value (the stack must not be empty).
    T& top() { return *slot(size_ - 1); }
    /// The number of values held.
    std::size_t size() const { return size_; }
    /// Whether no value is held.
    bool empty() const { return size_ == 0; }
    /// Destroys every value held.
    void clear()
    {
        while (size_ > 0) {
            --size_;
            std::destroy_at(slot(size_));
        }
    }

private:
    T* slot(std::size_t i) { return std::launder(reinterpret_cast<T*>(storage_ + i * sizeof(T))); }
    alignas(T) unsigned char storage_[Capacity * sizeof(T)];
    std::size_t size_ = 0;
};

/// Scalar kernel: a binary counter over the elements. After element j (0-based) is pushed,
/// ctz(j + 1) complete sibling pairs sit on top of the stack and are combined, exactly as
/// the tree pairs them. What is left at the end are the clipped right edge's nodes, each a
/// left child whose right sibling is partial; folding them right to left applies the
/// pass-through rule (a lone left child is copied, never combined with an identity).
///
/// scalar_tree is that counter over leaves made on the fly (`leaf(j)`, j in [0, len), len > 0):
/// the sums of products (kernel/dot.hpp) use it on products never stored.
template <class T, class Leaf, class Op>
T scalar_tree(std::uint64_t len, Leaf&& leaf, Op& op)
{
    assert(len > 0);
    value_stack<T> stack;
    for (std::uint64_t j = 0; j < len; ++j) {
        T acc = leaf(j);
        for (int pairs = std::countr_zero(j + 1); pairs > 0; --pairs) {
            acc = op(std::as_const(stack.top()), std::as_const(acc));
            stack.pop();
        }
        stack.push(std::move(acc));
    }
    T acc = stack.pop();
    while (!stack.empty()) {
        acc = op(std::as_const(stack.top()), std::as_const(acc));
        stack.pop();
    }
    return acc;
}

/// The scalar kernel policy (see scalar_tree).
struct scalar {
    /// Value of the node covering first[0, len) (len > 0), one element at a time.
    template <class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op)
    {
        return scalar_tree<T>(len, [first](std::uint64_t j) -> const T& { return first[j]; }, op);
    }
};

/// The tree over the N values at x (N >= 1) as straight-line code: the left child covers
/// the largest power of two below N, the right child the rest, passed through where it is
/// a lone left child (the tree of kernel::scalar, hence its bits).
template <std::uint64_t N, class T, class Op>
T unrolled_node(const T* x, Op& op)
{
    if constexpr (N == 1) {
        return x[0];
    } else {
        constexpr std::uint64_t half = std::bit_ceil(N) / 2;
        const T left = unrolled_node<half>(x, op);
        const T right = unrolled_node<N - half>(x + half, op);
        return op(left, right);
    }
}

namespace detail {
/// The node over x[0, len), 1 <= len <= 2^Levels: the tree of its level-`Levels` cover. Where
/// the right child is empty (len <= 2^(Levels-1)) the left one passes through; otherwise the
/// full left child is straight-line code and the right child the same recursion one level down.
template <unsigned Levels, class T, class Op>
T clipped_node(const T* x, std::uint64_t len, Op& op)
{
    if constexpr (Levels == 0) {
        return x[0];
    } else {
        constexpr std::uint64_t half = std::uint64_t{1} << (Levels - 1);
        if (len <= half) {
            return clipped_node<Levels - 1>(x, len, op);
        }
        const T left = unrolled_node<half>(x, op);
        const T right = clipped_node<Levels - 1>(x + half, len - half, op);
        return op(left, right);
    }
}
} // namespace detail

/// kernel::scalar::reduce_node for 1 <= len <= Max <= 256: straight-line code for the node's
/// full subtrees, one comparison per level of its cover, without the counter's stack.
template <std::uint64_t Max, class T, class Op>
T small_node(const T* x, std::uint64_t len, Op& op)
{
    static_assert(Max >= 1 && Max <= 256, "small_node: the unrolled trees stop at 256 values");
    assert(len >= 1 && len <= Max);
    return detail::clipped_node<static_cast<unsigned>(std::bit_width(Max - 1))>(x, len, op);
}

} // namespace treefold::kernel

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
