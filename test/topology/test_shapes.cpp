// Tree shapes over ranks (binomial, fibonacci, binary, inorder, m_ary<M>): structure checked
// for every p up to 300 (no communication).
#include <boost/test/unit_test.hpp>

#include "treefold/concepts.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace topology = treefold::topology;

namespace {

constexpr int max_p = 300;

/// Folds "own, children" in position order with string concatenation; returns the ranks
/// the subtree of `q` covers, as a comma-separated list.
template <class Shape>
std::string fold_ranks(int q, int p)
{
    std::string out;
    bool own_done = false;
    auto add = [&](const std::string& piece) { out += out.empty() ? piece : "," + piece; };
    for (const auto& c : Shape::children(q, p)) {
        if (!own_done && c.subtree_begin > q) {
            add(std::to_string(q));
            own_done = true;
        }
        add(fold_ranks<Shape>(c.position, p));
    }
    if (!own_done) {
        add(std::to_string(q));
    }
    return out;
}

std::string expected_ranks(int b, int e)
{
    std::string out;
    for (int r = b; r < e; ++r) {
        out += (out.empty() ? "" : ",") + std::to_string(r);
    }
    return out;
}

/// Longest chain of messages into position q.
template <class Shape>
int depth_below(int q, int p)
{
    int h = 0;
    for (const auto& c : Shape::children(q, p)) {
        h = std::max(h, 1 + depth_below<Shape>(c.position, p));
    }
    return h;
}

/// Common structure: one root, parent and children agree, children are ordered disjoint
/// ranges that together with the position form a contiguous range, folding in position
/// order yields 0..p-1, height() is the longest chain.
template <class Shape>
void check_structure(int max_degree)
{
    for (int p = 1; p <= max_p; ++p) {
        const int root = Shape::root(p);
        BOOST_TEST_CONTEXT(Shape::name << " p = " << p)
        {
            BOOST_CHECK(root >= 0 && root < p);
            BOOST_CHECK_EQUAL(Shape::parent(root, p), -1);
            int edges = 0;
            bool ranges_ok = true;
            for (int q = 0; q < p; ++q) {
                const auto children = Shape::children(q, p);
                edges += static_cast<int>(children.size());
                BOOST_CHECK(max_degree == 0 || static_cast<int>(children.size()) <= max_degree);
                int at = -1;
                for (const auto& c : children) {
                    ranges_ok = ranges_ok && c.subtree_begin <= c.position && c.position < c.subtree_end &&
                                c.subtree_begin > at && Shape::parent(c.position, p) == q;
                    // The child's own children stay inside its range.
                    for (const auto& g : Shape::children(c.position, p)) {
                        ranges_ok = ranges_ok && g.subtree_begin >= c.subtree_begin && g.subtree_end <= c.subtree_end;
                    }
                    at = c.subtree_end - 1;
                }
                if (q != root) {
                    const int parent = Shape::parent(q, p);
                    ranges_ok = ranges_ok && parent >= 0 && parent < p && parent != q;
                }
            }
            BOOST_CHECK(ranges_ok);
            BOOST_CHECK_EQUAL(edges, p - 1);
            BOOST_CHECK_EQUAL(fold_ranks<Shape>(root, p), expected_ranks(0, p));
            BOOST_CHECK_EQUAL(Shape::height(p), depth_below<Shape>(root, p));
        }
    }
}

int ceil_log2(int p)
{
    int h = 0;
    while ((1 << h) < p) {
        ++h;
    }
    return h;
}

} // namespace

BOOST_AUTO_TEST_CASE(binomial_structure)
{
    check_structure<topology::binomial>(0);
    for (int p = 1; p <= max_p; ++p) {
        BOOST_CHECK_EQUAL(topology::binomial::root(p), 0);
        BOOST_CHECK_EQUAL(topology::one_port_rounds<topology::binomial>(p), ceil_log2(p));
        for (int q = 1; q < p; ++q) {
            BOOST_CHECK_EQUAL(topology::binomial::parent(q, p), q & (q - 1));
        }
    }
    const auto c = topology::binomial::children(0, 8);
    BOOST_REQUIRE_EQUAL(c.size(), 3U);
    BOOST_CHECK(c[0].position == 1 && c[1].position == 2 && c[2].position == 4 && c[2].subtree_end == 8);
    const auto c4 = topology::binomial::children(4, 7);
    BOOST_REQUIRE_EQUAL(c4.size(), 2U);
    BOOST_CHECK(c4[0].position == 5 && c4[1].position == 6 && c4[1].subtree_end == 7);
}

BOOST_AUTO_TEST_CASE(fibonacci_structure)
{
    check_structure<topology::fibonacci>(2);
    // Complete Fibonacci trees: S_k = 1 + S_{k-1} + S_{k-2}; the root's lower child range is
    // S_{k-2} long, the upper one S_{k-1}, and the height is k - 1.
    std::vector<int> s{0, 1};
    while (s.back() < max_p) {
        s.push_back(1 + s[s.size() - 1] + s[s.size() - 2]);
    }
    for (std::size_t k = 3; k < s.size() && s[k] <= max_p; ++k) {
        const int p = s[k];
        const auto c = topology::fibonacci::children(0, p);
        BOOST_REQUIRE_EQUAL(c.size(), 2U);
        BOOST_CHECK_EQUAL(c[0].subtree_end - c[0].subtree_begin, s[k - 2]);
        BOOST_CHECK_EQUAL(c[1].subtree_end - c[1].subtree_begin, s[k - 1]);
        BOOST_CHECK_EQUAL(topology::fibonacci::height(p), static_cast<int>(k) - 1);
        BOOST_CHECK_EQUAL(topology::one_port_rounds<topology::fibonacci>(p), static_cast<int>(k) - 1);
    }
    BOOST_CHECK_EQUAL(topology::fibonacci::root(5), 0);
}

BOOST_AUTO_TEST_CASE(binary_structure)
{
    check_structure<topology::binary>(2);
    for (int p = 1; p <= max_p; ++p) {
        // A heap of p nodes: height floor(log2 p), left subtree at least the right one.
        int floor_log = 0;
        while ((2 << floor_log) <= p) {
            ++floor_log;
        }
        BOOST_CHECK_EQUAL(topology::binary::height(p), floor_log);
        const auto c = topology::binary::children(0, p);
        if (c.size() == 2) {
            BOOST_CHECK(c[0].subtree_end - c[0].subtree_begin >= c[1].subtree_end - c[1].subtree_begin);
        }
    }
    const auto c = topology::binary::children(0, 7);
    BOOST_REQUIRE_EQUAL(c.size(), 2U);
    BOOST_CHECK(c[0].position == 1 && c[0].subtree_end == 4 && c[1].position == 4);
}

BOOST_AUTO_TEST_CASE(inorder_structure)
{
    check_structure<topology::inorder>(2);
    for (int p = 1; p <= max_p; ++p) {
        BOOST_CHECK_EQUAL(topology::inorder::root(p), p - 1);
        BOOST_CHECK(topology::inorder::height(p) <= ceil_log2(p + 1));
        // Each subtree's root is its last position.
        for (int q = 0; q < p; ++q) {
            for (const auto& c : topology::inorder::children(q, p)) {
                BOOST_CHECK_EQUAL(c.position, c.subtree_end - 1);
                BOOST_CHECK(c.subtree_end <= q);
            }
        }
    }
}

namespace {

/// Nodes of a complete M-ary tree of height h: 1 + M + ... + M^h.
long long complete_m_ary_size(int m, int h)
{
    long long size = 0;
    long long level = 1;
    for (int i = 0; i <= h; ++i) {
        size += level;
        level *= m;
    }
    return size;
}

/// m_ary<M>: the common structure, root 0, pre-order (every subtree's root is its first
/// position), at most M children whose ranges split the rest of the parent's range into
/// sizes differing by at most one, smaller first, and the least height of any tree of
/// degree M (the smallest h with 1 + M + ... + M^h >= p).
template <int M>
void check_m_ary()
{
    using shape = topology::m_ary<M>;
    static_assert(treefold::tree_shape<shape>);
    static_assert(!shape::fold_from_right);
    BOOST_CHECK_EQUAL(std::string(shape::name), std::to_string(M) + "-ary");
    check_structure<shape>(M);
    for (int p = 1; p <= max_p; ++p) {
        BOOST_TEST_CONTEXT(shape::name << " p = " << p)
        {
            BOOST_CHECK_EQUAL(shape::root(p), 0);
            int least = 0;
            while (complete_m_ary_size(M, least) < p) {
                ++least;
            }
            BOOST_CHECK_EQUAL(shape::height(p), least);
            bool split_ok = true;
            for (int q = 0; q < p; ++q) {
                const auto children = shape::children(q, p);
                // q's own range: [q, end) with end the last child's end (q + 1 for a leaf).
                const int end = children.empty() ? q + 1 : children.back().subtree_end;
                const int rest = end - q - 1;
                split_ok = split_ok && static_cast<int>(children.size()) == std::min(M, rest);
                int at = q + 1;
                for (std::size_t i = 0; i < children.size(); ++i) {
                    const auto& c = children[i];
                    const int len = c.subtree_end - c.subtree_begin;
                    split_ok = split_ok && c.subtree_begin == at && c.position == c.subtree_begin &&
                               (len == rest / static_cast<int>(children.size()) ||
                                len == rest / static_cast<int>(children.size()) + 1);
                    if (i > 0) {
                        split_ok = split_ok && len >= children[i - 1].subtree_end - children[i - 1].subtree_begin;
                    }
                    at = c.subtree_end;
                }
            }
            BOOST_CHECK(split_ok);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(m_ary_structure)
{
    check_m_ary<2>();
    check_m_ary<3>();
    check_m_ary<4>();
    check_m_ary<8>();
    check_m_ary<16>();
    BOOST_CHECK_EQUAL(std::string(topology::m_ary<16>::name), "16-ary");
    // 4-ary over 13 = 1 + 4 + 8 positions: children 1, 4, 7, 10, each with three leaves.
    const auto c = topology::m_ary<4>::children(0, 13);
    BOOST_REQUIRE_EQUAL(c.size(), 4U);
    BOOST_CHECK(c[0].position == 1 && c[1].position == 4 && c[2].position == 7 && c[3].position == 10 &&
                c[3].subtree_end == 13);
    BOOST_CHECK_EQUAL(topology::m_ary<4>::height(13), 2);
    BOOST_CHECK_EQUAL(topology::m_ary<4>::parent(12, 13), 10);
    // Ten positions: the rest (9) splits 2, 2, 2, 3, the larger range last.
    const auto d = topology::m_ary<4>::children(0, 10);
    BOOST_REQUIRE_EQUAL(d.size(), 4U);
    BOOST_CHECK(d[0].subtree_end == 3 && d[1].subtree_end == 5 && d[2].subtree_end == 7 && d[3].subtree_end == 10);
    // Eight positions under 8-ary: a star.
    BOOST_CHECK_EQUAL(topology::m_ary<8>::children(0, 8).size(), 7U);
    BOOST_CHECK_EQUAL(topology::m_ary<8>::height(8), 1);
}

namespace {

/// "q<-c1,c2;" for every position with children: the whole tree at p in one string.
template <class Shape>
std::string edges_of(int p)
{
    std::string out;
    for (int q = 0; q < p; ++q) {
        const auto children = Shape::children(q, p);
        if (children.empty()) {
            continue;
        }
        out += std::to_string(q) + "<-";
        for (std::size_t i = 0; i < children.size(); ++i) {
            out += (i == 0 ? "" : ",") + std::to_string(children[i].position);
        }
        out += ";";
    }
    return out;
}

/// fib(1) = fib(2) = 1.
int fib(int x) { return x <= 2 ? 1 : fib(x - 1) + fib(x - 2); }

} // namespace

BOOST_AUTO_TEST_CASE(truncated_fibonacci_structure)
{
    using shape = topology::truncated_fibonacci;
    static_assert(treefold::tree_shape<shape>);
    check_structure<shape>(2);
    // The reduction-trees document's tree at p = 8 (its Fib_Reduce descent), where the
    // re-balancing fibonacci shape has 5 <- {6, 7} instead of the chain.
    BOOST_CHECK_EQUAL(edges_of<shape>(8), "0<-1,5;1<-2,3;3<-4;5<-6;6<-7;");
    BOOST_CHECK_EQUAL(edges_of<topology::fibonacci>(8), "0<-1,5;1<-2,3;3<-4;5<-6,7;");
    BOOST_CHECK_EQUAL(edges_of<shape>(13), "0<-1,8;1<-2,4;2<-3;4<-5,6;6<-7;8<-9;9<-10,11;11<-12;");
    // The document: F_k holds fib(k + 3) - 1 positions at depth k, one fewer than B_3 at
    // k = 3 (7 against 8); in the one-port model it needs k rounds, one more beyond that size.
    BOOST_CHECK_EQUAL(fib(6) - 1, 7);
    for (int k = 1; fib(k + 3) - 1 <= max_p; ++k) {
        const int p = fib(k + 3) - 1;
        BOOST_TEST_CONTEXT("k = " << k)
        {
            BOOST_CHECK_EQUAL(shape::height(p), k);
            BOOST_CHECK_EQUAL(topology::one_port_rounds<shape>(p), k);
            BOOST_CHECK_EQUAL(topology::one_port_rounds<shape>(p + 1), k + 1);
            // At its complete sizes it is the fibonacci shape.
            BOOST_CHECK_EQUAL(edges_of<shape>(p), edges_of<topology::fibonacci>(p));
        }
    }
}

BOOST_AUTO_TEST_CASE(truncated_binary_structure)
{
    using shape = topology::truncated_binary;
    static_assert(treefold::tree_shape<shape>);
    check_structure<shape>(2);
    // The document's Bin_Reduce tree at p = 8: the root keeps one child (the heap-shaped
    // binary shape has 0 <- {1, 5}).
    BOOST_CHECK_EQUAL(edges_of<shape>(8), "0<-1;1<-2,5;2<-3,4;5<-6,7;");
    BOOST_CHECK_EQUAL(edges_of<topology::binary>(8), "0<-1,5;1<-2,4;2<-3;5<-6,7;");
    BOOST_CHECK_EQUAL(edges_of<shape>(12), "0<-1,8;1<-2,5;2<-3,4;5<-6,7;8<-9;9<-10,11;");
    // T_k: 2^(k+1) - 1 positions at depth k; every inner node receives twice, so one-port
    // rounds are 2k, and p = 2^(k+1) adds the lone root edge: height k + 1, 2k + 1 rounds.
    for (int k = 0; (2 << k) <= max_p; ++k) {
        const int p = (2 << k) - 1;
        BOOST_TEST_CONTEXT("k = " << k)
        {
            BOOST_CHECK_EQUAL(shape::height(p), k);
            BOOST_CHECK_EQUAL(topology::one_port_rounds<shape>(p), 2 * k);
            BOOST_CHECK_EQUAL(shape::height(p + 1), k + 1);
            BOOST_CHECK_EQUAL(topology::one_port_rounds<shape>(p + 1), 2 * k + 1);
            BOOST_CHECK_EQUAL(edges_of<shape>(p), edges_of<topology::binary>(p));
        }
    }
}
