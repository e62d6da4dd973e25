// row_reducer's output-buffer overloads and failures, and the row width agreed on every rank
// (test_front_door.cpp's other front doors, in a unit of its own to keep each under a minute
// of compile time at -O2).
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

namespace {
using testing::counts_with_empty;

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
