// The ways in: the one-call all_reduce / reduce with their plan cache, raw MPI_Comm wherever a
// communicator goes, reducers built from N and a distribution policy, make_reducer's tag
// arguments, class template argument deduction, and the output-buffer overloads.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/accurate_reducer.hpp"
#include "treefold/all_reduce.hpp"
#include "treefold/binned_reducer.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/layouts.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"

#include <mpi.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;
using testing::bits_of;

namespace {

/// This rank's part of `xs` under rank-order counts.
std::vector<double> my_part(const std::vector<double>& xs, const std::vector<std::uint64_t>& counts, int rank)
{
    std::uint64_t start = 0;
    for (int r = 0; r < rank; ++r) {
        start += counts[static_cast<std::size_t>(r)];
    }
    const auto begin = xs.begin() + static_cast<std::ptrdiff_t>(start);
    return {begin, begin + static_cast<std::ptrdiff_t>(counts[static_cast<std::size_t>(rank)])};
}

/// Counts of N over p with rank `empty` holding nothing (when p > 1).
std::vector<std::uint64_t> counts_with_empty(std::uint64_t n, int p, int empty)
{
    auto counts = layout::even_lower(n, p);
    if (p > 1) {
        const auto e = static_cast<std::size_t>(empty % p);
        counts[(e + 1) % counts.size()] += counts[e];
        counts[e] = 0;
    }
    return counts;
}

/// row_reducer's buffer forms on a layout where rank 1 holds nothing: column c of
/// all_reduce(local, out) everywhere and of reduce(local, root, out) on each root has the bits
/// of a reducer on column c alone; the other ranks' (empty) reduce buffers are fine, and a
/// wrong-size buffer on the root alone throws there after the collective part; a wrong local
/// size on one rank throws everywhere.
template <class E>
void rows_into_buffers_match_columns()
{
    const auto& w = testing::world();
    const std::size_t k = 5;
    const std::uint64_t n = 203;
    const auto counts = counts_with_empty(n, w.size(), 1);
    const auto l = layout::block_layout::from_counts(counts);
    const auto xs = testing::mixed_values(23, n * k, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start * k, b.count * k);
    std::vector<std::uint64_t> want(k);
    reducer<double, ops::plus, kernel::best, E> column_reducer(w, l);
    for (std::size_t c = 0; c < k; ++c) {
        std::vector<double> col(b.count);
        for (std::size_t i = 0; i < col.size(); ++i) {
            col[i] = local[i * k + c];
        }
        want[c] = bits_of(column_reducer.all_reduce(col));
    }
    auto bits = [](const std::vector<double>& v) {
        std::vector<std::uint64_t> out;
        for (const double x : v) {
            out.push_back(bits_of(x));
        }
        return out;
    };
    row_reducer<double, ops::plus, E> rows(w, l, k);
    std::vector<double> all(k);
    rows.all_reduce(local, all);
    BOOST_CHECK_MESSAGE(bits(all) == want, E::name << ": all_reduce into a buffer");
    for (int root = 0; root < w.size(); ++root) {
        std::vector<double> out(w.rank() == root ? k : 0);
        rows.reduce(local, root, out);
        BOOST_CHECK_MESSAGE(w.rank() != root || bits(out) == want, E::name << ": reduce to " << root);
    }
    const int root = w.size() - 1;
    std::vector<double> wrong(w.rank() == root ? k + 1 : 0, -1.0);
    if (w.rank() == root) {
        BOOST_CHECK_THROW(rows.reduce(local, root, wrong), std::invalid_argument);
    } else {
        rows.reduce(local, root, wrong);
    }
    BOOST_CHECK(wrong.empty() || wrong[0] == -1.0);
    BOOST_CHECK(bits(rows.all_reduce(local)) == want); // nobody was left waiting
    // A wrong local size on the last rank (one value short, or one extra where its block is
    // empty) throws std::invalid_argument naming that rank everywhere.
    std::vector<double> odd(local.begin(), local.end());
    if (w.rank() == root) {
        if (odd.empty()) {
            odd.push_back(1.0);
        } else {
            odd.pop_back();
        }
    }
    bool named = false;
    try {
        rows.all_reduce(odd, all);
    } catch (const std::invalid_argument& e) {
        named = std::string(e.what()).find("rank " + std::to_string(root)) != std::string::npos;
    }
    BOOST_CHECK_MESSAGE(named, E::name << ": a wrong local size on rank " << root << " not reported on " << w.rank());
    BOOST_CHECK(bits(rows.all_reduce(local)) == want);
}

/// An operator that throws on one rank only: that rank gets its exception, every other rank
/// a remote_failure naming it, from all_reduce and from reduce; the next call works.
template <class E>
void row_operator_failure_reaches_everyone()
{
    const auto& w = testing::world();
    const std::size_t k = 3;
    const std::uint64_t n = 40 * static_cast<std::uint64_t>(w.size()) + 3;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = testing::mixed_values(5, n * k, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start * k, b.count * k);
    for (int bad = 0; bad < w.size(); ++bad) {
        bool armed = w.rank() == bad;
        auto op = [&armed](double x, double y) {
            if (armed) {
                throw std::runtime_error("row operator refused");
            }
            return x + y;
        };
        row_reducer<double, decltype(op), E> rows(w, l, k, op);
        auto outcome = [&](bool must_throw, auto call) {
            try {
                call();
            } catch (const remote_failure& e) {
                return !armed && e.info.rank == bad;
            } catch (const std::runtime_error& e) {
                return armed && std::string(e.what()) == "row operator refused";
            }
            return !must_throw && !armed;
        };
        std::vector<double> out(k);
        BOOST_CHECK_MESSAGE(outcome(true, [&] { rows.all_reduce(local, out); }),
                            E::name << ": rank " << w.rank() << ", all_reduce, operator threw on " << bad);
        BOOST_CHECK_MESSAGE(outcome(true, [&] { rows.reduce(local, 0, out); }),
                            E::name << ": rank " << w.rank() << ", reduce, operator threw on " << bad);
        armed = false;
        rows.all_reduce(local, out);
        BOOST_CHECK(out == rows.all_reduce(local));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(one_call_matches_the_oracle_as_sizes_change)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        const auto check = [&](std::uint64_t n, const std::vector<std::uint64_t>& counts, std::uint64_t seed) {
            const auto xs = testing::mixed_values(seed, n, false); // no NaN: its payload is not part of the promise
            const auto mine = my_part(xs, counts, sub.rank());
            const double got = treefold::all_reduce(sub, mine);
            const double want = testing::oracle_reduce(xs, std::plus<double>());
            BOOST_CHECK_EQUAL(bits_of(got), bits_of(want));
            const auto at_root = treefold::reduce(sub, mine, sub.size() - 1);
            BOOST_CHECK_EQUAL(at_root.has_value(), sub.rank() == sub.size() - 1);
            if (at_root) {
                BOOST_CHECK_EQUAL(bits_of(*at_root), bits_of(want));
            }
            const auto b = testing::bytes_of(got);
            all.insert(all.end(), b.begin(), b.end());
        };
        const int p = sub.size();
        // The same pattern twice (the cached plan), then patterns that move values onto and
        // off empty ranks, a new N, and the first pattern again.
        check(1000, layout::even_lower(1000, p), 1);
        check(1000, layout::even_lower(1000, p), 2);
        check(1000, counts_with_empty(1000, p, 0), 3);
        check(1000, counts_with_empty(1000, p, p - 1), 4);
        check(37, layout::even_upper(37, p), 5);
        check(1000, layout::even_lower(1000, p), 6);
        return all;
    });
    testing::expect_same_across_sizes(results, "one-call all_reduce");
}

BOOST_AUTO_TEST_CASE(one_call_errors_and_operators)
{
    const auto& w = testing::world();
    // N = 0 everywhere: the operator's identity, or no value without one; the next call with
    // values works (nothing was cached).
    BOOST_CHECK_EQUAL(bits_of(treefold::all_reduce(w, std::vector<double>{})), 0u);
    BOOST_CHECK_EQUAL(treefold::all_reduce(w, std::vector<std::int32_t>{}, ops::min{}),
                      std::numeric_limits<std::int32_t>::max());
    BOOST_CHECK_THROW(treefold::all_reduce(w, std::vector<double>{}, [](double a, double b) { return a - b; }),
                      std::domain_error);
    std::vector<double> mine(3, 0.25);
    BOOST_CHECK_EQUAL(treefold::all_reduce(w, mine), 0.75 * w.size());
    // A bad root throws before any message, on every rank.
    BOOST_CHECK_THROW((void)treefold::reduce(w, mine, w.size()), std::invalid_argument);
    // A non-commutative, stateful operator taken per call (not cached with the plan).
    const std::vector<std::int64_t> ints{w.rank() + 1, 2};
    for (std::int64_t scale : {2, 3}) {
        const auto op = [scale](std::int64_t a, std::int64_t b) { return a * scale + b; };
        std::vector<std::int64_t> all;
        for (int r = 0; r < w.size(); ++r) {
            all.push_back(r + 1);
            all.push_back(2);
        }
        BOOST_CHECK_EQUAL(treefold::all_reduce(w, ints, op), testing::oracle_reduce(all, op));
    }
    // An operator that throws on one rank's values: thrown on every rank.
    const auto picky = [](double a, double b) {
        if (a < 0 || b < 0) {
            throw std::runtime_error("negative value");
        }
        return a + b;
    };
    std::vector<double> neg(2, w.rank() == w.size() - 1 ? -1.0 : 1.0);
    BOOST_CHECK_THROW(treefold::all_reduce(w, neg, picky), std::exception);
    BOOST_CHECK_EQUAL(treefold::all_reduce(w, std::vector<double>(2, 1.0), picky), 2.0 * w.size());
    // MPI_COMM_NULL is refused where it is passed.
    BOOST_CHECK_THROW(treefold::all_reduce(MPI_COMM_NULL, mine), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(intercommunicator_refused_on_every_rank)
{
    const auto& w = testing::world();
    if (w.size() < 2) {
        return; // an intercommunicator needs two non-empty groups
    }
    // Two groups (even and odd ranks) joined by an intercommunicator: not a group to reduce in.
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, w.rank() % 2, w.rank(), &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, w.rank() % 2 == 0 ? 1 : 0, 7, &inter);
    const std::vector<double> mine(3, 1.0);
    const auto l = layout::block_layout::from_counts(std::vector<std::uint64_t>(2, 3));
    std::string what;
    try {
        reducer<double> r(inter, l);
    } catch (const std::invalid_argument& e) {
        what = e.what();
    }
    BOOST_CHECK_MESSAGE(what.find("intercommunicator") != std::string::npos, "got: " << what);
    BOOST_CHECK_THROW(treefold::all_reduce(inter, mine), std::invalid_argument);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

BOOST_AUTO_TEST_CASE(raw_mpi_comm_everywhere)
{
    const auto& w = testing::world();
    MPI_Comm raw = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &raw);
    const std::uint64_t n = 500;
    const auto xs = testing::mixed_values(11, n, false);
    const auto counts = layout::even_upper(n, w.size());
    const auto mine = my_part(xs, counts, w.rank());
    const double want = testing::oracle_reduce(xs, std::plus<double>());

    const auto l = layout_from_local_size(raw, mine.size());
    BOOST_CHECK(l == layout::block_layout::from_counts(counts));
    reducer<double> r(raw, l);
    BOOST_CHECK_EQUAL(bits_of(r.all_reduce(mine)), bits_of(want));
    BOOST_CHECK_EQUAL(bits_of(treefold::all_reduce(raw, mine)), bits_of(want));
    BOOST_CHECK_EQUAL(bits_of(treefold::all_reduce(MPI_COMM_WORLD, mine)), bits_of(want));
    // The caller's communicator may go once the reducer is built (it holds a duplicate), and
    // freeing it frees the one-call plans cached on it.
    MPI_Comm_free(&raw);
    BOOST_CHECK_EQUAL(bits_of(r.all_reduce(mine)), bits_of(want));
}

BOOST_AUTO_TEST_CASE(reducer_from_n_and_a_distribution)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        const std::uint64_t n = 3001;
        const auto xs = testing::mixed_values(21, n, false);
        const double want = testing::oracle_reduce(xs, std::plus<double>());
        std::vector<unsigned char> all;
        const auto run = [&](auto&& r, const std::vector<std::uint64_t>& counts) {
            const layout::block b = r.local_block();
            BOOST_CHECK_EQUAL(b.count, counts[static_cast<std::size_t>(sub.rank())]);
            BOOST_CHECK(r.layout() == layout::block_layout::from_counts(counts));
            const std::span<const double> mine(xs.data() + b.start, b.count);
            const double got = r.all_reduce(mine);
            BOOST_CHECK_EQUAL(bits_of(got), bits_of(want));
            const auto bytes = testing::bytes_of(got);
            all.insert(all.end(), bytes.begin(), bytes.end());
        };
        const int p = sub.size();
        run(reducer<double>(sub, n), layout::even_upper(n, p));
        run(reducer<double>(sub, n, dist::even_lower{}), layout::even_lower(n, p));
        run(reducer<double>(sub, n, dist::power_of_two{}), layout::power_of_two(n, p));
        run(reducer<double>(sub, n, dist::aligned{0.1}), layout::aligned(n, p, 0.1));
        run(reducer<double>(sub, n, layout::distribution::parse("aligned:0.5")), layout::aligned(n, p, 0.5));
        run(reducer<double, std::plus<double>>(sub, n, std::plus<double>{}), layout::even_upper(n, p));
        // Ranks that disagree on N throw the same error everywhere.
        if (p > 1) {
            BOOST_CHECK_THROW(reducer<double>(sub, sub.rank() == 0 ? n : n + 1), std::invalid_argument);
        }
        return all;
    });
    testing::expect_same_across_sizes(results, "reducer from N");
}

BOOST_AUTO_TEST_CASE(make_reducer_and_deduction)
{
    const auto& w = testing::world();
    const std::uint64_t n = 777;
    const auto xs = testing::mixed_values(31, n, false);
    const auto lambda = [](double a, double b) { return a + b; };
    const double want = testing::oracle_reduce(xs, lambda);

    auto a = make_reducer<double>(w, n);
    static_assert(std::is_same_v<decltype(a), reducer<double>>);
    auto b = make_reducer<double>(w, n, exchange::tree<>{}, lambda, dist::aligned{0.2});
    static_assert(std::is_same_v<decltype(b),
                                 reducer<double, std::remove_const_t<decltype(lambda)>, kernel::best, exchange::tree<>>>);
    auto c = make_reducer<double>(w, layout::block_layout::from_counts(layout::even_lower(n, w.size())),
                                  kernel::scalar{}, exchange::direct{});
    static_assert(std::is_same_v<decltype(c), reducer<double, ops::plus, kernel::scalar, exchange::direct>>);
    BOOST_CHECK(b.layout() == layout::block_layout::from_counts(layout::aligned(n, w.size(), 0.2)));
    for (auto* r : {&a}) {
        const auto blk = r->local_block();
        BOOST_CHECK_EQUAL(bits_of(r->all_reduce(std::span(xs.data() + blk.start, blk.count))), bits_of(want));
    }
    const auto bb = b.local_block();
    BOOST_CHECK_EQUAL(bits_of(b.all_reduce(std::span(xs.data() + bb.start, bb.count))), bits_of(want));
    const auto cb = c.local_block();
    BOOST_CHECK_EQUAL(bits_of(c.all_reduce(std::span(xs.data() + cb.start, cb.count))), bits_of(want));
    BOOST_CHECK_EQUAL(c.exchange_used(), "direct");

    // Deduction from the operator: T is its parameter type.
    treefold::reducer d(w, b.layout(), lambda);
    static_assert(std::is_same_v<decltype(d)::value_type, double>);
    treefold::reducer e(w, n, dist::even_lower{}, [](std::int64_t x, std::int64_t y) { return x ^ y; });
    static_assert(std::is_same_v<decltype(e)::value_type, std::int64_t>);
    double out = 0;
    d.all_reduce(std::span(xs.data() + bb.start, bb.count), out);
    BOOST_CHECK_EQUAL(bits_of(out), bits_of(want));
    // The default operator is the same as row_reducer's, with std::plus's bits.
    static_assert(std::is_same_v<reducer<double>::operator_type, row_reducer<double>::operator_type>);
}

BOOST_AUTO_TEST_CASE(row_reducer_output_buffer)
{
    const auto& w = testing::world();
    const std::size_t k = 3;
    const std::uint64_t n = 100;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    row_reducer<double> rows(w, l, k);
    std::vector<double> mine(rows.local_count() * k);
    for (std::size_t i = 0; i < mine.size(); ++i) {
        mine[i] = 0.5 * static_cast<double>(i % k + 1);
    }
    std::vector<double> out(k);
    rows.all_reduce(mine, out);
    BOOST_CHECK(out == rows.all_reduce(mine));
    BOOST_CHECK_EQUAL(out[2], 1.5 * static_cast<double>(n));
    std::vector<double> small(k - 1);
    BOOST_CHECK_THROW(rows.all_reduce(mine, small), std::invalid_argument);
    // A wrong-size result on one rank only: that rank throws after the collective part, the
    // others get the result, and nobody is left waiting (the next call works everywhere).
    const bool odd_one = w.rank() == w.size() - 1;
    std::vector<double> one(odd_one ? k + 1 : k, -1.0);
    if (odd_one) {
        BOOST_CHECK_THROW(rows.all_reduce(mine, one), std::invalid_argument);
    } else {
        rows.all_reduce(mine, one);
        BOOST_CHECK(one == out);
    }
    BOOST_CHECK(rows.all_reduce(mine) == out);
}

// Rows travel through their own codec (has_own_codec), neither as raw bytes nor through
// Boost.Serialization.
static_assert(transportable<row<double>> && has_own_codec<row<double>>::value);
static_assert(!std::is_trivially_copyable_v<row<double>> && !boost_serializable<row<double>>);

BOOST_AUTO_TEST_CASE(row_reducer_buffers_match_columns_direct) { rows_into_buffers_match_columns<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(row_reducer_buffers_match_columns_tree) { rows_into_buffers_match_columns<exchange::tree<>>(); }
// The default exchange, automatic, as for every reducer: rows cannot be timed outside a call
// (their codec needs the call's arena), so automatic takes direct without calibrating; it
// used to calibrate and end the process at p >= 2.
BOOST_AUTO_TEST_CASE(row_reducer_buffers_match_columns_automatic)
{
    static_assert(std::is_same_v<row_reducer<double>::exchange_type, exchange::automatic>);
    rows_into_buffers_match_columns<exchange::automatic>();
    const auto& w = testing::world();
    row_reducer<double> rows(w, layout::block_layout::from_counts(layout::even_upper(40, w.size())), 3);
    BOOST_CHECK_EQUAL(std::string(rows.exchange_used()), w.size() == 1 ? "binomial" : "direct");
}
BOOST_AUTO_TEST_CASE(row_operator_failure_direct) { row_operator_failure_reaches_everyone<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(row_operator_failure_tree) { row_operator_failure_reaches_everyone<exchange::tree<>>(); }

// The row width is part of what the ranks agree on at construction: a width that differs
// on one rank, or is 0 there, throws std::invalid_argument naming it on every rank (before,
// a 0 threw on that rank alone and a different width went unnoticed until a message of the
// wrong size arrived).
BOOST_AUTO_TEST_CASE(row_width_agreed_on_every_rank)
{
    const auto& w = testing::world();
    const auto l = layout::block_layout::from_counts(layout::even_lower(20, w.size()));
    const bool odd_one = w.rank() == w.size() - 1;
    auto message_of = [&](std::size_t k) {
        try {
            row_reducer<double> rows(w, l, k);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    const std::string last = std::to_string(w.size() - 1);
    if (w.size() > 1) {
        BOOST_CHECK_EQUAL(message_of(odd_one ? 4 : 3),
                          "treefold: ranks disagree on the row width: rank 0 has 3, rank " + last + " has 4");
    }
    BOOST_CHECK_EQUAL(message_of(odd_one ? 0 : 3), "treefold: row width must be positive (rank " + last + " has 0)");
    // Agreement restored: the next construction and call work everywhere.
    row_reducer<double> rows(w, l, 2);
    std::vector<double> mine(rows.local_count() * 2, 1.0);
    BOOST_CHECK_EQUAL(rows.all_reduce(mine)[1], 20.0);
}

namespace {

/// An operator of the user's with an identity of its own (ops::identity specialised).
struct offset_sum {
    double operator()(double a, double b) const { return a + b + 1.0; }
};

/// What a treefold operator's result must be: the oracle's bits, or the canonical quiet NaN
/// (0x7ff8000000000000) where the oracle's is some NaN.
std::uint64_t expected_bits(double oracle)
{
    return oracle != oracle ? 0x7ff8000000000000ULL : std::bit_cast<std::uint64_t>(oracle);
}

double nan_with(std::uint64_t bits) { return std::bit_cast<double>(bits); }

} // namespace

template <>
struct treefold::ops::identity<offset_sum, double> {
    static double value() { return -1.0; }
};

// N = 0 returns the operator's identity on every rank (reducer, reduce on the root only,
// nonblocking calls, rows, the accurate and binned sums); an operator without one throws
// std::domain_error everywhere; a rank that passes values when N = 0 throws local_size_error on
// every rank, and the reducer works afterwards.
BOOST_AUTO_TEST_CASE(empty_reduction_gives_the_identity)
{
    const auto& w = testing::world();
    const int p = w.size();
    const auto l = layout::block_layout::from_counts(layout::even_lower(0, p));
    reducer<double> sum(w, l);
    BOOST_CHECK_EQUAL(bits_of(sum.all_reduce({})), 0u); // +0.0
    for (int root = 0; root < p; ++root) {
        const std::optional<double> got = sum.reduce({}, root);
        BOOST_CHECK_EQUAL(got.has_value(), w.rank() == root);
        if (got) {
            BOOST_CHECK_EQUAL(bits_of(*got), 0u);
        }
    }
    BOOST_CHECK_EQUAL(sum.iall_reduce({}).wait(), 0.0);
    BOOST_CHECK_EQUAL(sum.ireduce({}, p - 1).wait().has_value(), w.rank() == p - 1);
    BOOST_CHECK_EQUAL((reducer<double, ops::multiplies>(w, l).all_reduce({})), 1.0);
    BOOST_CHECK_EQUAL((reducer<double, ops::min>(w, l).all_reduce({})), std::numeric_limits<double>::infinity());
    BOOST_CHECK_EQUAL((reducer<double, ops::max>(w, l).all_reduce({})), -std::numeric_limits<double>::infinity());
    BOOST_CHECK_EQUAL((reducer<std::int64_t, ops::max>(w, l).all_reduce({})), std::numeric_limits<std::int64_t>::lowest());
    BOOST_CHECK_EQUAL((reducer<float, std::plus<float>>(w, l).all_reduce({})), 0.0f);
    BOOST_CHECK_EQUAL((reducer<double, offset_sum>(w, l).all_reduce({})), -1.0);
    // No identity: no value, on every rank.
    auto minus = [](double a, double b) { return a - b; };
    reducer<double, decltype(minus)> no_identity(w, l, minus);
    BOOST_CHECK_THROW(no_identity.all_reduce({}), std::domain_error);
    BOOST_CHECK_THROW(no_identity.reduce({}, 0), std::domain_error);
    // Rows, and the accurate and binned sums.
    row_reducer<double> rows(w, l, 3);
    BOOST_CHECK(rows.all_reduce({}) == std::vector<double>(3, 0.0));
    BOOST_CHECK_EQUAL((row_reducer<std::int32_t, ops::min>(w, l, 2).reduce({}, 0).has_value()), w.rank() == 0);
    BOOST_CHECK_EQUAL(bits_of(accurate_reducer<>(w, l).all_reduce({})), 0u);
    BOOST_CHECK_EQUAL(bits_of(binned_reducer<>(w, l).all_reduce({})), 0u);
    // Values on one rank although N = 0: every rank throws, and the reducer still works.
    const double one = 1.0;
    const std::span<const double> mine = w.rank() == p - 1 ? std::span<const double>(&one, 1) : std::span<const double>();
    BOOST_CHECK_THROW(sum.all_reduce(mine), local_size_error);
    BOOST_CHECK_THROW(sum.reduce(mine, 0), local_size_error);
    BOOST_CHECK_THROW(rows.all_reduce(mine), local_size_error);
    BOOST_CHECK_EQUAL(sum.all_reduce({}), 0.0);
    // The one-call forms: the identity (on the root for reduce); a root outside [0, p) throws.
    const std::vector<double> none;
    BOOST_CHECK_EQUAL(bits_of(treefold::all_reduce(w, none)), 0u);
    BOOST_CHECK_EQUAL(treefold::reduce(w, none, p - 1).has_value(), w.rank() == p - 1);
    BOOST_CHECK_THROW(treefold::reduce(w, none, p), std::invalid_argument);
}

// A NaN result under treefold's operators is the canonical quiet NaN for every p, every core
// exchange, all_reduce, reduce and iall_reduce, whatever the NaNs' signs and payloads and
// where they lie (before, ops::plus gave the -NaN of index 3 at p = 1 and the default NaN at
// p >= 2); results without NaN keep the oracle's bits.
BOOST_AUTO_TEST_CASE(nan_results_are_canonical_for_every_p_and_exchange)
{
    const auto& w = testing::world();
    const std::uint64_t n = 1000;
    std::vector<double> xs = testing::mixed_values(27, n, false);
    std::vector<std::vector<double>> cases;
    cases.push_back(xs); // no NaN
    xs[3] = nan_with(0xfff8000000000000ULL);   // -NaN
    xs[900] = nan_with(0x7ff8000000000000ULL); // +NaN
    cases.push_back(xs);
    xs[3] = nan_with(0xfff800000000beefULL);   // -NaN with a payload
    xs[500] = nan_with(0x7ff0000000000001ULL); // a signalling NaN
    xs[900] = nan_with(0x7ff8000000001234ULL); // +NaN with a payload
    cases.push_back(xs);
    const auto l = testing::random_layout(7, n, w.size());
    const auto block = l.block_of(w.rank());
    int bad = 0;
    for (const std::string_view name : exchange::core_exchanges::names) {
        exchange::visit_by_name(name, [&]<class E>(std::type_identity<E>) {
            auto check = [&]<class Op>(Op op) {
                reducer<double, Op, kernel::best, E> r(w, l, op);
                for (const auto& values : cases) {
                    const std::uint64_t want = expected_bits(testing::oracle_reduce(values, op));
                    const std::span<const double> mine(values.data() + block.start, block.count);
                    const std::uint64_t all = bits_of(r.all_reduce(mine));
                    const std::uint64_t nonblocking = bits_of(r.iall_reduce(mine).wait());
                    const std::optional<double> rooted = r.reduce(mine, w.size() - 1);
                    const std::uint64_t at_root = rooted ? bits_of(*rooted) : want;
                    if (all != want || nonblocking != want || at_root != want) {
                        if (bad++ < 5) {
                            BOOST_ERROR(name << " p=" << w.size() << std::hex << ": all_reduce " << all
                                             << " iall_reduce " << nonblocking << " reduce " << at_root << " want "
                                             << want);
                        }
                    }
                }
            };
            check(ops::plus{});
            check(ops::multiplies{});
            check(ops::min{});
            check(ops::max{});
            return 0;
        });
    }
    BOOST_CHECK_EQUAL(bad, 0);
    // The one-call form and the accurate sum.
    const std::vector<double>& last = cases.back();
    const std::vector<double> mine(last.begin() + static_cast<std::ptrdiff_t>(block.start),
                                   last.begin() + static_cast<std::ptrdiff_t>(block.start + block.count));
    BOOST_CHECK_EQUAL(bits_of(treefold::all_reduce(w, my_part(last, layout::even_lower(n, w.size()), w.rank()))),
                      0x7ff8000000000000ULL);
    BOOST_CHECK_EQUAL(bits_of(accurate_reducer<>(w, l).all_reduce(mine)), 0x7ff8000000000000ULL);
    BOOST_CHECK_EQUAL(bits_of(binned_reducer<>(w, l).all_reduce(mine)), 0x7ff8000000000000ULL);
    // Rows: every column's NaN is canonical.
    row_reducer<double> rows(w, l, 2);
    std::vector<double> row_values;
    for (std::uint64_t i = block.start; i < block.start + block.count; ++i) {
        row_values.push_back(last[i]);
        row_values.push_back(-last[i]);
    }
    const std::vector<double> got = rows.all_reduce(row_values);
    BOOST_CHECK_EQUAL(bits_of(got[0]), 0x7ff8000000000000ULL);
    BOOST_CHECK_EQUAL(bits_of(got[1]), 0x7ff8000000000000ULL);
}
