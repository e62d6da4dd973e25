// The DSOP document's LogGP cost model (dsop/cost.hpp): each term against hand-counted
// messages, bytes and operations (one process, no communication).
#include <boost/test/unit_test.hpp>

#include "treefold/dsop/cost.hpp"

namespace model = treefold::model;
namespace dsop = treefold::dsop;
using dsop::dsop_model;

namespace {

constexpr dsop_model all_models[] = {dsop_model::allgather,
                                     dsop_model::allreduce,
                                     dsop_model::allreduce_ring,
                                     dsop_model::butterfly,
                                     dsop_model::generalized_rabenseifner,
                                     dsop_model::allgather_async,
                                     dsop_model::bruck_async,
                                     dsop_model::allreduce_ring_pipelined,
                                     dsop_model::butterfly_pipelined,
                                     dsop_model::generalized_rabenseifner_pipelined};

double comm(dsop_model a, double n, int p, const model::loggp& m, double segment = 131072)
{
    return dsop::predict_dsop(a, n, n, p, m, segment).communication;
}

} // namespace

BOOST_AUTO_TEST_CASE(message_counts_from_latency_alone)
{
    const model::loggp lat{1.0, 0.0, 0.0, 0.0, 0.0, 8};
    BOOST_CHECK_EQUAL(comm(dsop_model::allgather, 100, 8, lat), 7.0);                // p − 1 neighbour steps
    BOOST_CHECK_EQUAL(comm(dsop_model::allreduce_ring, 100, 8, lat), 14.0);          // 2 (p − 1)
    BOOST_CHECK_EQUAL(comm(dsop_model::butterfly, 100, 8, lat), 3.0);                // log2 p
    BOOST_CHECK_EQUAL(comm(dsop_model::butterfly, 100, 6, lat), 2.0 + 2.0);          // log2 4, pairs in and out
    BOOST_CHECK_EQUAL(comm(dsop_model::generalized_rabenseifner, 100, 8, lat), 14.0); // two allgathers
    // Segmented allreduce: NM / S segments plus p steps (NM = 4 S here).
    BOOST_CHECK_EQUAL(comm(dsop_model::allreduce, 32, 4, lat, 256), 4.0 + 4.0);
}

BOOST_AUTO_TEST_CASE(bytes_from_bandwidth_alone)
{
    // One byte per element, G = 1: p = 4, N = M = 8 (NM = 64, blocks of 16).
    const model::loggp bw{0.0, 0.0, 1.0, 0.0, 0.0, 1};
    BOOST_CHECK_EQUAL(comm(dsop_model::allgather, 8, 4, bw), 3.0 * 16);
    BOOST_CHECK_EQUAL(comm(dsop_model::allreduce_ring, 8, 4, bw), 2.0 * 3 * 16);
    BOOST_CHECK_EQUAL(comm(dsop_model::butterfly, 8, 4, bw), 2.0 * 64);
    BOOST_CHECK_EQUAL(comm(dsop_model::generalized_rabenseifner, 8, 4, bw), 3.0 * 16 + 3.0 * 16);
    BOOST_CHECK_EQUAL(comm(dsop_model::allreduce, 8, 4, bw, 16), 4.0 * 16 + 4.0 * 16);
    // The document's trade-off: allgather moves less than the allreduce ring once NM > p (N + M)...
    BOOST_CHECK_LT(comm(dsop_model::allgather, 1000, 16, bw), comm(dsop_model::allreduce_ring, 1000, 16, bw));
}

BOOST_AUTO_TEST_CASE(operations_per_rank)
{
    const model::loggp add{0.0, 0.0, 0.0, 1.0, 0.0, 8};
    const model::loggp mul{0.0, 0.0, 0.0, 0.0, 1.0, 8};
    auto ops = [](dsop_model a, const model::loggp& m) { return dsop::predict_dsop(a, 8, 8, 4, m).total(); };
    // ... and computes more: all p products on every rank.
    BOOST_CHECK_EQUAL(ops(dsop_model::allgather, add), 3.0 * 64);
    BOOST_CHECK_EQUAL(ops(dsop_model::allgather, mul), 4.0 * 64);
    BOOST_CHECK_EQUAL(ops(dsop_model::butterfly, add), 2.0 * 64);
    for (const auto a : {dsop_model::allreduce, dsop_model::allreduce_ring, dsop_model::generalized_rabenseifner}) {
        BOOST_CHECK_EQUAL(ops(a, add), 3.0 * 16); // (p − 1) NM / p
        BOOST_CHECK_EQUAL(ops(a, mul), 64.0);     // NM: one product, or p products of a block
    }
    // One process: the local product only, for every algorithm.
    const model::loggp all{1.0, 1.0, 1.0, 1.0, 1.0, 8};
    for (const auto a : all_models) {
        BOOST_CHECK_EQUAL(dsop::predict_dsop(a, 5, 7, 1, all).total(), 35.0);
    }
}

BOOST_AUTO_TEST_CASE(overlapped_variants_messages_and_overheads)
{
    const model::loggp lat{1.0, 0.0, 0.0, 0.0, 0.0, 8};
    BOOST_CHECK_EQUAL(comm(dsop_model::allgather_async, 100, 8, lat), 1.0);   // every pair in one step
    BOOST_CHECK_EQUAL(comm(dsop_model::bruck_async, 100, 8, lat), 3.0);       // ⌈log2 p⌉ rounds
    BOOST_CHECK_EQUAL(comm(dsop_model::bruck_async, 100, 6, lat), 3.0);
    BOOST_CHECK_EQUAL(comm(dsop_model::allreduce_ring_pipelined, 100, 8, lat), 14.0); // one latency per step
    BOOST_CHECK_EQUAL(comm(dsop_model::butterfly_pipelined, 100, 6, lat), 2.0 + 2.0);
    BOOST_CHECK_EQUAL(comm(dsop_model::generalized_rabenseifner_pipelined, 100, 8, lat), 1.0 + 7.0);
    // An overhead per piece: a 500,000-element ring chunk in 16 pieces of 2^15, a 10^6 matrix in 31.
    const model::loggp ovh{0.0, 1.0, 0.0, 0.0, 0.0, 8};
    BOOST_CHECK_EQUAL(comm(dsop_model::allreduce_ring_pipelined, 1000, 2, ovh), 2.0 * 16);
    BOOST_CHECK_EQUAL(comm(dsop_model::butterfly_pipelined, 1000, 2, ovh), 31.0);
    // Bytes: Bruck moves p − 1 pairs per rank like the direct exchange (G = 1, 1 byte, N + M = 16).
    const model::loggp bw{0.0, 0.0, 1.0, 0.0, 0.0, 1};
    BOOST_CHECK_EQUAL(comm(dsop_model::bruck_async, 8, 6, bw), 5.0 * 16);
    BOOST_CHECK_EQUAL(comm(dsop_model::allgather_async, 8, 6, bw), 5.0 * 16); // the last of 5 slots
}

BOOST_AUTO_TEST_CASE(pipelines_hide_all_but_the_last_piece_of_each_step)
{
    // Communication dwarfs arithmetic; N = M = 8, p = 4: ring chunks of 16 in pieces of 4.
    const model::loggp m{1e9, 0.0, 0.0, 1.0, 0.0, 8};
    const auto ring = dsop::predict_dsop(dsop_model::allreduce_ring_pipelined, 8, 8, 4, m, 131072, 4);
    BOOST_CHECK_EQUAL(ring.additions, 3.0 * 16);
    BOOST_CHECK_EQUAL(ring.overlapped, 3.0 * (16 - 4));
    const auto fly = dsop::predict_dsop(dsop_model::butterfly_pipelined, 8, 8, 4, m, 131072, 4);
    BOOST_CHECK_EQUAL(fly.overlapped, 2.0 * (64 - 4));
    // With no communication nothing can hide behind it.
    const model::loggp local{0.0, 0.0, 0.0, 1.0, 1.0, 8};
    BOOST_CHECK_EQUAL(dsop::predict_dsop(dsop_model::allreduce_ring_pipelined, 8, 8, 4, local, 131072, 4).overlapped, 0.0);
}

BOOST_AUTO_TEST_CASE(rank_order_gathers_hide_nothing_on_their_slowest_rank)
{
    // Every rank sums the pairs in one shared order (so that all hold the same bits), and in
    // both exchanges some rank receives the first pair of that order last: rank p − 1 in the
    // direct one, rank 1 in Bruck's. Its products all wait for the exchange, whatever the
    // parameters; the other ranks do overlap, but the slowest decides.
    const model::loggp m{3.0, 0.5, 0.01, 0.2, 0.3, 8};
    for (int p = 2; p <= 16; ++p) {
        for (const auto a :
             {dsop_model::allgather_async, dsop_model::bruck_async, dsop_model::generalized_rabenseifner_pipelined}) {
            const auto c = dsop::predict_dsop(a, 40, 40, p, m);
            BOOST_CHECK_SMALL(c.overlapped, 1e-9 * c.total());
            BOOST_CHECK_GT(c.communication, 0.0);
        }
        // The exchange alone: Bruck's ⌈log2 p⌉ latencies against the direct exchange's one
        // latency and p − 1 overheads.
        int rounds = 0;
        while ((1 << rounds) < p) {
            ++rounds;
        }
        const model::loggp lat{1.0, 0.0, 0.0, 0.0, 0.0, 8};
        BOOST_CHECK_EQUAL(comm(dsop_model::bruck_async, 40, p, lat), static_cast<double>(rounds));
    }
}
