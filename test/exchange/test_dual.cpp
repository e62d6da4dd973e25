// The tree exchange whose result goes out through the MPI library's MPI_Bcast (a dual tree:
// the summation tree fixed by the index, the communication tree the shape): what it sends,
// a failure that reaches every rank through the second broadcast, and the point-to-point
// fallback for serialised elements. Its bits are in the conformance suite.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/plan_messages.hpp"
#include "treefold/reducer.hpp"

#include <boost/serialization/string.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace treefold;
using index_tree::index_t;

namespace {

using dual4 = exchange::tree<topology::m_ary<4>, exchange::result_broadcast::mpi>;

std::vector<double> values(index_t n)
{
    std::vector<double> xs(n);
    for (index_t i = 0; i < n; ++i) {
        xs[i] = 1.0 / static_cast<double>(i + 3);
    }
    return xs;
}

} // namespace

BOOST_AUTO_TEST_CASE(tree_messages_then_one_broadcast)
{
    const auto& w = testing::world();
    const index_t n = 460;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = values(n);
    const auto b = l.block_of(w.rank());
    reducer<double, std::plus<double>, kernel::scalar, dual4> r(w, l);
    BOOST_CHECK_EQUAL(std::string(dual4::name), "dual4");
    BOOST_CHECK_EQUAL(std::string(r.exchange_used()), "dual4");
    const double v = r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
    BOOST_CHECK_EQUAL(testing::bits_of(v), testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    const auto& c = r.last_counters();
    const bool finisher = w.rank() == l.index_order()[0]; // the shape's root position
    // Point to point: only the tree's messages towards the root (one per rank but the root).
    BOOST_CHECK_EQUAL(c.messages, finisher ? 0u : 1u);
    // One MPI_Bcast on every rank; its 4-byte header and the value counted on the root only.
    BOOST_CHECK_EQUAL(c.collectives, w.size() > 1 ? 1u : 0u);
    BOOST_CHECK_EQUAL(c.collective_bytes, finisher && w.size() > 1 ? 4u + sizeof(double) : 0u);
}

BOOST_AUTO_TEST_CASE(an_operator_throwing_on_the_root_reaches_every_rank_with_its_text)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return; // no broadcast
    }
    const index_t n = 64;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = values(n);
    const auto b = l.block_of(w.rank());
    const int root = l.index_order()[0]; // the shape's root position
    const double limit = 0.9 * testing::oracle_reduce(xs, std::plus<double>());
    // Throws only on the finisher, in its last combines: no message follows but the broadcast.
    auto op = [&w, root, limit](double x, double y) {
        if (w.rank() == root && x + y > limit) {
            throw std::runtime_error("root says no");
        }
        return x + y;
    };
    reducer<double, decltype(op), kernel::scalar, dual4> r(w, l, op);
    bool right = false;
    try {
        (void)r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
    } catch (const remote_failure& e) {
        right = w.rank() != root && e.info.rank == root && e.info.text == "root says no";
    } catch (const std::runtime_error& e) {
        right = w.rank() == root && std::string(e.what()) == "root says no";
    }
    BOOST_CHECK(testing::all_ranks(w, right));
    // The failure record made a second broadcast.
    BOOST_CHECK_EQUAL(r.last_counters().collectives, 2u);
    // The next call is unharmed (the same operator throws again, the same way).
    bool again = false;
    try {
        (void)r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
    } catch (const std::runtime_error&) {
        again = true;
    }
    BOOST_CHECK(testing::all_ranks(w, again));
}

BOOST_AUTO_TEST_CASE(serialised_elements_are_broadcast_point_to_point)
{
    const auto& w = testing::world();
    const index_t n = 40;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    std::vector<std::string> xs(n);
    for (index_t i = 0; i < n; ++i) {
        xs[i] = std::string(1, static_cast<char>('a' + i % 26));
    }
    const auto b = l.block_of(w.rank());
    reducer<std::string, std::plus<std::string>, kernel::scalar, dual4> r(w, l);
    const std::string v = r.all_reduce(std::span<const std::string>(xs.data() + b.start, b.count));
    BOOST_CHECK_EQUAL(v, testing::oracle_reduce(xs, std::plus<std::string>()));
    BOOST_CHECK_EQUAL(r.last_counters().collectives, 0u);
    const auto total = boost::mpi::all_reduce(w, r.last_counters().messages, std::plus<std::uint64_t>());
    BOOST_CHECK_EQUAL(total, model::tree_exchange_messages(l) + model::broadcast_messages(w.size()));
}
