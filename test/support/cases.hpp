#pragma once
/// Inputs and layouts shared by the reducer suites: deterministic on every rank.

#include "treefold/layout/block_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

namespace treefold::testing {

/// This rank's part of `xs` under rank-order counts.
inline std::vector<double> my_part(const std::vector<double>& xs, const std::vector<std::uint64_t>& counts, int rank)
{
    std::uint64_t start = 0;
    for (int r = 0; r < rank; ++r) {
        start += counts[static_cast<std::size_t>(r)];
    }
    const auto begin = xs.begin() + static_cast<std::ptrdiff_t>(start);
    return {begin, begin + static_cast<std::ptrdiff_t>(counts[static_cast<std::size_t>(rank)])};
}


/// Counts of N over p with rank `empty` holding nothing (when p > 1).
inline std::vector<std::uint64_t> counts_with_empty(std::uint64_t n, int p, int empty)
{
    auto counts = layout::even_lower(n, p);
    if (p > 1) {
        const auto e = static_cast<std::size_t>(empty % p);
        counts[(e + 1) % counts.size()] += counts[e];
        counts[e] = 0;
    }
    return counts;
}

/// Random blocks of N over p ranks: some empty, in a random rank order. The same seed
/// gives the same layout on every rank.
inline layout::block_layout random_layout(std::uint64_t seed, std::uint64_t n, int p)
{
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> cuts;
    for (int i = 0; i + 1 < p; ++i) {
        // about one block in four is empty: the cut repeats the previous one
        cuts.push_back(rng() % 4 == 0 && !cuts.empty() ? cuts.back() : rng() % (n + 1));
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.insert(cuts.begin(), 0);
    cuts.push_back(n);
    std::vector<int> perm(static_cast<std::size_t>(p));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<layout::block> blocks(static_cast<std::size_t>(p));
    for (std::size_t i = 0; i < perm.size(); ++i) {
        blocks[static_cast<std::size_t>(perm[i])] = layout::block{cuts[i], cuts[i + 1] - cuts[i]};
    }
    return layout::block_layout::from_blocks(std::move(blocks));
}

namespace detail {
inline std::vector<double> generate_mixed_values(std::uint64_t seed, std::uint64_t n, bool specials)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> expo(-30, 30);
    // Uniform in [-1, 1) from 54 random bits (exact). std::uniform_real_distribution takes a
    // long-double logarithm per value in libstdc++'s generate_canonical: at -O0 that was about
    // 30 % of the kernel suite's big-length case.
    const auto mant = [&rng] {
        return static_cast<double>(static_cast<std::int64_t>(rng() >> 10) - (std::int64_t{1} << 53)) * 0x1p-53;
    };
    std::vector<double> xs(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        switch (i % 7) {
        case 0: xs[i] = 1e16; break;
        case 1: xs[i] = 1.0; break;
        case 2: xs[i] = -1e16; break;
        default: {
            const double m = mant();
            xs[i] = std::ldexp(m, expo(rng));
            break;
        }
        }
    }
    if (specials && n > 0) {
        const double pool[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(), -0.0,
                               std::numeric_limits<double>::denorm_min(), 3.0 * std::numeric_limits<double>::denorm_min()};
        for (const double v : pool) {
            xs[rng() % n] = v;
        }
    }
    return xs;
}
} // namespace detail

/// Doubles of mixed magnitude and sign with a few special values when `specials` is set:
/// 1e16 / 1 / -1e16 cancellations, NaN, +-Inf, -0.0 and subnormals, shared rather than copied.
/// Kept per process (up to 16 Mi values): the sweeps over sub-communicator sizes ask every rank
/// for the same arrays once per size.
inline std::shared_ptr<const std::vector<double>> kept_mixed_values(std::uint64_t seed, std::uint64_t n, bool specials)
{
    if (n < 256) {
        return std::make_shared<const std::vector<double>>(detail::generate_mixed_values(seed, n, specials));
    }
    static std::mutex guard;
    static std::map<std::tuple<std::uint64_t, std::uint64_t, bool>, std::shared_ptr<const std::vector<double>>> kept;
    static std::uint64_t kept_values = 0;
    const std::lock_guard lock(guard);
    const auto key = std::make_tuple(seed, n, specials);
    if (const auto it = kept.find(key); it != kept.end()) {
        return it->second;
    }
    auto xs = std::make_shared<const std::vector<double>>(detail::generate_mixed_values(seed, n, specials));
    if (kept_values + n > (std::uint64_t{1} << 24)) {
        kept.clear(); // (arrays still held by a caller stay alive with it)
        kept_values = 0;
    }
    kept.emplace(key, xs);
    kept_values += n;
    return xs;
}

/// A copy of kept_mixed_values(seed, n, specials).
inline std::vector<double> mixed_values(std::uint64_t seed, std::uint64_t n, bool specials)
{
    return *kept_mixed_values(seed, n, specials);
}

/// A 2x2 integer matrix: its product is associative but not commutative, and exact, so any
/// operand swap or regrouping that changes the rank/index order shows in the bits.
struct mat2 {
    std::uint64_t a = 1, b = 0, c = 0, d = 1;
    friend bool operator==(const mat2&, const mat2&) = default;
};

/// The matrix product x * y.
inline mat2 mat_mul(const mat2& x, const mat2& y)
{
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}

} // namespace treefold::testing
