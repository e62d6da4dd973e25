#pragma once
/// Row kernels of the distributed sum of outer products (no MPI): the outer-product update of
/// one row, and the sum of a sequence of rows along the fixed tree. Element-wise xsimd
/// operations only: lanes never mix, so vectorising changes no bits.

#include "treefold/config.hpp"
#include "treefold/kernel/rows.hpp"

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace treefold::dsop {

namespace detail {

/// out[j] = f(at) for j < out.size(), where at(p) reads p[j]: whole xsimd batches first (at
/// loads the batch at p + j), then the elements left over one by one. Every element gets
/// the operations `f` spells, in its order.
template <class T, class F>
void lanewise(std::span<T> out, F f)
{
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    const std::size_t m = out.size();
    std::size_t j = 0;
    for (; j + w <= m; j += w) {
        f([j](const T* p) { return batch::load_unaligned(p + j); }).store_unaligned(out.data() + j);
    }
    for (; j < m; ++j) {
        out[j] = f([j](const T* p) { return p[j]; });
    }
}

} // namespace detail

/// g[j] += s * b[j] for j < g.size() (a multiply then an add: never fused).
template <class T>
void add_scaled_row(std::span<T> g, T s, std::span<const T> b)
{
    detail::lanewise(g, [&](auto at) {
        using lanes = decltype(at(b.data())); // a batch, or T for the elements left over
        const lanes prod = lanes(s) * at(b.data());
        return at(g.data()) + prod;
    });
}

/// out[j] = s * b[j].
template <class T>
void scaled_row(std::span<T> out, T s, std::span<const T> b)
{
    detail::lanewise(out, [&](auto at) {
        using lanes = decltype(at(b.data()));
        return lanes(s) * at(b.data());
    });
}

/// left[j] = left[j] + right[j].
template <class T>
void add_rows(std::span<T> left, std::span<const T> right)
{
    detail::lanewise(left, [&](auto at) { return at(left.data()) + at(right.data()); });
}

/// Row i of the tree sum over k of a_k b_k^T: out[j] = tree-sum over k < K of a[k][i] * b[k][j],
/// where a is K x n and b is K x m, row-major. The tree is the global-index tree over k, so
/// the result equals the oracle's for every entry. `stack` is scratch (reused, grows once).
template <class T>
void tree_row(std::span<T> out, std::size_t i, std::span<const T> a, std::size_t n, std::span<const T> b,
              std::size_t m, std::size_t k_count, std::vector<T>& stack)
{
    if (k_count == 0) {
        return;
    }
    stack.resize(65 * m);
    kernel::row_tree(
        k_count, m, stack.data(), out.data(),
        [&](std::uint64_t k, T* spare) {
            const auto kk = static_cast<std::size_t>(k);
            scaled_row<T>(std::span<T>(spare, m), a[kk * n + i], b.subspan(kk * m, m));
            return spare;
        },
        [m](T* left, const T* right) { add_rows<T>(std::span<T>(left, m), std::span<const T>(right, m)); });
}

} // namespace treefold::dsop
