#pragma once
/// Allreduce schedules: recursive doubling and recursive multiplying over p ranks.
///
/// A schedule is an optional fold, a sequence of factor stages, and the matching unfold:
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
///
/// Text form (round-trips through parse/to_string): stages separated by blanks, e.g.
/// `2 2 2` (recursive doubling, p = 8), `collapse(4,2) 2 2 expand` (p = 6),
/// `merge(1) 4 3 invmerge` (p = 13). The empty schedule (p = 1) is written `-`.

#include "treefold/config.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::topology {

/// An allreduce schedule (see the file comment for its meaning and text form).
class schedule {
public:
    /// How ranks are folded before the factor stages.
    enum class fold_kind { none, collapse, merge };

    schedule() = default;
    /// Factor stages only (no fold).
    explicit schedule(std::vector<int> factors);
    /// `collapse(threshold, base)` + factors + `expand`.
    static schedule collapsed(int threshold, int base, std::vector<int> factors);
    /// `merge(remainder)` + factors + `invmerge`.
    static schedule merged(int remainder, std::vector<int> factors);

    /// Parses the text form; throws std::invalid_argument naming the offending stage.
    static schedule parse(std::string_view text);
    /// The text form (`-` for the empty schedule).
    std::string to_string() const;

    /// Throws std::invalid_argument (naming what is wrong) unless the schedule fits p ranks.
    void check(int p) const;
    /// True iff check(p) would not throw.
    bool fits(int p) const noexcept;

    fold_kind fold() const { return fold_; }
    int threshold() const { return threshold_; } ///< collapse(T,B): T
    int base() const { return base_; }           ///< collapse(T,B): B
    int remainder() const { return remainder_; } ///< merge(R): R
    const std::vector<int>& factors() const { return factors_; }

    /// Ranks taking part in the factor stages (m) for p ranks.
    int active(int p) const;
    /// First rank of every segment, plus p at the end (m + 1 entries); requires fits(p).
    std::vector<int> segment_starts(int p) const;
    /// Largest segment (1 without a fold); requires fits(p).
    int largest_segment(int p) const;
    /// Point-to-point messages of one allreduce over p ranks: Σ m·(f−1) over factor stages
    /// plus 2(p − m) for fold and unfold.
    std::uint64_t messages(int p) const;
    /// Communication rounds: factor stages plus two for a fold.
    int rounds() const;

    friend bool operator==(const schedule&, const schedule&) = default;

private:
    fold_kind fold_ = fold_kind::none;
    int threshold_ = 0;
    int base_ = 0;
    int remainder_ = 0;
    std::vector<int> factors_;
};

/// Recursive doubling for any p ≥ 1: factors 2 for a power of two, else
/// `collapse(2r,2) 2 … 2 expand` with p = 2^k + r.
schedule recursive_doubling(int p);

/// Every ordered factorisation of p into factors ≥ 2 (as factor-only schedules), at most
/// `limit` of them, in lexicographic order of the factor lists. p = 1 gives the empty schedule.
std::vector<schedule> factorisations(int p, std::size_t limit = 100000);

} // namespace treefold::topology
