#pragma once
/// Row kernels: every element is a row of k values (row-major), and all k columns go
/// through the same tree in one pass. Column c of the result is exactly the tree of column
/// c, so it has the bits of kernel::scalar run on that column alone.
///
/// The tree is walked as kernel::scalar walks it (a binary counter over rows); each
/// operator call combines two whole rows, W columns per register (W = the batch width),
/// and the last k mod W columns in one padded register. Rows are independent across columns,
/// so no lane ever needs to move: only vertical operator calls.

#include "treefold/config.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"

#include <xsimd/xsimd.hpp>

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace treefold::kernel {

/// The binary counter of kernel::scalar with rows of k values as elements: the one tree walk
/// of every row kernel (rows<Arch>, row_reducer's scalar fallback, dsop's tree rows).
/// `row(j, spare)` returns row j: a pointer to it, or `spare` (room for k values) after
/// writing it there. `combine(left, right)` sets left[c] = op(left[c], right[c]) for every
/// column c. `stack` holds rows<Arch>::scratch_size(len, k) values (any Arch); out receives
/// the k values of the root (len > 0, k > 0, out outside the stack).
template <class T, class Row, class Combine>
void row_tree(std::uint64_t len, std::size_t k, T* stack, T* out, Row&& row, Combine&& combine)
{
    assert(len > 0 && k > 0);
    std::size_t depth = 0;
    auto slot = [&](std::size_t d) { return stack + d * k; };
    auto copy = [k](const T* from, T* to) {
        for (std::size_t c = 0; c < k; ++c) {
            to[c] = from[c];
        }
    };
    for (std::uint64_t j = 0; j < len; ++j) {
        const T* next = row(j, slot(depth));
        int pairs = std::countr_zero(j + 1);
        if (pairs == 0) {
            if (next != slot(depth)) {
                copy(next, slot(depth));
            }
            ++depth;
            continue;
        }
        // The new row is a right child: combine into its left sibling in place, then keep
        // climbing while the result is a right child too.
        combine(slot(depth - 1), next);
        for (--pairs; pairs > 0; --pairs) {
            combine(slot(depth - 2), slot(depth - 1));
            --depth;
        }
    }
    // Clipped right edge: fold the pending nodes right to left (pass-through rule).
    while (depth > 1) {
        combine(slot(depth - 2), slot(depth - 1));
        --depth;
    }
    copy(slot(0), out);
}

/// Row kernel policy on xsimd architecture `Arch`: row_tree with W columns per operator
/// call.
template <class Arch>
struct rows {
    /// Values of scratch space reduce() and row_tree need for len rows of k values: one row
    /// per tree level that can be pending (the binary counter's stack, the spare row
    /// included). A member, not a free function: code instantiated in a per-architecture TU
    /// must be templated on Arch (see below).
    static constexpr std::size_t scratch_size(std::uint64_t len, std::size_t k)
    {
        return (static_cast<std::size_t>(std::bit_width(len)) + 1) * k;
    }

    /// out[c] = the tree over column c of the `len` rows of `k` values at `first`
    /// (len > 0, k > 0; out must not overlap the input). `Op` must be callable on T and on
    /// xsimd::batch<T, Arch> with the same lane-wise bits. `scratch` (scratch_size(len, k)
    /// values) may be null, and is then allocated for the call.
    template <class T, class Op>
    static void reduce(const T* first, std::uint64_t len, std::size_t k, Op& op, T* out, T* scratch = nullptr)
    {
        buffer<T> own(scratch == nullptr ? scratch_size(len, k) : 0);
        // row_tree itself is not templated on Arch, but these closures are local to
        // rows<Arch>, so its instantiations here still carry the architecture's name.
        row_tree(len, k, scratch == nullptr ? own.data : scratch, out,
                 [first, k](std::uint64_t j, T*) { return first + j * k; },
                 [&op, k](T* left, const T* right) { combine(left, right, k, op); });
    }

private:
    // Own helpers instead of std::vector / std::copy: code instantiated in a per-architecture
    // TU must be templated on Arch, or the linker might keep the AVX-512 copy for everyone.
    template <class T>
    struct buffer {
        explicit buffer(std::size_t n) : data(n == 0 ? nullptr : new T[n]) {}
        buffer(const buffer&) = delete;
        buffer& operator=(const buffer&) = delete;
        ~buffer() { delete[] data; }
        T* data;
    };

    /// left[c] = op(left[c], right[c]) for every column c.
    template <class T, class Op>
    static void combine(T* left, const T* right, std::size_t k, Op& op)
    {
        using batch = xsimd::batch<T, Arch>;
        constexpr std::size_t width = batch::size;
        std::size_t c = 0;
        for (; k - c >= width; c += width) {
            const batch a = batch::load_unaligned(left + c);
            const batch b = batch::load_unaligned(right + c);
            batch(op(std::as_const(a), std::as_const(b))).store_unaligned(left + c);
        }
        if (c < k) {
            // The last k mod W columns through a padded register (padding repeats a real
            // column and is not stored back).
            alignas(Arch::alignment()) T a[width];
            alignas(Arch::alignment()) T b[width];
            for (std::size_t l = 0; l < width; ++l) {
                const std::size_t col = c + l < k ? c + l : c;
                a[l] = left[col];
                b[l] = right[col];
            }
            batch(op(batch::load_aligned(a), batch::load_aligned(b))).store_aligned(a);
            for (; c < k; ++c) {
                left[c] = a[c % width];
            }
        }
    }
};

namespace detail {

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

/// Whether the SIMD kernels call `Op` on xsimd::batch<T, Arch>: a SIMD candidate
/// (kernel/dispatch.hpp) that is callable on batches.
template <class Op, class T, class Arch>
inline constexpr bool batch_callable =
    std::conjunction_v<std::bool_constant<simd_candidate<Op, T>>, batch_callable_check<Op, T, Arch>>;

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

namespace detail {

/// kernel::dispatch's path for rows under ops::columnwise.
template <class Arch>
struct row_path {
    template <class T, class Op>
    static void reduce(const T* first, std::uint64_t len, std::size_t k, Op& op, T* out)
    {
        reduce_rows<Arch>(first, len, k, op, out);
    }
};

} // namespace detail

} // namespace treefold::kernel
