#pragma once
/// The test oracle: a plain recursive evaluation of the tree definition, nothing shared
/// with the library's kernels, frontiers or exchanges.

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace treefold::testing {

/// Value of node (x, y) over xs: x_x at level 0; (x, y-1) when x + 2^(y-1) >= N;
/// op((x, y-1), (x + 2^(y-1), y-1)) otherwise.
template <class T, class Op>
T oracle_node(const std::vector<T>& xs, std::uint64_t x, unsigned y, Op& op)
{
    if (y == 0) {
        return xs.at(x);
    }
    const std::uint64_t half = std::uint64_t{1} << (y - 1);
    if (x + half >= xs.size()) {
        return oracle_node(xs, x, y - 1, op);
    }
    return op(oracle_node(xs, x, y - 1, op), oracle_node(xs, x + half, y - 1, op));
}

/// The root (0, ceil(log2 N)); N must be positive.
template <class T, class Op>
T oracle_reduce(const std::vector<T>& xs, Op op)
{
    if (xs.empty()) {
        throw std::invalid_argument("oracle: empty input");
    }
    unsigned levels = 0;
    while ((std::uint64_t{1} << levels) < xs.size()) {
        ++levels;
    }
    return oracle_node(xs, 0, levels, op);
}

} // namespace treefold::testing
