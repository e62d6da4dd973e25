#pragma once
/// The DSOP document's cost model of its sum-of-outer-products algorithms (no MPI).
///
/// Communication in LogGP terms: a message of b bytes costs o + L + b·G (overhead, latency,
/// gap per byte; the model takes g < o, so g drops out). Local work is counted in
/// floating-point additions and multiplications at t_add and t_mul seconds each. The
/// document writes each algorithm's cost as O(...); here the terms carry the constants the
/// algorithms have (p − 1 steps of a ring or neighbour exchange, log2 p rounds of a butterfly,
/// the factor 2 of a ring allreduce), so the predictions can be compared with measurements.
/// N x M is the result matrix, p the process count, one vector pair per process.

#include "treefold/config.hpp"

#include <bit>
#include <cstdint>

namespace treefold::model {

/// LogGP parameters and the local arithmetic rates, all in seconds.
struct loggp {
    double L = 0;     ///< latency of one message
    double o = 0;     ///< send plus receive overhead of one message
    double G = 0;     ///< gap per byte (inverse bandwidth)
    double t_add = 0; ///< one floating-point addition
    double t_mul = 0; ///< one floating-point multiplication
    double bytes = 8; ///< bytes per matrix or vector element
};

/// A prediction split into its three parts (seconds).
struct dsop_cost {
    double communication = 0;
    double additions = 0;
    double multiplications = 0;
    /// The modelled time: the parts one after the other (no overlap).
    double total() const { return communication + additions + multiplications; }
};

/// The algorithms the document models (the names of dsop::algorithm where treefold has them).
enum class dsop_model {
    allgather,                ///< all pairs everywhere (neighbour exchange), every rank sums all p products
    allreduce,                ///< Open MPI's segmented ring MPI_Allreduce of the p products (segments of S elements)
    allreduce_ring,           ///< reduce-scatter then allgather around a ring, p − 1 steps each
    butterfly,                ///< recursive doubling of whole matrices, log2 p rounds (+2 if p is no power of two)
    generalized_rabenseifner  ///< allgather of the pairs, one row block per rank, allgather of the blocks
};

namespace detail {

/// Cost of `steps` messages of `elements` elements each, one after the other.
inline double dsop_messages(const loggp& m, double steps, double elements)
{
    return steps * (m.o + m.L + elements * m.bytes * m.G);
}

} // namespace detail

/// Predicted cost of one DSOP call. `segment` is the allreduce model's S (Open MPI's 1 MB
/// segments: 2^17 doubles). p = 1 leaves only the local products.
inline dsop_cost predict_dsop(dsop_model alg, double n, double m_cols, int p, const loggp& m,
                              double segment = 131072)
{
    const double nm = n * m_cols;
    const double steps = p - 1;
    dsop_cost c;
    switch (alg) {
    case dsop_model::allgather:
        c.communication = detail::dsop_messages(m, steps, n + m_cols);
        c.multiplications = p * nm * m.t_mul;
        c.additions = (p - 1) * nm * m.t_add; // p products summed: p − 1 additions per entry
        break;
    case dsop_model::allreduce:
        // The document's form: the matrix in NM/S segments through the pipeline, plus p
        // steps of NM/p elements.
        c.communication = p == 1 ? 0
                                 : (nm / segment) * (m.L + m.o + segment * m.bytes * m.G) +
                                       p * (m.L + m.o + nm / p * m.bytes * m.G);
        c.multiplications = nm * m.t_mul;
        c.additions = (p - 1) * nm / p * m.t_add; // this rank's share of the p − 1 additions per entry
        break;
    case dsop_model::allreduce_ring:
        c.communication = 2 * detail::dsop_messages(m, steps, nm / p);
        c.multiplications = nm * m.t_mul;
        c.additions = steps * (nm / p) * m.t_add; // p − 1 chunk additions per rank
        break;
    case dsop_model::butterfly: {
        // log2 q rounds among q = 2^floor(log2 p) ranks, plus the pairing of the extra ranks
        // in and out (collective::butterfly_allreduce) when p is not a power of two.
        const auto q = std::bit_floor(static_cast<unsigned>(p));
        const double rounds = std::bit_width(q) - 1 + (q == static_cast<unsigned>(p) ? 0 : 2);
        c.communication = detail::dsop_messages(m, rounds, nm);
        c.multiplications = nm * m.t_mul;
        c.additions = rounds * nm * m.t_add;
        break;
    }
    case dsop_model::generalized_rabenseifner:
        c.communication = detail::dsop_messages(m, steps, n + m_cols) + detail::dsop_messages(m, steps, nm / p);
        c.multiplications = nm * m.t_mul; // p products of an NM/p block
        c.additions = (p - 1) * nm / p * m.t_add;
        break;
    }
    return c;
}

} // namespace treefold::model
