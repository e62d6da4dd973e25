// The native exchange: frontier records and their merge (no MPI), then the records under the
// MPI library's own reductions: a merge that throws inside MPI, counters, record size. Then
// exchange::automatic's choice: agreed on every rank, forced by TREEFOLD_EXCHANGE, read from
// a TREEFOLD_CALIBRATION file.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/frontier.hpp"
#include "treefold/exchange/detail/records.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

using namespace treefold;
namespace mpi = boost::mpi;
using index_tree::index_t;

namespace {

double skew(double a, double b) { return a * 0.5 + b * 1.5; } // neither associative nor commutative

std::vector<double> values(index_t n)
{
    std::vector<double> xs(n);
    for (index_t i = 0; i < n; ++i) {
        xs[i] = 1.0 + static_cast<double>(i % 7) / 8.0;
    }
    return xs;
}

/// The record of [s, e): the frontier's values computed with the scalar kernel.
std::vector<char> record_of(const frontier_record<double>& f, const std::vector<double>& xs, index_t s, index_t e)
{
    std::vector<double> vals;
    auto op = &skew;
    index_tree::for_each_maximal_node(s, e, xs.size(), [&](index_tree::node v) {
        vals.push_back(kernel::scalar::reduce_node(xs.data() + v.x, index_tree::cover_size(v, xs.size()), op));
    });
    std::vector<char> r(f.bytes());
    f.write(r.data(), s, e, vals.data());
    return r;
}

bool same_record(const std::vector<char>& a, const std::vector<char>& b, std::size_t values_count)
{
    return std::memcmp(a.data(), b.data(), frontier_record<double>::head_bytes + values_count * sizeof(double)) == 0;
}

} // namespace

BOOST_AUTO_TEST_CASE(record_merge_is_the_frontier_of_the_union)
{
    // merge(record[a, b), record[b, c)) == record[a, c) for every a <= b <= c.
    for (const index_t n : {index_t{1}, index_t{2}, index_t{5}, index_t{17}, index_t{33}}) {
        const auto xs = values(n);
        frontier_record<double> f(n);
        auto op = &skew;
        std::exception_ptr own;
        for (index_t a = 0; a <= n; ++a) {
            for (index_t b = a; b <= n; ++b) {
                for (index_t c = b; c <= n; ++c) {
                    const auto left = record_of(f, xs, a, b);
                    auto right = record_of(f, xs, b, c);
                    f.merge(left.data(), right.data(), op, 0, own);
                    BOOST_REQUIRE_MESSAGE(same_record(right, record_of(f, xs, a, c), index_tree::maximal_node_count(a, c, n)),
                                          "n " << n << " [" << a << ", " << b << ") + [" << b << ", " << c << ")");
                }
            }
        }
        if (n > 0) {
            double root = 0;
            BOOST_CHECK(!f.read_result(record_of(f, xs, 0, n).data(), root));
            BOOST_CHECK_EQUAL(testing::bits_of(root), testing::bits_of(testing::oracle_reduce(xs, op)));
        }
        BOOST_CHECK(!own);
    }
}

BOOST_AUTO_TEST_CASE(record_has_room_for_every_frontier)
{
    // Per-process arithmetic, the lengths dealt out over the ranks (every rank checking every
    // length took 3.8 s at p = 8, oversubscribed on 2 cores).
    for (index_t n = 1; n <= 300; ++n) {
        if (!testing::dealt_here(n)) {
            continue;
        }
        frontier_record<double> f(n);
        std::size_t most = 0;
        for (index_t a = 0; a < n; ++a) {
            for (index_t b = a; b <= n; ++b) {
                most = std::max(most, index_tree::maximal_node_count(a, b, n));
            }
        }
        BOOST_REQUIRE_MESSAGE(most <= f.capacity(), "n " << n << ": " << most << " nodes, room for " << f.capacity());
    }
    // N = 460 doubles (the phylogenetics case): 2 * 9 values, 144 bytes, after the head.
    BOOST_CHECK_EQUAL(frontier_record<double>(460).bytes(), 24u + 144u);
    // Small frontiers leave room for a failure's head only (its text is cut to fit).
    BOOST_CHECK_EQUAL(frontier_record<double>(2).bytes(), 24u + failure::min_record_bytes);
    BOOST_CHECK_EQUAL(frontier_record<double>(2, 1).bytes(), 24u + 25u);
    BOOST_CHECK_EQUAL(frontier_record<double>(460, 5).bytes(), 24u + 40u);
}

BOOST_AUTO_TEST_CASE(a_failure_is_cut_to_its_record_text_first)
{
    failure f = failure::local_size(7, 1, 2);
    f.what = failure::code::op_threw;
    f.text = "the operator refused these two values";
    f.type = "std::range_error";
    // Full room: all of it; room for the head alone: no text, no type; in between the text
    // is kept before the type name. Each cut decodes to a prefix of the original.
    BOOST_CHECK_EQUAL(encode(f).size(), failure::min_record_bytes + f.text.size() + f.type.size());
    for (std::size_t room = failure::min_record_bytes; room <= failure::max_record_bytes; ++room) {
        const auto bytes = encode(f, room);
        BOOST_REQUIRE_LE(bytes.size(), room);
        const failure back = decode_failure(bytes.data(), bytes.size());
        BOOST_CHECK_EQUAL(back.rank, 7);
        BOOST_CHECK(back.what == failure::code::op_threw);
        const std::size_t kept = std::min(f.text.size(), room - failure::min_record_bytes);
        BOOST_CHECK_EQUAL(back.text, f.text.substr(0, kept));
        BOOST_CHECK_EQUAL(back.type, f.type.substr(0, std::min(f.type.size(), room - failure::min_record_bytes - kept)));
    }
    // In the record of N = 460 with room for 5 values (40 bytes) the head, the text's
    // length byte and 15 bytes of text travel.
    frontier_record<double> r(460, 5);
    std::vector<char> rec(r.bytes());
    r.write_failure(rec.data(), f);
    double v = 0;
    const auto back = r.read_result(rec.data(), v);
    BOOST_REQUIRE(back);
    BOOST_CHECK_EQUAL(back->text, "the operator re");
    BOOST_CHECK(back->type.empty());
}

BOOST_AUTO_TEST_CASE(merge_of_non_adjacent_ranges_is_an_error_not_a_result)
{
    const index_t n = 20;
    const auto xs = values(n);
    frontier_record<double> f(n);
    auto op = &skew;
    std::exception_ptr own;
    const auto left = record_of(f, xs, 0, 3);
    auto right = record_of(f, xs, 4, 9); // index 3 is missing
    f.merge(left.data(), right.data(), op, 5, own);
    double v = 0;
    const auto failed = f.read_result(right.data(), v);
    BOOST_REQUIRE(failed);
    BOOST_CHECK(failed->what == failure::code::out_of_order);
    BOOST_CHECK_EQUAL(failed->rank, 5);
    BOOST_CHECK_EQUAL(failed->got, 3u);
    BOOST_CHECK_EQUAL(failed->want, 4u);
    BOOST_CHECK(failed->message().find("non-adjacent") != std::string::npos);
    // Swapped operands (a commuted merge) are caught the same way.
    auto swapped = record_of(f, xs, 0, 3);
    f.merge(record_of(f, xs, 3, 9).data(), swapped.data(), op, 1, own);
    BOOST_CHECK(f.read_result(swapped.data(), v)->what == failure::code::out_of_order);
    BOOST_CHECK(!own);
}

BOOST_AUTO_TEST_CASE(empty_ranges_are_the_identity_and_failures_win)
{
    const index_t n = 12;
    const auto xs = values(n);
    frontier_record<double> f(n);
    auto op = &skew;
    std::exception_ptr own;
    const auto whole = record_of(f, xs, 0, n);
    auto right = record_of(f, xs, 7, 7);
    f.merge(whole.data(), right.data(), op, 0, own); // whole + empty
    BOOST_CHECK(same_record(right, whole, 1));
    auto again = whole;
    f.merge(record_of(f, xs, 3, 3).data(), again.data(), op, 0, own); // empty + whole
    BOOST_CHECK(same_record(again, whole, 1));

    std::vector<char> bad(f.bytes());
    f.write_failure(bad.data(), failure::local_size(3, 4, 5));
    auto r = record_of(f, xs, 6, n);
    f.merge(bad.data(), r.data(), op, 0, own); // a failure on the left replaces the values
    double v = 0;
    BOOST_CHECK_EQUAL(f.read_result(r.data(), v)->rank, 3);
    f.merge(record_of(f, xs, 0, 6).data(), bad.data(), op, 0, own); // and is kept on the right
    BOOST_CHECK_EQUAL(f.read_result(bad.data(), v)->got, 4u);
}

BOOST_AUTO_TEST_CASE(operator_throwing_inside_the_mpi_reduction_reaches_every_rank)
{
    // One value per rank: the local kernel never calls the operator, so it runs only in the
    // merges inside the MPI library. It throws when combining x_a and x_a+1, on whichever
    // rank(s) the library does that; that rank rethrows it, every other rank gets
    // remote_failure naming a rank that threw, with the whole text although the record (N = p)
    // has no room for it. x_a and x_a+1 are leaf siblings for even a; with a the last such pair
    // the lowest ranks typically hold only the record's cut copy: the agreement must take the
    // failure from a rank that threw, not the lowest one.
    const auto& w = testing::world();
    if (w.size() < 2) {
        return;
    }
    const auto p = static_cast<index_t>(w.size());
    const auto l = layout::block_layout::from_counts(layout::even_lower(p, w.size()));
    for (const double a : {0.0, static_cast<double>((w.size() - 2) / 2 * 2)}) {
        auto op = [a](double x, double y) {
            if (x == a && y == a + 1.0) {
                throw std::runtime_error("merge refused");
            }
            return x + y;
        };
        reducer<double, decltype(op), kernel::scalar, exchange::native> r(w, l, op);
        const double mine = static_cast<double>(w.rank());
        for (int call = 0; call < 2; ++call) {
            int threw_here = 0;
            int named = -1;
            try {
                r.all_reduce(std::span<const double>(&mine, 1));
            } catch (const remote_failure& e) {
                named = e.info.rank;
                BOOST_CHECK_MESSAGE(e.info.text == "merge refused", "a = " << a << ": text '" << e.info.text << "'");
            } catch (const std::runtime_error& e) {
                threw_here = std::string(e.what()) == "merge refused" ? 1 : 0;
            }
            std::vector<int> threw;
            mpi::all_gather(w, threw_here, threw);
            BOOST_CHECK(threw_here == 1 || (named >= 0 && threw[static_cast<std::size_t>(named)] == 1));
        }
    }
}

BOOST_AUTO_TEST_CASE(counters_name_one_collective_and_no_message)
{
    const auto& w = testing::world();
    const index_t n = 460;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = values(n);
    const auto b = l.block_of(w.rank());
    reducer<double, std::plus<double>, kernel::scalar, exchange::native> r(w, l);
    const double v = r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
    BOOST_CHECK_EQUAL(testing::bits_of(v), testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    BOOST_CHECK_EQUAL(r.last_counters().messages, 0u);
    BOOST_CHECK_EQUAL(r.last_counters().collectives, 1u);
    // The record of the layout's runs of blocks: at p = 2, 5 values (64 bytes).
    const std::size_t room = exchange::native_plan<double>::record_capacity(l);
    BOOST_CHECK_EQUAL(r.last_counters().collective_bytes, frontier_record<double>(n, room).bytes());
    if (w.size() == 2) {
        BOOST_CHECK_EQUAL(r.last_counters().collective_bytes, 64u);
    }
}

// The record has room for the largest frontier of a run of consecutive blocks, not of any
// range: at N = 10^6 (up to 21 nodes for p <= 8, against 40 for any range) it is smaller than
// the any-range record, and a layout with empty blocks and blocks out of rank order still fits.
BOOST_AUTO_TEST_CASE(record_sized_by_the_layout)
{
    const auto& w = testing::world();
    const index_t n = 1000000;
    const auto xs = values(n);
    const auto want = testing::bits_of(testing::oracle_reduce(xs, std::plus<double>()));
    const auto even = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    // ranks p-1, ..., 1 hold consecutive chunks (reverse rank order), rank 0 none (p > 1)
    std::vector<layout::block> reversed(static_cast<std::size_t>(w.size()));
    const int holders = w.size() > 1 ? w.size() - 1 : 1;
    index_t at = 0;
    for (int k = 0; k < holders; ++k) {
        const int rank = w.size() - 1 - k;
        const index_t count = k + 1 == holders ? n - at : n / static_cast<index_t>(holders);
        reversed[static_cast<std::size_t>(rank)] = {at, count};
        at += count;
    }
    for (const auto& l : {even, layout::block_layout::from_blocks(reversed)}) {
        const auto b = l.block_of(w.rank());
        reducer<double, std::plus<double>, kernel::scalar, exchange::native> r(w, l);
        const double v = r.all_reduce(std::span<const double>(xs.data() + (b.count > 0 ? b.start : 0), b.count));
        BOOST_CHECK_EQUAL(testing::bits_of(v), want);
        BOOST_CHECK_LT(r.last_counters().collective_bytes, frontier_record<double>(n).bytes());
    }
}

namespace {

/// The choice automatic makes for N values on `w`, with every rank's choice gathered.
std::vector<std::string> choices(const mpi::communicator& w, index_t n)
{
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    reducer<double, std::plus<double>, kernel::scalar, exchange::automatic> r(w, l);
    const auto xs = values(n);
    const auto b = l.block_of(w.rank());
    const double v = r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
    BOOST_CHECK_EQUAL(testing::bits_of(v), testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    std::vector<std::string> all;
    mpi::all_gather(w, std::string(r.exchange_used()), all);
    return all;
}

} // namespace

BOOST_AUTO_TEST_CASE(automatic_chooses_one_candidate_on_every_rank)
{
    const auto& w = testing::world();
    for (const index_t n : {index_t{3}, index_t{460}, index_t{100000}}) {
        const auto all = choices(w, n);
        BOOST_CHECK(std::find(exchange::automatic_candidates::names.begin(), exchange::automatic_candidates::names.end(), all[0]) !=
                    exchange::automatic_candidates::names.end());
        BOOST_CHECK(std::all_of(all.begin(), all.end(), [&](const std::string& c) { return c == all[0]; }));
        BOOST_CHECK(choices(w, n) == all); // cached: the same choice again
    }
}

BOOST_AUTO_TEST_CASE(automatic_follows_treefold_exchange)
{
    const auto& w = testing::world();
    for (const char* name : {"direct", "binomial", "native"}) {
        setenv("TREEFOLD_EXCHANGE", name, 1);
        const auto all = choices(w, 1000);
        BOOST_CHECK(std::all_of(all.begin(), all.end(), [&](const std::string& c) { return c == name; }));
    }
    // An unknown name, and (from p = 2) names that differ between ranks: every rank throws.
    const auto l = layout::block_layout::from_counts(layout::even_lower(10, w.size()));
    setenv("TREEFOLD_EXCHANGE", "fibonacci", 1);
    BOOST_CHECK_THROW((reducer<double, std::plus<double>, kernel::scalar, exchange::automatic>(w, l)),
                      std::invalid_argument);
    if (w.size() > 1) {
        setenv("TREEFOLD_EXCHANGE", w.rank() == 0 ? "direct" : "native", 1);
        BOOST_CHECK_THROW((reducer<double, std::plus<double>, kernel::scalar, exchange::automatic>(w, l)),
                          std::invalid_argument);
    }
    unsetenv("TREEFOLD_EXCHANGE");
}

BOOST_AUTO_TEST_CASE(automatic_prefers_the_simpler_candidate_within_the_noise)
{
    using treefold::exchange::detail::simplest_within;
    constexpr double tol = treefold::exchange::automatic::choice_tolerance;
    // The first candidate within the tolerance of the least wins; a clear winner still wins.
    BOOST_CHECK_EQUAL(simplest_within({1.0, 0.95, 0.5}, tol), 2);
    BOOST_CHECK_EQUAL(simplest_within({1.0 + tol / 2, 1.0, 1.0 + tol / 4}, tol), 0);
    BOOST_CHECK_EQUAL(simplest_within({2.0, 1.0 + tol / 2, 1.0 + tol, 1.0}, tol), 1);
    BOOST_CHECK_EQUAL(simplest_within({1.0 + 2 * tol, 1.0}, tol), 1);
    BOOST_CHECK_EQUAL(simplest_within({1.0 + 2 * tol, 1.0 + tol / 2, 1.0}, tol), 1);
    BOOST_CHECK_EQUAL(simplest_within({3.0, 3.0, 3.0}, 0.0), 0);
}

BOOST_AUTO_TEST_CASE(automatic_samples_short_calls_in_batches)
{
    using treefold::exchange::detail::calibration_batch;
    // A sample fills 16 µs: short calls are timed 16 at a time, long ones (an oversubscribed
    // node) one at a time; a call too short for the timer counts as short.
    BOOST_CHECK_EQUAL(calibration_batch(0.3e-6), 16);
    BOOST_CHECK_EQUAL(calibration_batch(1e-6), 16);
    BOOST_CHECK_EQUAL(calibration_batch(2e-6), 8);
    BOOST_CHECK_EQUAL(calibration_batch(5e-6), 3);
    BOOST_CHECK_EQUAL(calibration_batch(16e-6), 1);
    BOOST_CHECK_EQUAL(calibration_batch(1e-3), 1);
    BOOST_CHECK_EQUAL(calibration_batch(0.0), 16);
}

BOOST_AUTO_TEST_CASE(automatic_reads_treefold_calibration)
{
    // A file (as `treefold calibrate` writes it) answers for the (p, level, bytes) it lists;
    // a file that cannot be read, or a bad line, throws on every rank.
    const auto& w = testing::world();
    if (w.size() < 2) {
        return; // one rank never calibrates
    }
    const std::string dir = std::filesystem::temp_directory_path().string();
    const std::string good = dir + "/treefold_cal_" + std::to_string(mpi::all_reduce(w, ::getpid(), mpi::minimum<int>()));
    if (w.rank() == 0) {
        std::ofstream f(good);
        f << "# a comment\nmpi " << exchange::detail::mpi_library() << "\n"
          << w.size() << " 10 8 direct\n" << w.size() << " 11 8 binomial\n";
    }
    w.barrier();
    setenv("TREEFOLD_CALIBRATION", good.c_str(), 1);
    const auto at_1000 = choices(w, 1000); // ceil(log2 1000) = 10
    const auto at_2000 = choices(w, 2000);
    BOOST_CHECK(std::all_of(at_1000.begin(), at_1000.end(), [](const std::string& c) { return c == "direct"; }));
    BOOST_CHECK(std::all_of(at_2000.begin(), at_2000.end(), [](const std::string& c) { return c == "binomial"; }));
    const auto l = layout::block_layout::from_counts(layout::even_lower(10, w.size()));
    // Missing, naming no candidate, or timed under another MPI library: refused everywhere.
    for (const auto& bad : {good + ".missing", good + ".bad", good + ".other_mpi"}) {
        if (w.rank() == 0) {
            std::ofstream(good + ".bad") << w.size() << " 4 8 ring\n";
            std::ofstream(good + ".other_mpi") << "mpi Some Other MPI 1.0\n" << w.size() << " 4 8 direct\n";
        }
        w.barrier();
        setenv("TREEFOLD_CALIBRATION", bad.c_str(), 1);
        BOOST_CHECK_THROW((reducer<double, std::plus<double>, kernel::scalar, exchange::automatic>(w, l)),
                          std::invalid_argument);
    }
    unsetenv("TREEFOLD_CALIBRATION");
    w.barrier();
    if (w.rank() == 0) {
        std::filesystem::remove(good);
        std::filesystem::remove(good + ".bad");
        std::filesystem::remove(good + ".other_mpi");
    }
}
