#pragma once
/// The fuzzer's checks (see fuzz_case.hpp): its own oracle, the recursive definition of the
/// tree written here from doc/design.md ("The tree and its index math"), not
/// test/support/oracle.hpp; nasty data; and run_group, the reducer against that oracle.
/// Included by the fuzz_<group>.cpp files only, each instantiating run_group for its exchanges
/// with TREEFOLD_FUZZ_EXCHANGE.
#include "fuzz_case.hpp"
#include "support/mpi_test.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/reducer.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace treefold::testing::fuzz {

// ---- the oracle ---------------------------------------------------------------------------

/// Node (x, y) of the tree over n values: xs[x] at level 0; the left child's value when the
/// right child (x + 2^(y-1)) starts at or past n; else op(left, right).
template <class T, class Op>
T node_value(const std::vector<T>& xs, std::uint64_t x, unsigned y, Op& op)
{
    if (y == 0) {
        return xs[x];
    }
    const std::uint64_t half = std::uint64_t{1} << (y - 1);
    if (x + half >= xs.size()) {
        return node_value(xs, x, y - 1, op);
    }
    return op(node_value(xs, x, y - 1, op), node_value(xs, x + half, y - 1, op));
}

/// The root: node (0, ceil(log2 n)).
template <class T, class Op>
T tree_value(const std::vector<T>& xs, Op op)
{
    const auto n = static_cast<std::uint64_t>(xs.size());
    const unsigned top = n <= 1 ? 0 : static_cast<unsigned>(std::bit_width(n - 1));
    return node_value(xs, 0, top, op);
}

/// A nasty double: huge, subnormal, NaN (any sign and payload), infinite, signed zero, or
/// of any magnitude; `special` is the percentage of non-finite values.
inline double nasty_double(rng& r, unsigned special)
{
    if (r.chance(special)) {
        switch (r.below(3)) {
        case 0: {
            std::uint64_t b = 0x7ff0000000000000ULL | (r.next() & 0x800fffffffffffffULL) | 1;
            double v = 0;
            std::memcpy(&v, &b, sizeof v);
            return v; // a NaN with a random sign and payload
        }
        case 1: return std::numeric_limits<double>::infinity();
        default: return -std::numeric_limits<double>::infinity();
        }
    }
    switch (r.below(8)) {
    case 0: return r.chance(50) ? 1e308 : -1e308;
    case 1: return std::numeric_limits<double>::denorm_min() * static_cast<double>(r.below(1000) + 1) * (r.chance(50) ? 1 : -1);
    case 2: return r.chance(50) ? -0.0 : 0.0;
    case 3: return static_cast<double>(static_cast<std::int64_t>(r.below(2001)) - 1000);
    default: {
        const double m = static_cast<double>(r.next() >> 11) / 9007199254740992.0;
        return std::ldexp(r.chance(50) ? m : -m, static_cast<int>(r.below(121)) - 60);
    }
    }
}

inline std::int64_t nasty_int64(rng& r)
{
    switch (r.below(4)) {
    case 0: return std::numeric_limits<std::int64_t>::max() - static_cast<std::int64_t>(r.below(4));
    case 1: return std::numeric_limits<std::int64_t>::min() + static_cast<std::int64_t>(r.below(4));
    case 2: return static_cast<std::int64_t>(r.below(7)) - 3;
    default: return static_cast<std::int64_t>(r.next());
    }
}

template <class T>
bool same(const T& a, const T& b)
{
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) && std::isnan(b)) {
            return true; // NaN results may differ in sign and payload (doc/design.md)
        }
    }
    return testing::bytes_of(a) == testing::bytes_of(b);
}

template <class T>
std::string show(const T& v)
{
    std::ostringstream o;
    o.precision(17);
    o << v;
    if constexpr (sizeof(T) == 8) {
        std::uint64_t b = 0;
        std::memcpy(&b, &v, 8);
        o << " (0x" << std::hex << b << ")";
    }
    return o.str();
}

/// Runs case `c` with element T and operator `op`; true when the reducer gave the oracle's
/// value (or, off the root of a reduce, nothing).
template <class T, class Op, class Kernel, class E>
bool check_with(const boost::mpi::communicator& w, const fuzz_case& c, const std::vector<T>& xs, Op op,
                std::string& why)
{
    const auto l = layout::block_layout::from_blocks(c.blocks);
    reducer<T, Op, Kernel, E> red(w, l, op);
    const auto b = l.block_of(w.rank());
    const std::span<const T> mine(xs.data() + b.start, b.count);
    // The oracle reads the same input after the call: the reducer must not have written it.
    if (c.root < 0) {
        const T got = red.all_reduce(mine);
        const T want = tree_value(xs, op);
        if (!same(got, want)) {
            why = "got " + show(got) + ", oracle " + show(want);
            return false;
        }
        return true;
    }
    const std::optional<T> got = red.reduce(mine, c.root);
    const T want = tree_value(xs, op);
    if (got.has_value() != (w.rank() == c.root)) {
        why = "a value on the wrong rank";
        return false;
    }
    if (got && !same(*got, want)) {
        why = "got " + show(*got) + ", oracle " + show(want);
        return false;
    }
    return true;
}

template <class T, class Op, class E>
bool check(const boost::mpi::communicator& w, const fuzz_case& c, const std::vector<T>& xs, Op op, std::string& why)
{
    return c.scalar_kernel ? check_with<T, Op, kernel::scalar, E>(w, c, xs, op, why)
                           : check_with<T, Op, kernel::best, E>(w, c, xs, op, why);
}

/// A non-associative operator with state (a scale it captures).
struct skewed {
    double scale = 0.5;
    double operator()(const double& a, const double& b) const { return a * scale + b; }
};

template <class E>
bool run_group(const boost::mpi::communicator& w, const fuzz_case& c, std::string& why)
{
    rng r{c.data_seed};
    auto doubles = [&] {
        std::vector<double> xs(c.n);
        for (auto& x : xs) {
            x = nasty_double(r, c.special);
        }
        return xs;
    };
    switch (c.group) {
    case 0: return check<double, std::plus<double>, E>(w, c, doubles(), {}, why);
    case 1: return check<double, ops::min, E>(w, c, doubles(), {}, why);
    case 2: return check<double, ops::max, E>(w, c, doubles(), {}, why);
    case 3: return check<double, skewed, E>(w, c, doubles(), skewed{0.5 + static_cast<double>(r.below(8)) / 16}, why);
    case 4: {
        std::vector<float> xs(c.n);
        for (auto& x : xs) {
            x = static_cast<float>(nasty_double(r, c.special)); // +-1e308 overflow to +-Inf, subnormals to 0
        }
        return check<float, std::plus<float>, E>(w, c, xs, {}, why);
    }
    case 5:
    case 6: {
        std::vector<std::int64_t> xs(c.n);
        for (auto& x : xs) {
            x = nasty_int64(r);
        }
        return c.group == 5 ? check<std::int64_t, ops::plus, E>(w, c, xs, {}, why)
                            : check<std::int64_t, ops::multiplies, E>(w, c, xs, {}, why);
    }
    default: {
        std::vector<std::int32_t> xs(c.n);
        for (auto& x : xs) {
            x = static_cast<std::int32_t>(r.next());
        }
        return check<std::int32_t, ops::multiplies, E>(w, c, xs, {}, why);
    }
    }
}

} // namespace treefold::testing::fuzz

/// Instantiates run_group for the exchange type given (commas allowed): one line per exchange
/// in a fuzz_<group>.cpp.
#define TREEFOLD_FUZZ_EXCHANGE(...)                                                                                     \
    template bool treefold::testing::fuzz::run_group<__VA_ARGS__>(const boost::mpi::communicator&,                       \
                                                                   const treefold::testing::fuzz::fuzz_case&, std::string&)
