#pragma once
/// The dsop component's cost model: the DSOP document's model of its sum-of-outer-products
/// algorithms (no MPI).
///
/// Communication in LogGP terms: a message of b bytes costs o + L + b·G (overhead, latency,
/// gap per byte; the model takes g < o, so g drops out). Local work is counted in
/// floating-point additions and multiplications at t_add and t_mul seconds each. The
/// document writes each algorithm's cost as O(...); here the terms carry the constants the
/// algorithms have (p − 1 steps of a ring or neighbour exchange, log2 p rounds of a butterfly,
/// the factor 2 of a ring allreduce), so the predictions can be compared with measurements.
/// N x M is the result matrix, p the process count, one vector pair per process.
///
/// The overlapped variants (the document's §5.4: allgather-async, Bruck-async, the pipelined
/// ones) add a fourth part, `overlapped`: the local work that runs while messages are in
/// flight, taken off the total. The document gives no formula for them; the ones here follow
/// what treefold's implementations do (see each enumerator).

#include "treefold/config.hpp"
#include "treefold/model/loggp.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace treefold::dsop {

/// A prediction split into its three parts (seconds).
struct dsop_cost {
    double communication = 0;   ///< the messages (LogGP)
    double additions = 0;       ///< the floating-point additions (count x t_add)
    double multiplications = 0; ///< the floating-point multiplications (count x t_mul)
    double overlapped = 0; ///< of the additions and multiplications, the time hidden behind communication
    /// The modelled time: the parts one after the other, less what overlaps.
    double total() const { return communication + additions + multiplications - overlapped; }
};

/// The algorithms the document models (the names of dsop::algorithm where treefold has them).
enum class dsop_model {
    allgather,                ///< all pairs everywhere (neighbour exchange), every rank sums all p products
    allreduce,                ///< Open MPI's segmented ring MPI_Allreduce of the p products (segments of S elements)
    allreduce_ring,           ///< reduce-scatter then allgather around a ring, p − 1 steps each
    butterfly,                ///< recursive doubling of whole matrices, log2 p rounds (+2 if p is no power of two)
    generalized_rabenseifner, ///< allgather of the pairs, one row block per rank, allgather of the blocks
    /// direct nonblocking allgather: in slot i = 1 … p − 1 every rank sends its pair to rank
    /// + i (a permutation: no receiver contention), so the pair of rank me − i lands after
    /// i (o + (N + M) G) + L; the slowest rank's pairs, summed in rank order each once it is
    /// here, decide the time
    allgather_async,
    /// Bruck allgather, ⌈log2 p⌉ rounds of min(2^j, p − 2^j) pairs; the pairs of rank me + s
    /// land with the round j = ⌊log2 s⌋; summed in rank order as for allgather_async
    bruck_async,
    /// allreduce_ring with each step's chunk in ⌈(NM / p) / s⌉ pieces streamed back to back:
    /// one latency and the same bytes per step but an overhead per piece; every addition but
    /// the last piece's of each reduce-scatter step overlaps the next piece's transfer
    allreduce_ring_pipelined,
    /// butterfly with the matrix in ⌈NM / s⌉ pieces per round (the pairing of extra ranks is
    /// not pipelined); every addition but the last piece's of each round overlaps
    butterfly_pipelined,
    /// generalized_rabenseifner whose first allgather is allgather_async's: the NM / p block's
    /// products of each pair overlap the arrival of the later pairs
    generalized_rabenseifner_pipelined
};

namespace detail {

/// Cost of `steps` messages of `elements` elements each, one after the other.
inline double dsop_messages(const model::loggp& m, double steps, double elements)
{
    return steps * (m.o + m.L + elements * m.bytes * m.G);
}

/// The ⌈log2 p⌉ rounds of Bruck's allgather: round j ends at ends[j] (pairs of `elements`).
inline std::vector<double> bruck_round_ends(const model::loggp& m, int p, double elements)
{
    std::vector<double> ends;
    double t = 0;
    for (int d = 1; d < p; d *= 2) {
        t += dsop_messages(m, 1, std::min(d, p - d) * elements);
        ends.push_back(t);
    }
    return ends;
}

/// When the pair of rank r lands on rank me (0 for its own).
inline double arrival(dsop_model alg, const model::loggp& m, int p, int me, int r, double elements,
                      const std::vector<double>& bruck_ends)
{
    if (r == me) {
        return 0;
    }
    if (alg == dsop_model::bruck_async) {
        const auto s = static_cast<unsigned>((r - me + p) % p);
        return bruck_ends[static_cast<std::size_t>(std::bit_width(s) - 1)];
    }
    const int slot = (me - r + p) % p;
    return slot * (m.o + elements * m.bytes * m.G) + m.L;
}

/// The gather-based overlapped variants: every rank sums the p pairs in rank order, each once
/// it has landed, at `work` seconds per pair. Returns {the exchange's time (the last landing
/// on any rank), the slowest rank's finishing time}.
inline std::pair<double, double> gathered_in_rank_order(dsop_model alg, const model::loggp& m, int p, double elements,
                                                        double work)
{
    const std::vector<double> ends = alg == dsop_model::bruck_async ? bruck_round_ends(m, p, elements)
                                                                    : std::vector<double>{};
    double exchange = 0;
    double finish = 0;
    for (int me = 0; me < p; ++me) {
        double t = 0;
        for (int r = 0; r < p; ++r) {
            const double here = arrival(alg, m, p, me, r, elements, ends);
            exchange = std::max(exchange, here);
            t = std::max(t, here) + work;
        }
        finish = std::max(finish, t);
    }
    return {exchange, finish};
}

/// gathered_in_rank_order with c's arithmetic shared out over the p pairs: sets
/// c.overlapped (the arithmetic hidden behind the exchange) and returns the exchange's time.
inline double gathered_overlap(dsop_cost& c, dsop_model alg, const model::loggp& m, int p, double elements)
{
    const auto [exchange, finish] = gathered_in_rank_order(alg, m, p, elements, (c.multiplications + c.additions) / p);
    c.overlapped = std::max(0.0, exchange + c.multiplications + c.additions - finish);
    return exchange;
}

} // namespace detail

/// Predicted cost of one DSOP call. `segment` is the allreduce model's S (Open MPI's 1 MB
/// segments: 2^17 doubles); `piece` the pipelined variants' s (treefold's
/// collective::pipeline_segment, 2^15 elements). p = 1 leaves only the local products.
/// The gather-based overlapped variants simulate every rank, O(p²) steps.
inline dsop_cost predict_dsop(dsop_model alg, double n, double m_cols, int p, const model::loggp& m,
                              double segment = 131072, double piece = 32768)
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
    case dsop_model::allgather_async:
    case dsop_model::bruck_async:
        c.multiplications = p * nm * m.t_mul;
        c.additions = (p - 1) * nm * m.t_add;
        c.communication = detail::gathered_overlap(c, alg, m, p, n + m_cols);
        break;
    case dsop_model::generalized_rabenseifner_pipelined:
        c.multiplications = nm * m.t_mul;
        c.additions = (p - 1) * nm / p * m.t_add;
        c.communication = detail::gathered_overlap(c, dsop_model::allgather_async, m, p, n + m_cols) +
                          detail::dsop_messages(m, steps, nm / p);
        break;
    case dsop_model::allreduce_ring_pipelined: {
        const double chunk = nm / p;
        const double pieces = std::max(1.0, std::ceil(chunk / piece));
        c.communication = p == 1 ? 0 : 2 * steps * (pieces * m.o + m.L + chunk * m.bytes * m.G);
        c.multiplications = nm * m.t_mul;
        c.additions = steps * chunk * m.t_add;
        c.overlapped = std::min(c.communication, steps * (chunk - chunk / pieces) * m.t_add);
        break;
    }
    case dsop_model::butterfly_pipelined: {
        const auto q = std::bit_floor(static_cast<unsigned>(p));
        const double rounds = std::bit_width(q) - 1;
        const double fold = q == static_cast<unsigned>(p) ? 0 : 2;
        const double pieces = std::max(1.0, std::ceil(nm / piece));
        c.communication = rounds * (pieces * m.o + m.L + nm * m.bytes * m.G) + detail::dsop_messages(m, fold, nm);
        c.multiplications = nm * m.t_mul;
        c.additions = (rounds + fold) * nm * m.t_add;
        c.overlapped = std::min(c.communication, rounds * (nm - nm / pieces) * m.t_add);
        break;
    }
    }
    return c;
}

} // namespace treefold::dsop
