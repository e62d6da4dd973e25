// The DSOP document's LogGP cost model (model/dsop_cost.hpp): each term against hand-counted
// messages, bytes and operations (one process, no communication).
#include <boost/test/unit_test.hpp>

#include "treefold/model/dsop_cost.hpp"

namespace model = treefold::model;
using model::dsop_model;

namespace {

constexpr dsop_model all_models[] = {dsop_model::allgather, dsop_model::allreduce, dsop_model::allreduce_ring,
                                     dsop_model::butterfly, dsop_model::generalized_rabenseifner};

double comm(dsop_model a, double n, int p, const model::loggp& m, double segment = 131072)
{
    return model::predict_dsop(a, n, n, p, m, segment).communication;
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
    auto ops = [](dsop_model a, const model::loggp& m) { return model::predict_dsop(a, 8, 8, 4, m).total(); };
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
        BOOST_CHECK_EQUAL(model::predict_dsop(a, 5, 7, 1, all).total(), 35.0);
    }
}
