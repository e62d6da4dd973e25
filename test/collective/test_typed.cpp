// Typed tree reductions (tree_reduce / tree_all_reduce over Boost.MPI) and the reproducible
// reducer with every tree exchange against the recursive oracle.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/collective/reduce.h"
#include "treefold/collective/tree_reduce.hpp"
#include "treefold/topology/tree_shape.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/reducer.hpp"

#include <boost/serialization/string.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

using namespace treefold;
namespace tc = treefold::collective;
namespace mpi = boost::mpi;
using testing::all_ranks;
using testing::bits_of;
using testing::world;

namespace {

/// A test-only shape whose positions sit between their subtrees (a balanced in-order tree:
/// the root of [b, e) is its middle), to show that nothing assumes "own value first or last".
struct midpoint_split {
    static topology::range_split split(int b, int e)
    {
        topology::range_split s;
        s.root = b + (e - b) / 2;
        if (s.root > b) {
            s.child[static_cast<std::size_t>(s.child_count++)] = {b, s.root};
        }
        if (s.root + 1 < e) {
            s.child[static_cast<std::size_t>(s.child_count++)] = {s.root + 1, e};
        }
        return s;
    }
};
struct midpoint : topology::split_shape<midpoint_split> {
    static constexpr const char* name = "midpoint";
    static constexpr bool fold_from_right = false;
};

/// Calls `body.template operator()<Shape>()` for every shape.
template <class Body>
void for_each_shape(Body&& body)
{
    body.template operator()<topology::binomial>();
    body.template operator()<topology::fibonacci>();
    body.template operator()<topology::binary>();
    body.template operator()<topology::inorder>();
    body.template operator()<topology::truncated_fibonacci>();
    body.template operator()<topology::truncated_binary>();
    body.template operator()<midpoint>();
}

using testing::mat2;
using testing::mat_mul;
mat2 mat_of(int r, int i)
{
    const auto u = static_cast<std::uint64_t>(r);
    const auto k = static_cast<std::uint64_t>(i);
    return {u + 3, k + 1, u * 7 + k, u + k + 2};
}

struct op_error : std::runtime_error {
    op_error() : std::runtime_error("test operator refuses") {}
};

/// Bytes of a double with every NaN mapped to one pattern (which NaN an addition returns
/// may depend on operand order in the machine code).
std::uint64_t canonical_bits(double v) { return bits_of(std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : v); }

} // namespace

BOOST_AUTO_TEST_CASE(matrix_product_with_stateful_operator_every_root)
{
    const auto& w = world();
    const int p = w.size();
    for_each_shape([&]<class Shape>() {
        for (const int n : {1, 7, 300}) {
            std::vector<mat2> mine(static_cast<std::size_t>(n));
            std::vector<mat2> want(mine.size());
            for (int i = 0; i < n; ++i) {
                mine[static_cast<std::size_t>(i)] = mat_of(w.rank(), i);
                mat2 acc = mat_of(0, i);
                for (int r = 1; r < p; ++r) {
                    acc = mat_mul(acc, mat_of(r, i));
                }
                want[static_cast<std::size_t>(i)] = acc;
            }
            for (int root = 0; root < p; ++root) {
                std::uint64_t calls = 0;
                auto op = [&calls](const mat2& x, const mat2& y) {
                    ++calls;
                    return mat_mul(x, y);
                };
                std::vector<mat2> got(mine.size());
                tc::tree_reduce<Shape>(w, std::span<const mat2>(mine), std::span<mat2>(got), op, root);
                if (w.rank() == root) {
                    BOOST_CHECK_MESSAGE(got == want, Shape::name << " matrix product n " << n << " root " << root);
                }
                // The caller's operator object was the one called: p - 1 combines per element.
                const auto total = mpi::all_reduce(w, calls, std::plus<std::uint64_t>());
                BOOST_CHECK_EQUAL(total, static_cast<std::uint64_t>(p - 1) * static_cast<std::uint64_t>(n));
            }
            std::vector<mat2> everywhere(mine.size());
            tc::tree_all_reduce<Shape>(w, std::span<const mat2>(mine), std::span<mat2>(everywhere), mat_mul);
            BOOST_CHECK(all_ranks(w, everywhere == want));
        }
    });
}

BOOST_AUTO_TEST_CASE(serialized_strings_concatenate_in_rank_order)
{
    const auto& w = world();
    const int p = w.size();
    std::string want;
    for (int r = 0; r < p; ++r) {
        want += "<" + std::to_string(r) + ">";
    }
    for_each_shape([&]<class Shape>() {
        const std::string mine = "<" + std::to_string(w.rank()) + ">";
        auto concat = [](const std::string& a, const std::string& b) { return a + b; };
        for (int root = 0; root < p; ++root) {
            const std::optional<std::string> got = tc::tree_reduce<Shape>(w, mine, concat, root);
            BOOST_CHECK_EQUAL(got.has_value(), w.rank() == root);
            if (got) {
                BOOST_CHECK_EQUAL(*got, want);
            }
        }
        BOOST_CHECK(all_ranks(w, tc::tree_all_reduce<Shape>(w, mine, concat) == want));
    });
}

BOOST_AUTO_TEST_CASE(typed_double_sum_has_the_bits_of_the_c_entry_point)
{
    const auto& w = world();
    const int p = w.size();
    const auto xs = testing::mixed_values(17, 1000, false);
    // Each rank's 1000 values: a rotation of the shared ones, so sums cancel differently.
    std::vector<double> mine(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        mine[i] = xs[(i + 37 * static_cast<std::size_t>(w.rank())) % xs.size()];
    }
    using c_fn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
    auto check = [&]<class Shape>(c_fn fn) {
        std::vector<double> everywhere(mine.size());
        tc::tree_all_reduce<Shape>(w, std::span<const double>(mine), std::span<double>(everywhere),
                                   std::plus<double>());
        for (int root = 0; root < p; ++root) {
            std::vector<double> typed(mine.size());
            std::vector<double> c(mine.size());
            tc::tree_reduce<Shape>(w, std::span<const double>(mine), std::span<double>(typed), std::plus<double>(),
                                   root);
            BOOST_CHECK_EQUAL(fn(mine.data(), c.data(), static_cast<int>(c.size()), MPI_DOUBLE, MPI_SUM, root,
                                 static_cast<MPI_Comm>(w)),
                              MPI_SUCCESS);
            if (w.rank() == root) {
                bool same = true;
                for (std::size_t i = 0; i < c.size(); ++i) {
                    same = same && canonical_bits(c[i]) == canonical_bits(typed[i]) &&
                           canonical_bits(c[i]) == canonical_bits(everywhere[i]);
                }
                BOOST_CHECK_MESSAGE(same, Shape::name << " typed, all-reduce and C bits differ at root " << root);
            }
        }
    };
    check.operator()<topology::binomial>(treefold_rank_ordered_reduce_binomial);
    check.operator()<topology::fibonacci>(treefold_rank_ordered_reduce_fibonacci);
    check.operator()<topology::binary>(treefold_rank_ordered_reduce_binary);
    check.operator()<topology::inorder>(treefold_rank_ordered_reduce_inorder);
    check.operator()<topology::truncated_fibonacci>(treefold_rank_ordered_reduce_truncated_fibonacci);
    check.operator()<topology::truncated_binary>(treefold_rank_ordered_reduce_truncated_binary);
}

BOOST_AUTO_TEST_CASE(throwing_operator_leaves_nobody_waiting)
{
    const auto& w = world();
    const int p = w.size();
    for_each_shape([&]<class Shape>() {
        // Rank p - 1 contributes a poisoned value; whoever combines it throws.
        const int mine = w.rank() == p - 1 && p > 1 ? -1 : w.rank();
        auto refuse = [](const int& a, const int& b) {
            if (a < 0 || b < 0) {
                throw op_error();
            }
            return a + b;
        };
        for (int root = 0; root < p; ++root) {
            bool threw = false;
            try {
                (void)tc::tree_reduce<Shape>(w, mine, refuse, root);
            } catch (const op_error&) {
                threw = true;
            } catch (const remote_failure&) {
                threw = true;
            }
            if (w.rank() == root) {
                BOOST_CHECK_MESSAGE(threw == (p > 1), Shape::name << " root " << root << " did not throw");
            }
        }
        bool threw = false;
        try {
            (void)tc::tree_all_reduce<Shape>(w, mine, refuse);
        } catch (const op_error&) {
            threw = true;
        } catch (const remote_failure&) {
            threw = true;
        }
        BOOST_CHECK(all_ranks(w, threw == (p > 1)));
        // Nothing was left behind.
        const int sum = tc::tree_all_reduce<Shape>(w, w.rank(), std::plus<int>());
        BOOST_CHECK_EQUAL(sum, p * (p - 1) / 2);
    });
    bool bad_root = false;
    try {
        (void)tc::tree_reduce<topology::binomial>(w, 1, std::plus<int>(), p);
    } catch (const std::invalid_argument&) {
        bad_root = true;
    }
    BOOST_CHECK(all_ranks(w, bad_root));
}

BOOST_AUTO_TEST_CASE(typed_counters)
{
    const auto& w = world();
    const int p = w.size();
    (void)tc::tree_reduce<topology::inorder>(w, 1.0, std::plus<double>(), 0);
    auto c = tc::last_reduce_counters();
    const int forward = p > 1 ? 1 : 0; // the inorder tree ends on rank p - 1
    BOOST_CHECK_EQUAL(c.total_messages, static_cast<std::uint64_t>(p - 1 + forward));
    BOOST_CHECK_EQUAL(mpi::all_reduce(w, c.messages, std::plus<std::uint64_t>()), c.total_messages);
    BOOST_CHECK_EQUAL(c.rounds, topology::one_port_rounds<topology::inorder>(p) + forward);
    (void)tc::tree_all_reduce<topology::fibonacci>(w, 1.0, std::plus<double>());
    c = tc::last_reduce_counters();
    BOOST_CHECK_EQUAL(c.total_messages, static_cast<std::uint64_t>(2 * (p - 1)));
    BOOST_CHECK_EQUAL(mpi::all_reduce(w, c.messages, std::plus<std::uint64_t>()), c.total_messages);
    BOOST_CHECK_EQUAL(mpi::all_reduce(w, c.bytes, std::plus<std::uint64_t>()), 2 * (p - 1) * sizeof(double));
}

namespace {

/// All-reduce and reduce (to every root) of xs over a random layout with exchange
/// tree<Shape>; true iff every result has the oracle's bits.
template <class Shape, class T, class Op>
bool reducer_matches_oracle(const mpi::communicator& comm, const std::vector<T>& xs, Op op, std::uint64_t seed,
                            const T& want, bool every_root)
{
    const auto l = testing::random_layout(seed, xs.size(), comm.size());
    const auto& b = l.block_of(comm.rank());
    const std::span<const T> local(xs.data() + b.start, b.count);
    reducer<T, Op, kernel::scalar, exchange::tree<Shape>> r(comm, l, op);
    auto same = [&](const T& v) {
        if constexpr (std::is_same_v<T, double>) {
            return canonical_bits(v) == canonical_bits(want);
        } else {
            return v == want;
        }
    };
    bool ok = same(r.all_reduce(local));
    for (int root = 0; every_root && root < comm.size(); ++root) {
        const auto at = r.reduce(local, root);
        ok = ok && (comm.rank() == root ? at.has_value() && same(*at) : !at.has_value());
    }
    return ok;
}

} // namespace

BOOST_AUTO_TEST_CASE(reducer_with_every_tree_exchange_reproduces_the_oracle)
{
    const auto& w = world();
    auto affine = [](double a, double b) { return a * 0.5 + b * 1.5; }; // not associative
    for_each_shape([&]<class Shape>() {
        bool ok = true;
        for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 5ULL, 8ULL, 13ULL, 31ULL, 64ULL, 100ULL, 1000ULL, 4097ULL}) {
            const auto xs = testing::mixed_values(n * 31 + 5, n, n % 2 == 1);
            const double sum = testing::oracle_reduce(xs, std::plus<double>());
            const double aff = testing::oracle_reduce(xs, affine);
            for (std::uint64_t seed = 0; seed < 3; ++seed) {
                const bool roots = n == 100 && seed == 0;
                ok = reducer_matches_oracle<Shape>(w, xs, std::plus<double>(), n * 1000 + seed, sum, roots) && ok;
                ok = reducer_matches_oracle<Shape>(w, xs, affine, n * 1000 + seed + 7, aff, false) && ok;
            }
        }
        // A non-commutative operator on a serialized type.
        std::vector<std::string> words;
        for (int i = 0; i < 40; ++i) {
            words.push_back(std::string(1, static_cast<char>('a' + i % 26)));
        }
        auto bracket = [](const std::string& x, const std::string& y) { return "(" + x + y + ")"; };
        const std::string want = testing::oracle_reduce(words, bracket);
        ok = reducer_matches_oracle<Shape>(w, words, bracket, 99, want, true) && ok;
        BOOST_CHECK_MESSAGE(all_ranks(w, ok), "reducer with exchange::tree<" << Shape::name << "> differs from the oracle");
    });
}
