// The reducer's interface beyond the same-bits matrix (test/conformance): no value for empty
// input without an identity, layouts declared collectively, message counters, and reducers sharing a communicator.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/message_count.hpp"
#include "treefold/model/plan_messages.hpp"
#include "treefold/reducer.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;
using testing::bits_of;

// N = 0 under an operator without an identity (ops::identity) has no value; treefold's own
// operators give their identity (test_front_door).
BOOST_AUTO_TEST_CASE(empty_input_has_no_value)
{
    const auto& w = testing::world();
    const auto l = layout::block_layout::from_counts(layout::even_lower(0, w.size()));
    auto minus = [](double a, double b) { return a - b; };
    reducer<double, decltype(minus)> r(w, l, minus);
    BOOST_CHECK_THROW(r.all_reduce({}), std::domain_error);
    BOOST_CHECK_THROW(r.reduce({}, 0), std::domain_error);
    BOOST_CHECK_EQUAL(reducer<double>(w, l).all_reduce({}), 0.0);
}

// The test kit's sweep: element k - 1 comes from a sub-communicator of size k, and every size
// runs exactly once (counted over all ranks).
BOOST_AUTO_TEST_CASE(on_every_size_runs_each_size_once)
{
    const auto& w = testing::world();
    int runs_here = 0;
    const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
        ++runs_here;
        const int size = sub.size();
        return testing::bytes_of(size);
    });
    BOOST_REQUIRE_EQUAL(results.size(), static_cast<std::size_t>(w.size()));
    for (int k = 1; k <= w.size(); ++k) {
        BOOST_TEST(results[static_cast<std::size_t>(k - 1)] == testing::bytes_of(k), "size " << k);
    }
    // World rank r is in the size-k group for k > r and, beside it, in the size-(p - k) group
    // for the k <= r with p - k < k; every size 1..p ran once, so the runs add up to p(p+1)/2.
    const int total = mpi::all_reduce(w, runs_here, std::plus<int>());
    BOOST_TEST(total == w.size() * (w.size() + 1) / 2);
}

// mixed_values keeps large arrays per process: a kept array is the one it would generate.
BOOST_AUTO_TEST_CASE(mixed_values_kept_equal_generated)
{
    for (const std::uint64_t n : {255ULL, 256ULL, 5000ULL}) {
        const auto first = testing::mixed_values(n * 3, n, true);
        const auto again = testing::mixed_values(n * 3, n, true);
        const auto fresh = testing::detail::generate_mixed_values(n * 3, n, true);
        BOOST_TEST(testing::same_bits(first, fresh));
        BOOST_TEST(testing::same_bits(again, fresh));
        BOOST_TEST(!testing::same_bits(testing::mixed_values(n * 3 + 1, n, true), fresh));
    }
}

BOOST_AUTO_TEST_CASE(collective_layout_builders)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        // Each rank declares its own block: rank r holds the r-th block from the end.
        const std::uint64_t n = 777;
        const auto counts = layout::even_upper(n, sub.size());
        const int mirrored = sub.size() - 1 - sub.rank();
        std::uint64_t start = 0;
        for (int r = 0; r < mirrored; ++r) {
            start += counts[static_cast<std::size_t>(r)];
        }
        const auto l = layout_from_block(sub, start, counts[static_cast<std::size_t>(mirrored)]);
        BOOST_CHECK_EQUAL(l.size(), n);
        BOOST_CHECK_EQUAL(l.owner(0), sub.size() - 1);
        const auto xs = testing::mixed_values(5, n, false);
        const auto l2 = layout_from_local_size(sub, counts[static_cast<std::size_t>(sub.rank())]);
        BOOST_CHECK(l2 == layout::block_layout::from_counts(counts));
        const double want = testing::oracle_reduce(xs, std::plus<double>());
        const int root = static_cast<int>(n % static_cast<std::uint64_t>(sub.size()));
        std::vector<unsigned char> all;
        for (const auto& lay : {l, l2}) {
            const auto b = testing::check_reducer<exchange::direct, kernel::scalar>(
                sub, xs, testing::named_layout{"declared blocks", lay}, std::plus<double>(), want, root, "declared blocks");
            all.insert(all.end(), b.begin(), b.end());
        }
        return all;
    });
    testing::expect_same_across_sizes(results, "collective layout builders");
}

BOOST_AUTO_TEST_CASE(counters_report_messages)
{
    const auto& w = testing::world();
    const std::uint64_t n = 1000;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = testing::mixed_values(1, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);

    reducer<double, std::plus<double>, kernel::scalar, exchange::tree<>> tr(w, l);
    tr.reduce(local, 0);
    const auto tree_total = mpi::all_reduce(w, tr.last_counters().messages, std::plus<std::uint64_t>());
    // p - 1 to the finisher and p - 1 in the broadcast (a reduce sends what all_reduce sends).
    BOOST_CHECK_EQUAL(tree_total, 2 * static_cast<std::uint64_t>(w.size() - 1));

    reducer<double, std::plus<double>, kernel::best, exchange::direct> dr(w, l);
    dr.reduce(local, 0);
    const auto direct_total = mpi::all_reduce(w, dr.last_counters().messages, std::plus<std::uint64_t>());
    // Buffering can only merge messages: at least one per target, at most the unbuffered count.
    BOOST_CHECK_LE(direct_total, model::direct_messages(l) + model::broadcast_messages(w.size()));
    BOOST_CHECK(w.size() == 1 ? direct_total == 0 : direct_total >= 1);
    const auto bytes = mpi::all_reduce(w, dr.last_counters().bytes, std::plus<std::uint64_t>());
    BOOST_CHECK_EQUAL(bytes % sizeof(double), 0u);
}

BOOST_AUTO_TEST_CASE(reducers_on_one_communicator_do_not_cross)
{
    // Two reducers with different operators interleave calls and user traffic on `world`.
    const auto& w = testing::world();
    const std::uint64_t n = 333;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = testing::mixed_values(3, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    auto skew = [](double x, double y) { return x * 0.5 + y * 1.5; };
    reducer<double> plus(w, l);
    reducer<double, decltype(skew)> other(w, l, skew);
    if (w.size() > 1 && w.rank() == 1) {
        w.send(0, 0, 42.0); // user traffic with the reducers' tag, on the user's communicator
    }
    const double a = plus.all_reduce(local);
    const double c = other.all_reduce(local);
    if (w.size() > 1 && w.rank() == 0) {
        double v = 0;
        w.recv(1, 0, v);
        BOOST_CHECK_EQUAL(v, 42.0);
    }
    BOOST_CHECK_EQUAL(bits_of(a), bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    BOOST_CHECK_EQUAL(bits_of(c), bits_of(testing::oracle_reduce(xs, skew)));
}
