// The ways in: the one-call all_reduce / reduce with their plan cache, raw MPI_Comm wherever a
// communicator goes, reducers built from N and a distribution policy, make_reducer's tag
// arguments and class template argument deduction (row_reducer's buffer forms:
// test_front_door_rows.cpp; N = 0 and NaN results: test_front_door_special.cpp).
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/accurate_reducer.hpp"
#include "treefold/all_reduce.hpp"
#include "treefold/binned_reducer.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/layouts.hpp"
#include "treefold/layout/block_layout.hpp"
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


BOOST_AUTO_TEST_CASE(one_call_matches_the_oracle_as_sizes_change)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        const auto check = [&](std::uint64_t n, const std::vector<std::uint64_t>& counts, std::uint64_t seed) {
            const auto xs = testing::mixed_values(seed, n, false); // no NaN: its payload is not part of the promise
            const auto mine = testing::my_part(xs, counts, sub.rank());
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
        check(1000, testing::counts_with_empty(1000, p, 0), 3);
        check(1000, testing::counts_with_empty(1000, p, p - 1), 4);
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
    const auto mine = testing::my_part(xs, counts, w.rank());
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
