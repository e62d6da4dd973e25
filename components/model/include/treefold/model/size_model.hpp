#pragma once
/// The pipelining model with a message size (the extension the thesis's §4.3.2 and §7.2.1
/// suggest): α_p and α_r become functions of the bytes n one message carries,
///
///   α_r(n) = α_r + β·n + [n > E]·(δ_r + δ_β·n),    α_p(n) = α_p + [n > E]·δ_p,
///
/// with β the per-byte cost of a message (copies in and out of the transport), E the eager
/// limit (largest size sent eagerly) and δ_p, δ_r, δ_β the rendezvous protocol's extra
/// latency, per-message and per-byte cost above it (Open MPI's shared memory copies twice
/// below the limit and once, by CMA, above: δ_β < 0). The thesis's Table 4.1 fits α_p and α_r per size; the
/// per-byte term grows α_r and leaves α_p as it is, as the table does. Every schedule
/// function of model/pipelining.hpp then applies at a size through size_params::at.
///
/// fit_size_model recovers these constants from schedule_fit's measurements
/// (least squares, piecewise at the threshold, the threshold chosen by the least residual).

#include "treefold/config.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/topology/schedule.hpp"

#include <cstdint>
#include <istream>
#include <limits>
#include <string>
#include <vector>

namespace treefold::model {

/// The size-aware model's constants in one time unit (microseconds in the CLI and benchmarks).
struct size_params {
    params base;            ///< α_p, α_r of an empty message, and the receive model
    double beta = 0;        ///< cost per byte of one message
    /// Largest message size sent eagerly; above it the rendezvous terms apply (none: no step).
    std::uint64_t eager_limit = std::numeric_limits<std::uint64_t>::max();
    double rendezvous_p = 0; ///< extra pipeline latency above the eager limit
    double rendezvous_r = 0; ///< extra cost per message above the eager limit
    double rendezvous_beta = 0; ///< change of the cost per byte above the eager limit

    /// The size-free model's constants (β = 0, no step).
    static size_params from(const params& m)
    {
        size_params out;
        out.base = m;
        return out;
    }

    /// Throws std::invalid_argument (naming the term) unless every term is finite, base.check()
    /// holds, β ≥ 0 and β + δ_β ≥ 0, and α_p(n) ≥ 0 and α_r(n) > 0 at every size (so just
    /// above the step too).
    void check() const;
    /// The pipelining model's parameters for messages of `bytes` bytes.
    params at(std::uint64_t bytes) const;
    /// Whether a size-dependent term is set (β, or a step at a finite eager limit).
    bool sized() const;
};

/// Modelled time of one allreduce with `s` over p ranks, every message `bytes` bytes.
double modelled_time(const topology::schedule& s, int p, const size_params& m, std::uint64_t bytes);
/// The schedule of least modelled time for messages of `bytes` bytes (best at m.at(bytes)):
/// as the ratio α_p(n)/α_r(n) falls with n, the search turns to fewer messages per round.
topology::schedule best(int p, const size_params& m, std::uint64_t bytes, const search_space& space = {});
/// treefold's heuristic at m.at(bytes).
topology::schedule heuristic(int p, const size_params& m, std::uint64_t bytes);

/// One measurement of schedule_fit: `messages` non-blocking sends of `bytes` bytes each
/// from one rank, then an 8-byte acknowledgement back, taking `time`.
struct size_sample {
    int messages = 1;        ///< sends in the measurement
    std::uint64_t bytes = 8; ///< bytes of each send
    double time = 0;         ///< the measured time, in the model's time unit
};

/// What fit_size_model found.
struct size_fit {
    size_params model;       ///< the fitted constants (receives: free)
    double rms_relative_residual = 0; ///< root mean square of the residuals relative to the times
    std::size_t samples = 0; ///< how many samples the fit used
};

/// Least-squares fit of schedule_fit's samples to the size-aware model. Under it a
/// sample takes b·α_r(n) + α_p(n) (the multicast, Eq. 4.6) + α_r(8) + α_p(8) (the
/// acknowledgement): 2α_p + (b+1)α_r + β(b·n + 8) + [n > E](δ_p + b·δ_r + b·n·δ_β), linear
/// in the six constants for a fixed E; residuals are taken relative to the times (the sizes
/// span four orders of magnitude). E is tried at each measured size with at least two larger
/// sizes measured (and "no step"); the least residual wins, a step only when it lowers the
/// residual sum of squares by more than the fraction `min_gain`. Throws std::invalid_argument when the samples cannot
/// determine the constants (fewer than two message counts or two sizes, a count < 1, a
/// non-finite time). The fitted constants are not checked: a noisy fit may give α_p < 0, as
/// the thesis's Table 4.1 does at 128 KB.
size_fit fit_size_model(const std::vector<size_sample>& samples, double min_gain = 0.05);

/// size_params stored in a constants file: read_constants's α_p and α_r, and the optional
/// lines `beta`, `eager_limit` (whole bytes), `rendezvous_p`, `rendezvous_r`,
/// `rendezvous_beta` (absent: β = 0, no step).
/// Errors as read_constants, and size_params::check.
size_params read_size_constants(const std::string& path);
/// read_size_constants from a stream; `name` is what messages call it.
size_params read_size_constants(std::istream& in, const std::string& name);
/// Writes a constants file readable by read_constants and read_size_constants.
void write_size_constants(const std::string& path, const size_params& m, const std::string& comment);

} // namespace treefold::model
