#pragma once
/// The pipelining latency model of small-message allreduce schedules, and the schedule
/// generators that use it.
///
/// A multicast of b small messages costs α_p + b·α_r (α_p: latency of the pipeline,
/// α_r: per-message issue cost). A round costs α_p + n·α_r for the most messages n that one
/// rank sends in it (the thesis's model; with receive_cost::conflicts, sends or receives), and
/// a schedule's modelled time is the sum over its rounds: a factor-f stage costs
/// α_p + (f−1)·α_r; a fold costs α_p + α_r (α_p + (s−1)·α_r with conflicts, s the largest
/// segment) and its unfold α_p + (s−1)·α_r; pmerge(R) f1 … fk adds α_r to the first stage
/// (a remainder sends f1 messages; with conflicts, f1 − 1 + ⌈R/g1⌉ if more) and ⌈R/gk⌉·α_r
/// to the last (gk = m/fk groups share the R remainders). With c = α_p/α_r, recursive
/// multiplying with factor b+1 on
/// p = (b+1)^k costs (α_p + b·α_r)·log_{b+1} p, minimal at b_opt with
/// (b+1)ln(b+1) − b = c, and no slower than recursive doubling up to b_upper with
/// (c+b)·log_{b+1} 2 = c+1. Both have closed forms through Lambert W.

#include "treefold/config.hpp"
#include "treefold/topology/schedule.hpp"

#include <istream>
#include <string>
#include <vector>

namespace treefold::model {

/// What a rank that receives several messages in one round costs.
enum class receive_cost {
    free,     ///< nothing beyond the senders' multicasts (the thesis): a collapse costs α_p + α_r
    conflicts ///< one α_r per message received: a collapse of B ranks costs α_p + (B−1)·α_r
};

/// The large-scale-collectives thesis's measured α_p and α_r (µs): every default of the
/// models, the CLI and the modelled schedules is these two constants.
inline constexpr double thesis_alpha_p = 0.88;
/// The thesis's measured α_r (µs): see thesis_alpha_p.
inline constexpr double thesis_alpha_r = 0.38;

/// Model parameters in any one time unit (the CLI and benchmarks use microseconds).
struct params {
    double alpha_p = thesis_alpha_p; ///< pipeline latency of a multicast
    double alpha_r = thesis_alpha_r; ///< cost per message of a multicast
    receive_cost receives = receive_cost::free; ///< how receives are charged

    /// Throws std::invalid_argument unless both are finite, α_p ≥ 0 and α_r > 0.
    void check() const;
    /// c = α_p / α_r, the argument of b_opt and b_upper.
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
/// b_upper(c) by bisection (see b_opt_numeric), for checking.
double b_upper_numeric(double c);

/// Modelled time of one allreduce with `s` over p ranks (requires s.fits(p)).
double modelled_time(const topology::schedule& s, int p, const params& m);

/// treefold's heuristic schedule: factors built from p's prime factors near b_opt + 1 and at
/// most b_upper + 1 (at least 2); if p has a prime factor above that bound, some m in
/// [p/2, p) with small prime factors takes the factor stages and the other p − m ranks join
/// by merge(R) or pmerge(R) (the m and form of least modelled time; recursive doubling if
/// that is faster). O(p·√p) at worst.
topology::schedule heuristic(int p, const params& m);

/// What the thesis's heuristic (Algorithm 7) returns: the factors in the order found, and
/// how many ranks were merged.
struct thesis_result {
    std::vector<int> factors; ///< product p − merge
    int merge = 0;            ///< ranks merged (0: p factors within the bound)
};

/// The thesis's heuristic as written: the candidate factors d in [2, ⌊b_upper⌋ + 1] (at least
/// [2, 2]), sorted by (α_p + (d−1)α_r)/ln d ascending (`sorted`; ties to the smaller d) or
/// taken from the largest down; each divides the count as often as it can; if the product
/// falls short of the count, the count drops by one and one more rank is merged.
thesis_result thesis_heuristic_factors(int p, const params& m, bool sorted);

/// thesis_heuristic_factors as a schedule: the factors, `pmerge(R) … psplit` with two or
/// more factors, and `merge(R) f invmerge` when one factor is left (pmerge needs two).
topology::schedule thesis_heuristic(int p, const params& m, bool sorted = true);

/// The schedules the exact search considers.
struct search_space {
    bool collapse = true; ///< collapse(T,B) for every B and T
    bool merge = true;    ///< merge(R) for every R
    bool pmerge = true;   ///< pmerge(R) for every R and every first and last factor
    /// Only pmerge(R) f1 … with R < f1: the space in which the thesis's Table 5.2 finds its
    /// best schedules (see doc/design.md).
    bool pmerge_remainder_below_first = false;

    /// The thesis's space: factorisations, collapse/expand and prime merging with R < f1.
    static search_space thesis() { return {true, false, true, true}; }
};

/// The schedule of least modelled time in `space`: no fold, the folds and pmerge it allows,
/// and every factorisation of the remaining ranks; ties go to fewer messages, then fewer
/// rounds. Dynamic programming over divisors (a few milliseconds for p = 1024).
topology::schedule best(int p, const params& m, const search_space& space = {});

/// α_p and α_r stored in a constants file (lines `alpha_p <value>` and `alpha_r <value>`,
/// `#` comments). Throws std::runtime_error naming the file and what is missing or wrong
/// (io::file_error when it is missing or not a regular file, std::invalid_argument when a
/// value is out of range, params::check).
params read_constants(const std::string& path);
/// read_constants from a stream; `name` is what messages call it.
params read_constants(std::istream& in, const std::string& name);
/// Writes a constants file readable by read_constants (with a comment line).
void write_constants(const std::string& path, const params& m, const std::string& comment);

} // namespace treefold::model
