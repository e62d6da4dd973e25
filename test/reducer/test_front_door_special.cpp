// N = 0 and NaN results through every front door (test_front_door.cpp's other cases, in a
// unit of its own to keep each under a minute of compile time at -O2).
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

using testing::my_part;

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
