// Tree index math, range decomposition, the frontier merge and the scalar kernel.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/frontier.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/index_tree/node.hpp"

#include <random>
#include <string>
#include <vector>

using namespace treefold;
using index_tree::index_t;
using index_tree::node;

namespace {

// An order-revealing operator: the value of a node spells out its whole bracketing.
struct spell {
    std::string operator()(const std::string& a, const std::string& b) const { return "(" + a + " " + b + ")"; }
};

std::vector<std::string> leaves(index_t n)
{
    std::vector<std::string> xs;
    for (index_t i = 0; i < n; ++i) {
        xs.push_back(std::to_string(i));
    }
    return xs;
}

// The frontier of [s, e) built node by node with the scalar kernel.
frontier<std::string> frontier_of(const std::vector<std::string>& xs, index_t s, index_t e)
{
    spell op;
    frontier<std::string> f(xs.size());
    index_tree::for_each_maximal_node(s, e, xs.size(), [&](node v) {
        f.push(v, kernel::scalar::reduce_node(xs.data() + v.x, index_tree::cover_size(v, xs.size()), op), op);
    });
    return f;
}

} // namespace

BOOST_AUTO_TEST_CASE(root_level_and_cover)
{
    BOOST_CHECK_EQUAL(index_tree::root_level(0), 0u);
    BOOST_CHECK_EQUAL(index_tree::root_level(1), 0u);
    BOOST_CHECK_EQUAL(index_tree::root_level(2), 1u);
    BOOST_CHECK_EQUAL(index_tree::root_level(5), 3u);
    BOOST_CHECK_EQUAL(index_tree::root_level(index_t{1} << 40), 40u);
    BOOST_CHECK_EQUAL(index_tree::root_level((index_t{1} << 40) + 1), 41u);
    BOOST_CHECK_EQUAL(index_tree::root_level(index_tree::max_size), 63u);
    BOOST_CHECK_EQUAL(index_tree::cover_end(node{4, 2}, 7), 7u);
    BOOST_CHECK_EQUAL(index_tree::cover_end(node{0, 63}, index_tree::max_size), index_tree::max_size);
    BOOST_CHECK(index_tree::parent(node{6, 1}) == (node{4, 2}));
    BOOST_CHECK(index_tree::parent(node{4, 2}) == (node{0, 3}));
    BOOST_CHECK(index_tree::is_left_child(node{4, 1}));
    BOOST_CHECK(!index_tree::is_left_child(node{6, 1}));
    BOOST_CHECK(index_tree::promote(node{4, 0}, 5) == (node{4, 2}));
    BOOST_CHECK(index_tree::promote(node{0, 2}, 4) == (node{0, 2}));
    BOOST_CHECK(index_tree::is_node(node{8, 3}, 9));
    BOOST_CHECK(!index_tree::is_node(node{4, 3}, 9));
}

BOOST_AUTO_TEST_CASE(decomposition_covers_exactly_with_maximal_nodes)
{
    for (index_t n = 1; n <= 70; ++n) {
        for (index_t s = 0; s <= n; ++s) {
            for (index_t e = s; e <= n; ++e) {
                index_t next = s;
                bool ok = true;
                const auto nodes = index_tree::maximal_nodes(s, e, n);
                for (const node v : nodes) {
                    ok = ok && index_tree::is_node(v, n) && v.x == next && index_tree::cover_end(v, n) <= e;
                    // maximal: the parent's cover is not inside [s, e)
                    if (v.level < index_tree::root_level(n)) {
                        const node up = index_tree::parent(v);
                        ok = ok && (up.x < s || index_tree::cover_end(up, n) > e);
                    }
                    next = index_tree::cover_end(v, n);
                }
                ok = ok && next == e && nodes.size() <= index_tree::max_frontier_nodes;
                if (!ok) {
                    BOOST_ERROR("bad decomposition of [" << s << ", " << e << ") for N = " << n);
                    return;
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(merge_of_adjacent_frontiers_is_the_frontier_of_the_union)
{
    // merge(frontier[a,b), frontier[b,c)) == frontier[a,c), nodes and values, all a <= b <= c.
    spell op;
    std::size_t checked = 0;
    for (index_t n = 1; n <= 34; ++n) {
        const auto xs = leaves(n);
        for (index_t a = 0; a <= n; ++a) {
            for (index_t c = a; c <= n; ++c) {
                const auto whole = frontier_of(xs, a, c);
                for (index_t b = a; b <= c; ++b) {
                    auto merged = frontier_of(xs, a, b);
                    merged.merge(frontier_of(xs, b, c), op);
                    const bool same_nodes = std::equal(merged.nodes().begin(), merged.nodes().end(),
                                                       whole.nodes().begin(), whole.nodes().end());
                    const bool same_values = std::equal(merged.values().begin(), merged.values().end(),
                                                        whole.values().begin(), whole.values().end());
                    if (!same_nodes || !same_values) {
                        BOOST_ERROR("merge differs for N = " << n << " a = " << a << " b = " << b << " c = " << c);
                        return;
                    }
                    ++checked;
                }
            }
        }
    }
    BOOST_TEST_MESSAGE("merges checked: " << checked);
}

BOOST_AUTO_TEST_CASE(frontier_reports_the_range_it_covers)
{
    for (index_t n = 1; n <= 40; ++n) {
        const auto xs = leaves(n);
        for (index_t s = 0; s < n; ++s) {
            for (index_t e = s + 1; e <= n; ++e) {
                const auto f = frontier_of(xs, s, e);
                if (f.begin_index() != s || f.end_index() != e || f.tree_size() != n) {
                    BOOST_ERROR("frontier of [" << s << ", " << e << ") in N = " << n << " reports [" << f.begin_index()
                                                << ", " << f.end_index() << ") in N = " << f.tree_size());
                    return;
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(frontier_values_are_tree_nodes)
{
    spell op;
    for (index_t n = 1; n <= 40; ++n) {
        const auto xs = leaves(n);
        for (index_t s = 0; s < n; ++s) {
            const auto f = frontier_of(xs, s, n);
            for (std::size_t i = 0; i < f.node_count(); ++i) {
                const node v = f.nodes()[i];
                BOOST_CHECK_EQUAL(f.values()[i], testing::oracle_node(xs, v.x, v.level, op));
            }
        }
        // The whole range is one node, the root, equal to the oracle's root.
        const auto all = frontier_of(xs, 0, n);
        BOOST_REQUIRE_EQUAL(all.node_count(), 1u);
        BOOST_CHECK_EQUAL(all.values()[0], testing::oracle_reduce(xs, op));
    }
}

BOOST_AUTO_TEST_CASE(scalar_kernel_matches_oracle_on_non_associative_op)
{
    auto op = [](double a, double b) { return a * 0.5 + b * 1.5; };
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (index_t n = 1; n <= 300; ++n) {
        std::vector<double> xs(n);
        for (auto& x : xs) {
            x = u(rng);
        }
        const double got = kernel::scalar::reduce_node(xs.data(), n, op);
        const double want = testing::oracle_reduce(xs, op);
        BOOST_CHECK_EQUAL(testing::bits_of(got), testing::bits_of(want));
    }
}

// 64-bit N: decompositions near 2^40 and 2^63 through the constexpr, allocation-free path.
static_assert(index_tree::maximal_node_count(0, index_t{1} << 40, index_t{1} << 40) == 1);
static_assert(index_tree::maximal_node_count(1, index_t{1} << 40, index_t{1} << 40) == 40);
static_assert(index_tree::maximal_node_count(0, index_tree::max_size, index_tree::max_size) == 1);

BOOST_AUTO_TEST_CASE(decomposition_at_64_bit_sizes)
{
    const index_t n = index_t{1} << 40;
    BOOST_CHECK_EQUAL(index_tree::maximal_node_count(0, n, n), 1u);
    BOOST_CHECK_EQUAL(index_tree::maximal_node_count(1, n - 1, n), 2u * 39u);
    // A range in the middle: the cover adds up and every node is aligned.
    const index_t s = 123456789012ULL, e = 987654321098ULL;
    index_t covered = 0;
    std::size_t count = 0;
    index_tree::for_each_maximal_node(s, e, n, [&](node v) {
        covered += index_tree::cover_size(v, n);
        ++count;
        BOOST_CHECK(index_tree::is_node(v, n));
    });
    BOOST_CHECK_EQUAL(covered, e - s);
    BOOST_CHECK_LE(count, index_tree::max_frontier_nodes);
    const index_t big = index_tree::max_size;
    BOOST_CHECK_EQUAL(index_tree::maximal_node_count(big - 1, big, big), 1u);
    BOOST_CHECK_EQUAL(index_tree::maximal_node_count(1, big, big), 63u);
}
