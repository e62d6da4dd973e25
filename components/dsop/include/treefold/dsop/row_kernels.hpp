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

/// g[j] += s * b[j] for j < g.size() (a multiply then an add: never fused).
template <class T>
void add_scaled_row(std::span<T> g, T s, std::span<const T> b)
{
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    const std::size_t m = g.size();
    const batch vs(s);
    std::size_t j = 0;
    for (; j + w <= m; j += w) {
        const batch prod = vs * batch::load_unaligned(b.data() + j);
        (batch::load_unaligned(g.data() + j) + prod).store_unaligned(g.data() + j);
    }
    for (; j < m; ++j) {
        const T prod = s * b[j];
        g[j] = g[j] + prod;
    }
}

/// out[j] = s * b[j].
template <class T>
void scaled_row(std::span<T> out, T s, std::span<const T> b)
{
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    const std::size_t m = out.size();
    const batch vs(s);
    std::size_t j = 0;
    for (; j + w <= m; j += w) {
        (vs * batch::load_unaligned(b.data() + j)).store_unaligned(out.data() + j);
    }
    for (; j < m; ++j) {
        out[j] = s * b[j];
    }
}

/// left[j] = left[j] + right[j].
template <class T>
void add_rows(std::span<T> left, std::span<const T> right)
{
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    const std::size_t m = left.size();
    std::size_t j = 0;
    for (; j + w <= m; j += w) {
        (batch::load_unaligned(left.data() + j) + batch::load_unaligned(right.data() + j)).store_unaligned(left.data() + j);
    }
    for (; j < m; ++j) {
        left[j] = left[j] + right[j];
    }
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
