// The reducer with schedule exchanges, beyond the same-bits matrix (test/conformance, which
// runs the three shipped generators up to p = 8): the oracle's bits, bit for bit on every rank,
// for folds the generators rarely pick (at every sub-communicator size) and for the shipped
// generators at the sizes above 8 this suite runs at, with layouts with empty and permuted
// blocks, non-commutative and serialized types; and errors reach every rank.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

using testing::mat2;
using testing::mat_mul;

/// Folds that the generators rarely pick: merge everything but one rank, collapse, prime merging.
struct gather_merge {
    static constexpr const char* name = "merge(p-1)";
    static topology::schedule make(int p)
    {
        return p == 1 ? topology::schedule{} : topology::schedule::merged(p - 1, {});
    }
};
struct collapse_three {
    static constexpr const char* name = "collapse(3k,3)";
    static topology::schedule make(int p)
    {
        if (p < 3) {
            return topology::recursive_doubling(p);
        }
        const int t = (p / 3) * 3;
        const int m = t / 3 + p - t;
        return topology::schedule::collapsed(t, 3, topology::factorisations(m).back().factors());
    }
};

/// Prime merging with as many remainders as the first stage has groups and more (p ≥ 5):
/// the core is the largest m ≤ p − 1 with two factors.
struct prime_merge {
    static constexpr const char* name = "pmerge";
    static topology::schedule make(int p)
    {
        for (int m = p - 1; m >= 4; --m) {
            for (const auto& f : topology::factorisations(m, 4)) {
                if (f.factors().size() >= 2) {
                    return topology::schedule::prime_merged(p - m, f.factors());
                }
            }
        }
        return topology::recursive_doubling(p);
    }
};

/// The sizes conformance leaves to this suite: every generator runs here only above them.
constexpr int conformance_max_p = 8;

/// The custom folds at every size (their bytes are returned), the shipped generators where
/// the size exceeds conformance_max_p (checked against the oracle only), on the rank-order
/// and the random layout, with kernel::scalar.
template <class T, class Op>
std::vector<unsigned char> check_all(const mpi::communicator& sub, const std::vector<T>& xs, Op op, std::uint64_t seed)
{
    std::vector<unsigned char> out;
    const T want = testing::oracle_reduce(xs, op);
    const int root = static_cast<int>(xs.size() % static_cast<std::size_t>(sub.size()));
    for (const auto& l : testing::basic_layouts(xs.size(), sub.size(), seed)) {
        auto run = [&]<class G>(G) {
            return testing::check_reducer<exchange::scheduled<G>, kernel::scalar>(sub, xs, l, op, want, root, "schedule");
        };
        for (const auto& bytes : {run(gather_merge{}), run(collapse_three{}), run(prime_merge{})}) {
            out.insert(out.end(), bytes.begin(), bytes.end());
        }
        if (sub.size() > conformance_max_p) {
            run(exchange::schedules::recursive_doubling{});
            run(model::schedules::heuristic{});
            run(model::schedules::best{});
        }
    }
    return out;
}

using testing::expect_same_across_sizes;

} // namespace

BOOST_AUTO_TEST_CASE(doubles_match_the_oracle)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : {1UL, 2UL, 3UL, 7UL, 8UL, 9UL, 31UL, 64UL, 100UL, 257UL, 1000UL}) {
            const auto xs = testing::mixed_values(n, n, n % 3 == 0);
            const auto bytes = check_all(sub, xs, std::plus<double>(), n * 31 + static_cast<std::uint64_t>(sub.size()));
            all.insert(all.end(), bytes.begin(), bytes.end());
        }
        return all;
    });
    expect_same_across_sizes(results, "double +");
}

BOOST_AUTO_TEST_CASE(non_commutative_and_serialized)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : {1UL, 5UL, 16UL, 33UL, 120UL}) {
            std::vector<mat2> ms(n);
            std::vector<std::string> words(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                ms[i] = {i + 2, 1, 3, i * 5 + 1};
                words[i] = std::to_string(i);
            }
            auto bracket = [](const std::string& x, const std::string& y) { return "(" + x + " " + y + ")"; };
            for (const auto& b : {check_all(sub, ms, mat_mul, n), check_all(sub, words, bracket, n + 1)}) {
                all.insert(all.end(), b.begin(), b.end());
            }
        }
        return all;
    });
    expect_same_across_sizes(results, "mat2 and strings");
}

BOOST_AUTO_TEST_CASE(errors_reach_every_rank)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        const std::uint64_t n = 50;
        const auto l = layout::block_layout::from_counts(layout::even_lower(n, p));
        const auto xs = testing::mixed_values(3, n, false);
        reducer<double, std::plus<double>, kernel::scalar, exchange::scheduled<model::schedules::best>> r(sub, l);
        const auto b = l.block_of(sub.rank());
        // The last rank passes one value too few: every rank throws invalid_argument.
        const std::size_t count = sub.rank() == p - 1 ? b.count - 1 : b.count;
        bool threw = false;
        try {
            r.all_reduce(std::span<const double>(xs.data() + b.start, count));
        } catch (const std::invalid_argument& e) {
            threw = std::string(e.what()).find("rank " + std::to_string(p - 1) + " passed") != std::string::npos;
        }
        BOOST_CHECK(threw);
        // Still usable afterwards.
        const double again = r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
        BOOST_CHECK(testing::bits_of(again) == testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
        // One message per schedule edge, no broadcast.
        const auto total = mpi::all_reduce(sub, r.last_counters().messages, std::plus<std::uint64_t>());
        BOOST_CHECK_EQUAL(total, model::schedules::best::make(p).messages(p));
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(best_sized_plans_by_frontier_bytes)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        const std::uint64_t n = 1000; // root level 10: frontier messages of 11 values
        const auto l = layout::block_layout::from_counts(layout::even_lower(n, p));
        using sized = exchange::scheduled<model::schedules::best_sized>;
        using small_plan = sized::plan<double>;
        using large_plan = sized::plan<std::array<double, 64>>;
        BOOST_CHECK_EQUAL(sized::message_bytes(n, sizeof(double)), 88u);
        BOOST_CHECK_EQUAL(sized::message_bytes(n, sizeof(std::array<double, 64>)), 5632u);
        const small_plan small(sub, l);
        const large_plan large(sub, l);
        BOOST_CHECK_EQUAL(small.schedule().parameters, model::schedules::best_sized::make(p, 88).to_string());
        BOOST_CHECK_EQUAL(large.schedule().parameters, model::schedules::best_sized::make(p, 5632).to_string());
        if (p == 16) { // past the eager limit the model turns from 4 4 to recursive doubling
            BOOST_CHECK_EQUAL(small.schedule().parameters, "4 4");
            BOOST_CHECK_EQUAL(large.schedule().parameters, "2 2 2 2");
        }
        const auto xs = testing::mixed_values(5, n, false);
        const double want = testing::oracle_reduce(xs, std::plus<double>());
        for (const auto& named : testing::basic_layouts(n, p, 7)) {
            testing::check_reducer<sized, kernel::scalar>(sub, xs, named, std::plus<double>(), want, 0, "best_sized");
        }
        return std::vector<unsigned char>{};
    });
}
