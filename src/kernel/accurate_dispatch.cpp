// kernel::accurate_simd and kernel::accurate_best: whole blocks through the architecture's
// block fold (accurate_<arch>.cpp), joined with the scalar code of this TU, which is built
// without architecture flags.
#include "arch_choice.hpp"
#include "treefold/kernel/accurate.hpp"
#include "treefold/kernel/dispatch.hpp"

#include <xsimd/config/xsimd_arch.hpp>

#include <cassert>

namespace treefold::kernel {

namespace detail {

namespace {

/// accurate_sum_blocks from stratum `level` down, with the block folds `fold` (one of k's two
/// tables).
double_double sum_from(const accurate_block_kernel& k, void (*const* fold)(const double*, double*, double*), int level,
                       const double* first, std::uint64_t len)
{
    while (level >= 0 && k.block[level] > len) {
        --level;
    }
    if (level < 0) {
        return accurate_node_scalar(first, len);
    }
    // Whole blocks are complete subtrees: each is the tree over its lanes' nodes, then they
    // pair up as leaves of a counter one level up (kernel::scalar's binary counter).
    const ops::accurate_plus op;
    value_stack<double_double> stack;
    const std::uint64_t size = k.block[level];
    const std::uint64_t blocks = len / size;
    double hi[64];
    double lo[64];
    double_double lane[64];
    for (std::uint64_t b = 0; b < blocks; ++b) {
        fold[level](first + b * size, hi, lo);
        for (std::size_t l = 0; l < k.width; ++l) {
            lane[l] = {hi[l], lo[l]};
        }
        for (std::size_t count = k.width; count > 1; count /= 2) {
            for (std::size_t l = 0; l < count / 2; ++l) {
                lane[l] = op(lane[2 * l], lane[2 * l + 1]);
            }
        }
        double_double acc = lane[0];
        for (int pairs = std::countr_zero(b + 1); pairs > 0; --pairs) {
            acc = op(stack.top(), acc);
            stack.pop();
        }
        stack.push(acc);
    }
    // The clipped right edge starts at a multiple of the block size, so it is one node of
    // the scalar tree (the fold of its own nodes, all shorter than a block); the stack folds
    // right to left onto it (kernel::scalar's pass-through fold).
    const std::uint64_t rest = len - blocks * size;
    double_double acc = rest > 0 ? sum_from(k, fold, level - 1, first + blocks * size, rest) : stack.pop();
    while (!stack.empty()) {
        acc = op(stack.top(), acc);
        stack.pop();
    }
    return acc;
}

} // namespace

double_double accurate_sum_blocks(const accurate_block_kernel& k, const double* first, std::uint64_t len)
{
    assert(len > 0);
    return sum_from(k, len <= accurate_block_kernel::in_cache_values ? k.fold_in_cache : k.fold, k.levels - 1, first, len);
}

namespace {

const accurate_block_kernel& best_blocks() noexcept
{
    static const accurate_block_kernel k =
        pick(&accurate_blocks<xsimd::sse2>, &accurate_blocks<xsimd::avx2>, &accurate_blocks<xsimd::avx512f>)();
    return k;
}

} // namespace
} // namespace detail

template <class Arch>
double_double accurate_simd<Arch>::sum(const double* first, std::uint64_t len)
{
    static const detail::accurate_block_kernel k = detail::accurate_blocks<Arch>();
    return detail::accurate_sum_blocks(k, first, len);
}

template struct accurate_simd<xsimd::sse2>;
template struct accurate_simd<xsimd::avx2>;
template struct accurate_simd<xsimd::avx512f>;

double_double accurate_best::sum(const double* first, std::uint64_t len)
{
    return detail::accurate_sum_blocks(detail::best_blocks(), first, len);
}

} // namespace treefold::kernel
