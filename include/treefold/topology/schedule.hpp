#pragma once
/// Allreduce schedules: recursive doubling and recursive multiplying over p ranks.
///
/// A schedule is an optional fold, a sequence of factor stages, and the matching unfold, or
/// factor stages with prime merging (`pmerge`):
///
/// - fold: the p ranks are cut into m contiguous segments; every rank of a segment sends its
///   value to the segment's first rank (its representative), which combines the segment
///   left to right. `collapse(T,B)` cuts ranks [0, T) into T/B segments of B ranks and
///   leaves ranks [T, p) alone (m = T/B + p - T); `merge(R)` spreads R extra ranks as evenly
///   as possible over m = p - R segments (segment i has 1 + floor((i+1)R/m) - floor(iR/m)
///   ranks), so no representative receives more than ceil(R/m) values.
/// - factor stages f1 f2 ... fk with f1·f2·…·fk = m: stage j groups the representatives
///   whose mixed-radix digit j differs (stride f1·…·f(j-1)); each sends its value to the
///   f(j)-1 others and combines the f(j) values in digit order. Least significant digit
///   first keeps every partial value a contiguous range of ranks, so non-commutative
///   operators are combined in rank order.
/// - unfold (`expand` after collapse, `invmerge` after merge): representatives send the
///   result to the rest of their segment.
/// - prime merging `pmerge(R) f1 … fk psplit` (k ≥ 2, f1·…·fk = m = p − R) adds no round:
///   the R remainder ranks are merged into the first stage and split off in the last. The m
///   core ranks run the factor stages; in the first stage, remainder x also multicasts its
///   value to every member of first-stage group x mod (m/f1), which combine it after their
///   group's values; in the last stage every member of last-stage group x mod (m/fk) also
///   sends its (pre-stage) partial to remainder x (before its peers), which combines those fk
///   partials in digit order, exactly as the group's members do. Positions: first-stage group j is its f1 core
///   ranks followed by its remainders, so every partial is still a contiguous range.
///
/// Text form (round-trips through parse/to_string): stages separated by blanks, e.g.
/// `2 2 2` (recursive doubling, p = 8), `collapse(4,2) 2 2 expand` (p = 6),
/// `merge(1) 4 3 invmerge` (p = 13), `pmerge(2) 3 3 psplit` (p = 11). The empty schedule
/// (p = 1) is written `-`.

#include "treefold/config.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::topology {

/// An allreduce schedule (see the file comment for its meaning and text form).
class schedule {
public:
    /// How ranks are folded before the factor stages (pmerge: merged into the first stage).
    enum class fold_kind { none, collapse, merge, pmerge };

    schedule() = default;
    /// Factor stages only (no fold).
    explicit schedule(std::vector<int> factors);
    /// `collapse(threshold, base)` + factors + `expand`.
    static schedule collapsed(int threshold, int base, std::vector<int> factors);
    /// `merge(remainder)` + factors + `invmerge`.
    static schedule merged(int remainder, std::vector<int> factors);
    /// `pmerge(remainder)` + factors + `psplit` (prime merging; at least two factors).
    static schedule prime_merged(int remainder, std::vector<int> factors);

    /// Parses the text form; throws std::invalid_argument naming the offending stage.
    static schedule parse(std::string_view text);
    /// The text form (`-` for the empty schedule).
    std::string to_string() const;

    /// Throws std::invalid_argument (naming what is wrong) unless the schedule fits p ranks.
    void check(int p) const;
    /// True iff check(p) would not throw.
    bool fits(int p) const noexcept;

    /// The fold around the factor stages (none, collapse, merge or pmerge).
    fold_kind fold() const { return fold_; }
    int threshold() const { return threshold_; } ///< collapse(T,B): T
    int base() const { return base_; }           ///< collapse(T,B): B
    int remainder() const { return remainder_; } ///< merge(R), pmerge(R): R
    /// The factors of the factor stages, in order.
    const std::vector<int>& factors() const { return factors_; }

    /// Ranks taking part in the factor stages (m) for p ranks.
    int active(int p) const;
    /// Position of every rank in the factor stages, by active index, plus p at the end
    /// (m + 1 entries; for a fold, the first position of every segment); requires fits(p).
    std::vector<int> segment_starts(int p) const;
    /// Largest fold segment (1 without a fold and for pmerge); requires fits(p).
    int largest_segment(int p) const;
    /// Point-to-point messages of one allreduce over p ranks: Σ m·(f−1) over factor stages,
    /// plus 2(p − m) for fold and unfold, or R·(f1 + fk) for pmerge.
    std::uint64_t messages(int p) const;
    /// Communication rounds: factor stages, plus two for a fold (none for pmerge).
    int rounds() const;

    /// The same fold, fold parameters and factors.
    friend bool operator==(const schedule&, const schedule&) = default;

private:
    fold_kind fold_ = fold_kind::none;
    int threshold_ = 0;
    int base_ = 0;
    int remainder_ = 0;
    std::vector<int> factors_;
};

/// One round of one position's part in a schedule. Every partial covers the positions
/// [lo, hi) and is combined left to right.
struct round_plan {
    /// A partial this position receives.
    struct source {
        int position; ///< who sends it
        int lo;       ///< the first position it covers
        int hi;       ///< one past the last position it covers
    };
    int round = 0;           ///< which of the schedule's rounds() (the same index on every position)
    std::vector<int> to;     ///< positions the current partial goes to, in issue order
    std::vector<source> from; ///< partials received, in position order
    std::size_t self_at = 0; ///< where the own partial sits among `from` when `own`
    bool own = true;         ///< false: the result is the combination of `from` alone
    int lo = 0;              ///< the first position the own partial covers when it is sent
    int hi = 0;              ///< one past the last position it covers then
};

/// What the position `position` does in each round of `s` over p ranks, in round order
/// (rounds it has no part in are left out); requires s.fits(p). The executor and the
/// simulator both follow it.
std::vector<round_plan> rounds_of(const schedule& s, int p, int position);

/// Recursive doubling for any p ≥ 1: factors 2 for a power of two, else
/// `collapse(2r,2) 2 … 2 expand` with p = 2^k + r.
schedule recursive_doubling(int p);

/// Every ordered factorisation of p into factors ≥ 2 (as factor-only schedules), at most
/// `limit` of them, in lexicographic order of the factor lists. p = 1 gives the empty schedule.
std::vector<schedule> factorisations(int p, std::size_t limit = 100000);

} // namespace treefold::topology
