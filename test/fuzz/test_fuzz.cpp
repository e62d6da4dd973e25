// An independent fuzzer: random cases (N, a layout with empty and permuted blocks, exchange,
// kernel, operator and element type, all_reduce or reduce to a random root, nasty data)
// checked against its own oracle, the recursive definition of the tree written here from
// doc/design.md ("The tree and its index math"), not test/support/oracle.hpp.
//
// Every rank derives every case from (seed, case number) alone, so no case data travels.
// Knobs (after `--` on the command line): --cases K (default 2000 per run), --seed S
// (default 20261123; `--seed random` draws one from the clock). A failure prints the seed and
// the case number, which reproduce it: --seed S --first C --cases 1.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/reducer.hpp"

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace treefold;

namespace {

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

// ---- random cases -------------------------------------------------------------------------

/// splitmix64: the same stream on every rank and every platform.
struct rng {
    std::uint64_t s;
    std::uint64_t next()
    {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t k) { return next() % k; }
    bool chance(unsigned percent) { return below(100) < percent; }
};

/// A nasty double: huge, subnormal, NaN (any sign and payload), infinite, signed zero, or
/// of any magnitude; `special` is the percentage of non-finite values.
double nasty_double(rng& r, unsigned special)
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

std::int64_t nasty_int64(rng& r)
{
    switch (r.below(4)) {
    case 0: return std::numeric_limits<std::int64_t>::max() - static_cast<std::int64_t>(r.below(4));
    case 1: return std::numeric_limits<std::int64_t>::min() + static_cast<std::int64_t>(r.below(4));
    case 2: return static_cast<std::int64_t>(r.below(7)) - 3;
    default: return static_cast<std::int64_t>(r.next());
    }
}

/// One case, the same on every rank.
struct fuzz_case {
    std::uint64_t n = 0;
    std::vector<layout::block> blocks; // by rank
    std::size_t exchange = 0;         // index into exchange_list
    int group = 0;                    // operator and element type (see run_group)
    bool scalar_kernel = false;
    int root = -1;                    // -1: all_reduce
    unsigned special = 0;             // percent of non-finite doubles
    std::uint64_t data_seed = 0;

    std::string describe(const std::vector<std::string_view>& names) const
    {
        std::ostringstream o;
        o << "N " << n << ", exchange " << names[exchange] << ", group " << group << ", kernel "
          << (scalar_kernel ? "scalar" : "best") << ", " << (root < 0 ? "all_reduce" : "reduce to " + std::to_string(root))
          << ", special " << special << "%, blocks";
        for (const auto& b : blocks) {
            o << " [" << b.start << ",+" << b.count << ")";
        }
        return o.str();
    }
};

constexpr int groups = 8;

fuzz_case make_case(std::uint64_t seed, std::uint64_t index, int p, std::size_t exchanges)
{
    rng r{seed ^ (index * 0xd1b54a32d192ed03ULL)};
    fuzz_case c;
    const auto size_class = r.below(10);
    c.n = size_class < 6 ? 1 + r.below(64) : size_class < 9 ? 65 + r.below(936) : 1001 + r.below(4000);
    // Weights with zeros (empty blocks), then the blocks in a random index order.
    std::vector<std::uint64_t> w(static_cast<std::size_t>(p));
    std::uint64_t total = 0;
    for (auto& x : w) {
        x = r.chance(25) ? 0 : 1 + r.below(100);
        total += x;
    }
    std::vector<std::uint64_t> counts(w.size(), 0);
    if (total == 0) {
        counts[r.below(w.size())] = c.n;
    } else {
        std::uint64_t given = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            counts[i] = c.n * w[i] / total;
            given += counts[i];
        }
        std::size_t k = r.below(w.size());
        while (w[k] == 0) {
            k = (k + 1) % w.size();
        }
        counts[k] += c.n - given;
    }
    std::vector<std::size_t> order(w.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    for (std::size_t i = order.size(); i > 1; --i) {
        std::swap(order[i - 1], order[r.below(i)]);
    }
    c.blocks.resize(w.size());
    std::uint64_t start = 0;
    for (const std::size_t rank : order) {
        c.blocks[rank] = {counts[rank] == 0 ? r.next() : start, counts[rank]}; // an empty block's start is noise
        start += counts[rank];
    }
    c.exchange = r.below(exchanges);
    c.group = static_cast<int>(r.below(groups));
    c.scalar_kernel = r.chance(30);
    c.root = r.chance(50) ? -1 : static_cast<int>(r.below(static_cast<std::uint64_t>(p)));
    c.special = r.chance(70) ? 0 : r.chance(50) ? 1 : 20;
    c.data_seed = r.next();
    return c;
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

/// Every exchange the library ships: the registry's names.
std::vector<std::string_view> exchange_list()
{
    return {treefold::all_exchanges::names.begin(), treefold::all_exchanges::names.end()};
}

bool run_case(const boost::mpi::communicator& w, const fuzz_case& c, std::string_view name, std::string& why)
{
    return exchange::visit_by_name<treefold::all_exchanges>(name, [&]<class E>(std::type_identity<E>) { return run_group<E>(w, c, why); });
}

/// The value after `flag` on the command line (after `--`), or `fallback`.
std::string option(const char* flag, const std::string& fallback)
{
    auto& suite = boost::unit_test::framework::master_test_suite();
    for (int i = 1; i + 1 < suite.argc; ++i) {
        if (std::string(suite.argv[i]) == flag) {
            return suite.argv[i + 1];
        }
    }
    return fallback;
}

} // namespace

BOOST_AUTO_TEST_CASE(random_cases_match_the_recursive_definition)
{
    const auto& w = testing::world();
    const std::uint64_t cases = std::stoull(option("--cases", "2000"));
    const std::uint64_t first = std::stoull(option("--first", "0"));
    const std::string seed_text = option("--seed", "20261123");
    std::uint64_t seed = seed_text == "random"
                             ? static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())
                             : std::stoull(seed_text);
    boost::mpi::broadcast(w, seed, 0);
    const auto names = exchange_list();
    if (w.rank() == 0) {
        BOOST_TEST_MESSAGE("fuzzer: seed " << seed << ", cases " << first << ".." << first + cases << ", p " << w.size());
    }
    std::uint64_t failures = 0;
    for (std::uint64_t k = first; k < first + cases; ++k) {
        const fuzz_case c = make_case(seed, k, w.size(), names.size());
        std::string why;
        bool ok = false;
        try {
            ok = run_case(w, c, names[c.exchange], why);
        } catch (const std::exception& e) {
            why = std::string("threw: ") + e.what();
        }
        if (!testing::all_ranks(w, ok)) {
            ++failures;
            BOOST_ERROR("fuzzer case failed: reproduce with -- --seed " << seed << " --first " << k << " --cases 1 at p "
                                                                     << w.size() << "; " << c.describe(names)
                                                                     << (ok ? "" : "; here: " + why));
            if (failures >= 5) {
                break; // enough to go on
            }
        }
    }
    BOOST_CHECK_EQUAL(failures, 0u);
}
