#pragma once
/// The pipelining latency model of small-message allreduce schedules, and the schedule
/// generators that use it.
///
/// A multicast of b small messages costs α_p + b·α_r (α_p: latency of the pipeline,
/// α_r: per-message issue cost). A factor-f stage is a multicast to f−1 peers; a fold (or
/// unfold) costs α_p + (s−1)·α_r for the largest segment s. A schedule's modelled time is the
/// sum over its stages. With c = α_p/α_r, recursive multiplying with factor b+1 on
/// p = (b+1)^k costs (α_p + b·α_r)·log_{b+1} p, minimal at b_opt with
/// (b+1)ln(b+1) − b = c, and no slower than recursive doubling up to b_upper with
/// (c+b)·log_{b+1} 2 = c+1. Both have closed forms through Lambert W.

#include "treefold/config.hpp"
#include "treefold/topology/schedule.hpp"

#include <istream>
#include <string>

namespace treefold::model {

/// Model parameters in any one time unit (the CLI and benchmarks use microseconds).
struct params {
    double alpha_p = 0.88; ///< pipeline latency of a multicast
    double alpha_r = 0.38; ///< cost per message of a multicast

    /// Throws std::invalid_argument unless both are finite, α_p ≥ 0 and α_r > 0.
    void check() const;
    double ratio() const { return alpha_p / alpha_r; }
};

/// b_opt(c): the b > 0 solving (b+1)ln(b+1) − b = c (c ≥ 0), via Lambert W0:
/// b + 1 = exp(W0((c−1)/e) + 1).
double b_opt(double c);
/// b_upper(c): the b solving (c+b)·log_{b+1}2 = c+1 other than the trivial b = 1, via
/// Lambert W (W−1 when c > 2 ln 2 − 1, else W0): b + 1 = −W(−k e^{k(c−1)})/k, k = ln2/(c+1).
double b_upper(double c);

/// The same two quantities by direct numerical minimisation / root finding (golden
/// section on (c+b)/ln(b+1); bisection on (c+b)ln2 − (c+1)ln(b+1)), for checking.
double b_opt_numeric(double c);
double b_upper_numeric(double c);

/// Modelled time of one allreduce with `s` over p ranks (requires s.fits(p)).
double modelled_time(const topology::schedule& s, int p, const params& m);

/// Heuristic schedule: factors built from p's prime factors near b_opt + 1 and at most
/// b_upper + 1 (at least 2); if p has a prime factor above that bound, some m in [p/2, p)
/// with small prime factors takes the factor stages and the other p − m ranks merge (the m
/// of least modelled time; recursive doubling if that is faster). O(p·√p) at worst.
topology::schedule heuristic(int p, const params& m);

/// The schedule of least modelled time among every fold (none, collapse(T,B) for every B
/// and T, merge(R) for every R) and every factorisation of the remaining ranks; ties go to
/// fewer messages, then fewer rounds. Dynamic programming over divisors: O(p·√p + p·log p)
/// model evaluations (about a millisecond for p = 1024).
topology::schedule best(int p, const params& m);

/// α_p and α_r stored in a calibration file (lines `alpha_p <value>` and `alpha_r <value>`,
/// `#` comments). Throws std::runtime_error naming the file and what is missing or wrong
/// (io::file_error when it is missing or not a regular file, std::invalid_argument when a
/// value is out of range, params::check).
params read_calibration(const std::string& path);
/// read_calibration from a stream; `name` is what messages call it.
params read_calibration(std::istream& in, const std::string& name);
/// Writes a calibration file readable by read_calibration (with a comment line).
void write_calibration(const std::string& path, const params& m, const std::string& comment);

} // namespace treefold::model
