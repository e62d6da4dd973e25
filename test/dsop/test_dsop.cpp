// Distributed sum of outer products: every algorithm at every process count against serial
// references; the reproducible mode bit-identical across p and equal to the serial tree.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/dsop/dsop.hpp"
#include "treefold/io/synthetic.hpp"
#include "treefold/layout/block_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace treefold;
using dsop::algorithm;
using dsop::summation;
namespace mpi = boost::mpi;

namespace {

const algorithm all_algorithms[] = {algorithm::allgather,
                                    algorithm::allreduce,
                                    algorithm::allreduce_ring,
                                    algorithm::butterfly,
                                    algorithm::generalized_rabenseifner,
                                    algorithm::allgather_async,
                                    algorithm::bruck_async,
                                    algorithm::allreduce_ring_pipelined,
                                    algorithm::butterfly_pipelined,
                                    algorithm::generalized_rabenseifner_pipelined};

/// Global pair k: a_k (n values) and b_k (m values), of mixed magnitude and sign.
template <class T>
struct pairs {
    std::size_t n, m, k;
    std::vector<T> a, b; // k x n, k x m
    pairs(std::size_t n_, std::size_t m_, std::size_t k_) : n(n_), m(m_), k(k_), a(k_ * n_), b(k_ * m_)
    {
        for (std::size_t i = 0; i < a.size(); ++i) {
            a[i] = static_cast<T>(io::synthetic_value(io::synthetic_kind::mixed, 2 * i) * 1e-3);
        }
        for (std::size_t i = 0; i < b.size(); ++i) {
            b[i] = static_cast<T>(io::synthetic_value(io::synthetic_kind::loglik, 2 * i + 1));
        }
    }
    T product(std::size_t kk, std::size_t i, std::size_t j) const { return a[kk * n + i] * b[kk * m + j]; }
};

/// Left-to-right serial sum (from zero) and the serial tree sum of each entry.
template <class T>
void serial_references(const pairs<T>& pr, std::vector<T>& left_to_right, std::vector<T>& tree, std::vector<T>& magnitude)
{
    left_to_right.assign(pr.n * pr.m, T{0});
    tree.assign(pr.n * pr.m, T{0});
    magnitude.assign(pr.n * pr.m, T{0});
    for (std::size_t i = 0; i < pr.n; ++i) {
        for (std::size_t j = 0; j < pr.m; ++j) {
            std::vector<T> xs(pr.k);
            T acc{0};
            for (std::size_t kk = 0; kk < pr.k; ++kk) {
                xs[kk] = pr.product(kk, i, j);
                acc = acc + xs[kk];
                magnitude[i * pr.m + j] += std::abs(xs[kk]);
            }
            left_to_right[i * pr.m + j] = acc;
            if (pr.k > 0) {
                tree[i * pr.m + j] = testing::oracle_reduce(xs, std::plus<T>());
            }
        }
    }
}

/// Runs one algorithm on `sub` with this rank's pairs given by `counts` (pairs per rank).
template <class T>
std::vector<T> run(const mpi::communicator& sub, const pairs<T>& pr, const std::vector<std::uint64_t>& counts,
                   algorithm alg, summation order)
{
    std::size_t first = 0;
    for (int r = 0; r < sub.rank(); ++r) {
        first += counts[static_cast<std::size_t>(r)];
    }
    const std::size_t mine = counts[static_cast<std::size_t>(sub.rank())];
    std::vector<T> g(pr.n * pr.m, T{-1});
    dsop::sum_outer_products<T>(sub, std::span<const T>(pr.a.data() + first * pr.n, mine * pr.n),
                                std::span<const T>(pr.b.data() + first * pr.m, mine * pr.m), pr.n, pr.m, g, alg, order);
    return g;
}

template <class T>
std::vector<unsigned char> bytes(const std::vector<T>& v)
{
    std::vector<unsigned char> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

template <class T>
void check_shape(std::size_t n, std::size_t m, bool one_pair_per_rank)
{
    const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
        const std::size_t k = one_pair_per_rank ? static_cast<std::size_t>(sub.size()) : 37;
        const pairs<T> pr(n, m, k);
        const auto counts = one_pair_per_rank ? std::vector<std::uint64_t>(static_cast<std::size_t>(sub.size()), 1)
                                              : layout::even_upper(k, sub.size());
        std::vector<T> ltr, tree, mag;
        serial_references(pr, ltr, tree, mag);
        std::vector<unsigned char> reproducible;
        for (const algorithm alg : all_algorithms) {
            const auto g = run(sub, pr, counts, alg, summation::fast);
            const bool same_order = dsop::sees_every_pair(alg); // rank order, left to right
            bool ok = true;
            for (std::size_t e = 0; e < g.size(); ++e) {
                if (same_order) {
                    ok = ok && g[e] == ltr[e];
                } else {
                    // Another summation order: |error| <= 2 K eps sum |a_k b_k| (first-order bound, doubled).
                    const T bound = 2 * static_cast<T>(k) * std::numeric_limits<T>::epsilon() * mag[e];
                    ok = ok && std::abs(g[e] - ltr[e]) <= bound;
                }
            }
            BOOST_CHECK_MESSAGE(ok, dsop::name(alg) << " fast " << n << "x" << m << " K=" << k << " p=" << sub.size()
                                                    << (same_order ? " differs from the serial sum" : " is outside the error bound"));
            if (same_order) {
                const auto gr = run(sub, pr, counts, alg, summation::reproducible);
                BOOST_CHECK_MESSAGE(gr == tree, dsop::name(alg) << " reproducible " << n << "x" << m << " K=" << k
                                                                << " p=" << sub.size() << " differs from the serial tree");
                const auto b = bytes(gr);
                reproducible.insert(reproducible.end(), b.begin(), b.end());
            }
        }
        return reproducible;
    });
    if (!one_pair_per_rank) {
        // The same K pairs split over 1..P ranks: identical bits.
        BOOST_CHECK(!testing::first_mismatch(results));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(one_pair_per_rank_square) { check_shape<double>(16, 16, true); }
BOOST_AUTO_TEST_CASE(one_pair_per_rank_n_ne_m) { check_shape<double>(7, 13, true); }
BOOST_AUTO_TEST_CASE(n_smaller_than_p) { check_shape<double>(3, 5, true); }
BOOST_AUTO_TEST_CASE(n_is_one) { check_shape<double>(1, 9, true); }
BOOST_AUTO_TEST_CASE(many_pairs_reproducible_across_p) { check_shape<double>(11, 6, false); }
BOOST_AUTO_TEST_CASE(float_pairs) { check_shape<float>(9, 17, false); }

BOOST_AUTO_TEST_CASE(ranks_without_pairs_and_no_pairs_at_all)
{
    const auto& w = testing::world();
    const pairs<double> pr(4, 3, 5);
    std::vector<double> ltr, tree, mag;
    serial_references(pr, ltr, tree, mag);
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(w.size()), 0);
    counts.back() = 5; // every pair on the last rank
    BOOST_CHECK(run(w, pr, counts, algorithm::generalized_rabenseifner, summation::reproducible) == tree);
    const std::vector<std::uint64_t> none(static_cast<std::size_t>(w.size()), 0);
    for (const algorithm alg : all_algorithms) {
        const auto g = run(w, pr, none, alg, summation::fast);
        BOOST_CHECK(std::all_of(g.begin(), g.end(), [](double v) { return v == 0.0; }));
    }
}

BOOST_AUTO_TEST_CASE(bad_arguments_throw_on_every_rank)
{
    const auto& w = testing::world();
    const pairs<double> pr(4, 3, static_cast<std::size_t>(w.size()));
    const std::vector<std::uint64_t> one(static_cast<std::size_t>(w.size()), 1);
    BOOST_CHECK_THROW(run(w, pr, one, algorithm::allreduce, summation::reproducible), std::invalid_argument);
    BOOST_CHECK_THROW(run(w, pr, one, algorithm::allreduce_ring, summation::reproducible), std::invalid_argument);
    BOOST_CHECK_THROW(run(w, pr, one, algorithm::butterfly, summation::reproducible), std::invalid_argument);
    BOOST_CHECK_THROW(run(w, pr, one, algorithm::allreduce_ring_pipelined, summation::reproducible), std::invalid_argument);
    BOOST_CHECK_THROW(run(w, pr, one, algorithm::butterfly_pipelined, summation::reproducible), std::invalid_argument);
    // One rank's g has the wrong size: every rank throws.
    std::vector<double> g(w.rank() == w.size() - 1 ? 11 : 12);
    BOOST_CHECK_THROW(dsop::sum_outer_products<double>(w, std::span<const double>(pr.a.data(), 4),
                                                       std::span<const double>(pr.b.data(), 3), 4, 3, g,
                                                       algorithm::allgather),
                      std::invalid_argument);
    // Ranks disagree on n.
    if (w.size() > 1) {
        const std::size_t n = w.rank() == 0 ? 4 : 2;
        std::vector<double> g2(n * 3);
        BOOST_CHECK_THROW(dsop::sum_outer_products<double>(w, std::span<const double>(pr.a.data(), n),
                                                           std::span<const double>(pr.b.data(), 3), n, 3, g2,
                                                           algorithm::generalized_rabenseifner),
                          std::invalid_argument);
    }
    BOOST_CHECK_THROW(dsop::parse_algorithm("ring"), std::invalid_argument);
    BOOST_CHECK(dsop::parse_algorithm("allreduce_ring") == algorithm::allreduce_ring);
    BOOST_CHECK(dsop::parse_algorithm("butterfly") == algorithm::butterfly);
    for (const algorithm alg : all_algorithms) {
        BOOST_CHECK(dsop::parse_algorithm(dsop::name(alg)) == alg);
    }
}

BOOST_AUTO_TEST_CASE(butterfly_gives_every_rank_the_same_bits_and_repeats)
{
    // Butterfly adds whole partial matrices along the recursive-doubling schedule: its grouping
    // depends on p, but every rank must hold the same bits, and a second call the same again.
    (void)testing::on_every_size([&](const mpi::communicator& sub) {
        const pairs<double> pr(6, 5, 29);
        const auto counts = layout::even_upper(29, sub.size());
        const auto g = run(sub, pr, counts, algorithm::butterfly, summation::fast);
        auto root = g;
        mpi::broadcast(sub, root, 0);
        BOOST_CHECK_MESSAGE(bytes(g) == bytes(root), "butterfly p=" << sub.size() << ": ranks disagree");
        BOOST_CHECK(bytes(run(sub, pr, counts, algorithm::butterfly, summation::fast)) == bytes(g));
        return bytes(g);
    });
}

BOOST_AUTO_TEST_CASE(overlapped_forms_give_the_bits_of_their_plain_forms)
{
    // 300 x 300 = 90,000 entries: the pipelined allreduces cut G (or a ring chunk at p = 2)
    // into several 2^15-element pieces, and the async gathers deliver 37 pairs in blocks.
    const std::pair<algorithm, algorithm> twins[] = {
        {algorithm::allreduce_ring_pipelined, algorithm::allreduce_ring},
        {algorithm::butterfly_pipelined, algorithm::butterfly},
        {algorithm::allgather_async, algorithm::allgather},
        {algorithm::bruck_async, algorithm::allgather},
        {algorithm::generalized_rabenseifner_pipelined, algorithm::generalized_rabenseifner}};
    (void)testing::on_every_size([&](const mpi::communicator& sub) {
        const pairs<double> pr(300, 300, 37);
        const auto counts = layout::even_upper(37, sub.size());
        for (const auto& [overlapped, plain] : twins) {
            for (const auto order : {summation::fast, summation::reproducible}) {
                if (order == summation::reproducible && !dsop::sees_every_pair(overlapped)) {
                    continue;
                }
                const auto g = run(sub, pr, counts, overlapped, order);
                const auto want = run(sub, pr, counts, plain, order);
                auto root = g;
                mpi::broadcast(sub, root, 0);
                BOOST_CHECK_MESSAGE(bytes(g) == bytes(want) && bytes(g) == bytes(root),
                                    dsop::name(overlapped) << (order == summation::fast ? " fast" : " reproducible")
                                                           << " p=" << sub.size() << " differs from "
                                                           << dsop::name(plain) << " or between ranks");
            }
        }
        return std::vector<unsigned char>{};
    });
}
