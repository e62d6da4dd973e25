// Allreduce schedules: construction, text form, validation, recursive doubling and
// factorisations (see include/treefold/topology/schedule.hpp).
#include "treefold/topology/schedule.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace treefold::topology {

namespace detail {

/// Where the ranks of `pmerge(R) f1 … fk psplit` sit: first-stage group j (of g1 = m/f1) is
/// its f1 core ranks (active indices j·f1 …) followed by the remainders x ≡ j (mod g1) in
/// increasing x, so every partial value covers a contiguous range of positions.
class pmerge_layout {
public:
    pmerge_layout(const schedule& s, int p)
        : r_(s.remainder()), f1_(s.factors().front()), g1_((p - s.remainder()) / s.factors().front())
    {
    }
    int group_start(int j) const { return j * f1_ + j * (r_ / g1_) + std::min(j, r_ % g1_); }
    int remainders_in(int j) const { return r_ / g1_ + (j < r_ % g1_ ? 1 : 0); }
    int core(int a) const { return group_start(a / f1_) + a % f1_; }
    int remainder(int x) const { return group_start(x % g1_) + f1_ + x / g1_; }
    /// The positions covered by the partial of active indices [lo, hi): one core rank in the
    /// first stage, whole first-stage groups (with their remainders) after it.
    std::pair<int, int> range(int lo, int hi) const
    {
        if (hi - lo < f1_) {
            return {core(lo), core(lo) + 1};
        }
        return {group_start(lo / f1_), group_start(hi / f1_)};
    }
    /// For a position: its active index (core) or −1 − its remainder index.
    int who(int position) const
    {
        int lo = 0; // the last group starting at or before `position`
        int hi = g1_;
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            (group_start(mid) <= position ? lo : hi) = mid;
        }
        const int offset = position - group_start(lo);
        return offset < f1_ ? lo * f1_ + offset : -1 - ((offset - f1_) * g1_ + lo);
    }

private:
    int r_;
    int f1_;
    int g1_;
};

} // namespace detail

namespace {

[[noreturn]] void bad(std::string_view text, const std::string& why)
{
    throw std::invalid_argument("treefold: schedule '" + std::string(text) + "': " + why);
}

/// Parses a positive decimal integer that fits an int, or returns -1.
int to_int(std::string_view s)
{
    if (s.empty() || s.size() > 9) {
        return -1;
    }
    int v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) {
        return -1;
    }
    return v;
}

/// Whether `token` is `name(a,b,...)`; if so, its arguments (-1 for one that is not a number).
bool call_args(std::string_view token, std::string_view name, std::vector<int>& args)
{
    if (token.size() < name.size() + 2 || token.substr(0, name.size()) != name || token[name.size()] != '(' ||
        token.back() != ')') {
        return false;
    }
    std::string_view inner = token.substr(name.size() + 1, token.size() - name.size() - 2);
    args.clear();
    while (true) {
        const auto comma = inner.find(',');
        const int v = to_int(inner.substr(0, comma));
        args.push_back(v);
        if (comma == std::string_view::npos) {
            break;
        }
        inner.remove_prefix(comma + 1);
    }
    return true;
}

void enumerate(int p, std::vector<int>& prefix, std::vector<schedule>& out, std::size_t limit)
{
    if (out.size() >= limit) {
        return;
    }
    if (p == 1) {
        out.emplace_back(prefix);
        return;
    }
    for (int f = 2; f <= p; ++f) {
        if (p % f == 0) {
            prefix.push_back(f);
            enumerate(p / f, prefix, out, limit);
            prefix.pop_back();
        }
    }
}

/// A fold's opening stage (its name and usage) and its closing stage.
struct fold_stages {
    std::string_view name, usage, close;
};

/// The stages of each fold, by fold_kind (none has none).
const fold_stages& stages_of(schedule::fold_kind fold)
{
    static constexpr std::array<fold_stages, 4> stages{{{"", "", ""},
                                                        {"collapse", "collapse(T,B)", "expand"},
                                                        {"merge", "merge(R)", "invmerge"},
                                                        {"pmerge", "pmerge(R)", "psplit"}}};
    return stages[static_cast<std::size_t>(fold)];
}

} // namespace

schedule::schedule(std::vector<int> factors) : factors_(std::move(factors)) {}

schedule schedule::collapsed(int threshold, int base, std::vector<int> factors)
{
    schedule s(std::move(factors));
    s.fold_ = fold_kind::collapse;
    s.threshold_ = threshold;
    s.base_ = base;
    return s;
}

schedule schedule::merged(int remainder, std::vector<int> factors)
{
    schedule s(std::move(factors));
    s.fold_ = fold_kind::merge;
    s.remainder_ = remainder;
    return s;
}

schedule schedule::prime_merged(int remainder, std::vector<int> factors)
{
    schedule s = merged(remainder, std::move(factors));
    s.fold_ = fold_kind::pmerge;
    return s;
}

schedule schedule::parse(std::string_view text)
{
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    std::vector<std::string_view> tokens;
    for (auto i = std::find_if_not(text.begin(), text.end(), space); i != text.end();) {
        const auto j = std::find_if(i, text.end(), space);
        tokens.emplace_back(i, j);
        i = std::find_if_not(j, text.end(), space);
    }
    if (tokens.empty() || (tokens.size() == 1 && tokens[0] == "-")) {
        return schedule{};
    }
    schedule s;
    std::vector<int> args;
    if (call_args(tokens[0], "collapse", args)) {
        if (args.size() != 2 || args[0] < 0 || args[1] < 0) {
            bad(text, "collapse takes two positive integers: collapse(T,B)");
        }
        s = collapsed(args[0], args[1], {});
    } else {
        // merge(R) and pmerge(R): one remainder, each with its own closing stage.
        for (const auto fold : {fold_kind::merge, fold_kind::pmerge}) {
            const fold_stages& f = stages_of(fold);
            if (call_args(tokens[0], f.name, args)) {
                if (args.size() != 1 || args[0] < 0) {
                    bad(text, std::string(f.name) + " takes one positive integer: " + std::string(f.usage));
                }
                s = merged(args[0], {});
                s.fold_ = fold;
            }
        }
    }
    const fold_stages& form = stages_of(s.fold_);
    const bool folded = s.fold_ != fold_kind::none;
    if (folded && (tokens.back() != form.close || tokens.size() < 2)) {
        bad(text, std::string(form.usage) + " must be matched by a final '" + std::string(form.close) + "'");
    }
    for (std::size_t i = folded ? 1 : 0; i < tokens.size() - (folded ? 1 : 0); ++i) {
        const int f = to_int(tokens[i]);
        if (f < 0) {
            const std::string t(tokens[i]);
            if (t == "expand" || t == "invmerge" || t == "psplit" || t.starts_with("collapse(") ||
                t.starts_with("merge(") || t.starts_with("pmerge(")) {
                bad(text, "'" + t + "' is out of place (a schedule is [collapse(T,B)|merge(R)|pmerge(R)] factors... "
                          "[expand|invmerge|psplit])");
            }
            bad(text, "unknown stage '" + t +
                          "' (expected a factor >= 2, collapse(T,B), expand, merge(R), invmerge, pmerge(R) or psplit)");
        }
        if (f < 2) {
            bad(text, "factor " + std::to_string(f) + " is less than 2");
        }
        s.factors_.push_back(f);
    }
    return s;
}

std::string schedule::to_string() const
{
    std::string out;
    auto add = [&out](const std::string& stage) { out += (out.empty() ? "" : " ") + stage; };
    const fold_stages& fold = stages_of(fold_);
    if (fold_ == fold_kind::collapse) {
        add("collapse(" + std::to_string(threshold_) + "," + std::to_string(base_) + ")");
    } else if (fold_ != fold_kind::none) {
        add(std::string(fold.name) + "(" + std::to_string(remainder_) + ")");
    }
    for (const int f : factors_) {
        add(std::to_string(f));
    }
    if (fold_ != fold_kind::none) {
        add(std::string(fold.close));
    }
    return out.empty() ? "-" : out;
}

void schedule::check(int p) const
{
    // The text form is only built when something is wrong: check() runs on every call.
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("treefold: schedule '" + to_string() + "' does not fit p = " + std::to_string(p) +
                                    ": " + why);
    };
    if (p < 1) {
        fail("p must be at least 1");
    }
    for (const int f : factors_) {
        if (f < 2) {
            fail("factor " + std::to_string(f) + " is less than 2");
        }
    }
    if (fold_ == fold_kind::collapse) {
        if (base_ < 2) {
            fail("collapse base B = " + std::to_string(base_) + " must be at least 2");
        }
        if (threshold_ < base_ || threshold_ > p) {
            fail("collapse threshold T = " + std::to_string(threshold_) + " must lie in [B, p] = [" +
                 std::to_string(base_) + ", " + std::to_string(p) + "]");
        }
        if (threshold_ % base_ != 0) {
            fail("collapse threshold T = " + std::to_string(threshold_) + " is not a multiple of the base B = " +
                 std::to_string(base_));
        }
    } else if ((fold_ == fold_kind::merge || fold_ == fold_kind::pmerge) && (remainder_ < 1 || remainder_ >= p)) {
        fail(std::string(stages_of(fold_).name) + " remainder R = " +
             std::to_string(remainder_) + " must lie in [1, p-1]");
    }
    if (fold_ == fold_kind::pmerge && factors_.size() < 2) {
        // The remainders' values enter in the first stage and the result leaves in the last.
        fail("pmerge needs at least two factor stages");
    }
    const int m = active(p);
    long long product = 1;
    for (const int f : factors_) {
        product *= f;
        if (product > std::numeric_limits<int>::max()) {
            fail("the factors multiply to more than 2^31");
        }
    }
    if (product != m) {
        fail("the factors multiply to " + std::to_string(product) + " but " + std::to_string(m) +
             " ranks take part in the factor stages" +
             (fold_ == fold_kind::none ? std::string{} : " (after the fold)"));
    }
}

bool schedule::fits(int p) const noexcept
{
    try {
        check(p);
        return true;
    } catch (...) {
        return false;
    }
}

int schedule::active(int p) const
{
    switch (fold_) {
    case fold_kind::collapse: return threshold_ / std::max(base_, 1) + (p - threshold_);
    case fold_kind::merge:
    case fold_kind::pmerge: return p - remainder_;
    case fold_kind::none: break;
    }
    return p;
}

std::vector<int> schedule::segment_starts(int p) const
{
    const int m = active(p);
    if (fold_ == fold_kind::pmerge) {
        const detail::pmerge_layout at(*this, p);
        std::vector<int> out(static_cast<std::size_t>(m) + 1, p);
        for (int a = 0; a < m; ++a) {
            out[static_cast<std::size_t>(a)] = at.core(a);
        }
        return out;
    }
    std::vector<int> starts(static_cast<std::size_t>(m) + 1);
    int at = 0;
    for (int i = 0; i < m; ++i) {
        starts[static_cast<std::size_t>(i)] = at;
        int size = 1;
        if (fold_ == fold_kind::collapse && at < threshold_) {
            size = base_;
        } else if (fold_ == fold_kind::merge) {
            const long long r = remainder_;
            size = 1 + static_cast<int>((i + 1) * r / m - i * r / m);
        }
        at += size;
    }
    starts[static_cast<std::size_t>(m)] = at;
    return starts;
}

int schedule::largest_segment(int p) const
{
    switch (fold_) {
    case fold_kind::collapse: return base_;
    case fold_kind::merge: {
        const int m = p - remainder_;
        return 1 + (remainder_ + m - 1) / m;
    }
    case fold_kind::pmerge:
    case fold_kind::none: break;
    }
    return 1;
}

std::uint64_t schedule::messages(int p) const
{
    const auto m = static_cast<std::uint64_t>(active(p));
    std::uint64_t total = 2 * (static_cast<std::uint64_t>(p) - m);
    if (fold_ == fold_kind::pmerge) {
        total = factors_.empty() ? 0
                                 : static_cast<std::uint64_t>(remainder_) *
                                       static_cast<std::uint64_t>(factors_.front() + factors_.back());
    }
    for (const int f : factors_) {
        total += m * static_cast<std::uint64_t>(f - 1);
    }
    return total;
}

int schedule::rounds() const
{
    const bool folded = fold_ == fold_kind::collapse || fold_ == fold_kind::merge;
    return static_cast<int>(factors_.size()) + (folded ? 2 : 0);
}

namespace {

/// Active index a's part in a factor-f stage of the given stride: multicast to the f−1 peers
/// (rotated order spreads arrivals) and combine the group's partials in digit order.
/// `pos(a)` is where active index a sits, `range(lo, hi)` the positions its partials cover.
template <class Pos, class Range>
round_plan factor_round(int a, int f, int stride, int round, const Pos& pos, const Range& range)
{
    const int digit = (a / stride) % f;
    const int base = a - digit * stride;
    const int block = (a / (stride * f)) * (stride * f); // first active index of the group's range
    round_plan st;
    st.round = round;
    for (int t = 1; t < f; ++t) {
        st.to.push_back(pos(base + ((digit + t) % f) * stride));
    }
    for (int j = 0; j < f; ++j) {
        if (j != digit) {
            const auto [lo, hi] = range(block + j * stride, block + (j + 1) * stride);
            st.from.push_back({pos(base + j * stride), lo, hi});
        }
    }
    st.self_at = static_cast<std::size_t>(digit);
    std::tie(st.lo, st.hi) = range(block + digit * stride, block + (digit + 1) * stride);
    return st;
}

std::vector<round_plan> pmerge_rounds(const schedule& s, int p, int position)
{
    const detail::pmerge_layout at(s, p);
    const std::vector<int>& fs = s.factors();
    const int k = static_cast<int>(fs.size());
    const int r = s.remainder();
    const int last_stride = (p - r) / fs.back(); // also the number of last-stage groups
    const int who = at.who(position);
    std::vector<round_plan> out;
    if (who < 0) { // remainder x: multicast into its first-stage group, then collect the result
        const int x = -1 - who;
        const int f1 = fs.front();
        const int group = x % ((p - r) / f1);
        round_plan first;
        for (int t = 0; t < f1; ++t) { // the group's remainders start at different members
            first.to.push_back(at.core(group * f1 + (t + x / ((p - r) / f1)) % f1));
        }
        first.lo = position;
        first.hi = position + 1;
        out.push_back(std::move(first));
        round_plan last;
        last.round = k - 1;
        last.own = false;
        for (int t = 0; t < fs.back(); ++t) {
            const auto [lo, hi] = at.range(t * last_stride, (t + 1) * last_stride);
            last.from.push_back({at.core(x % last_stride + t * last_stride), lo, hi});
        }
        out.push_back(std::move(last));
        return out;
    }
    const auto pos = [&at](int a) { return at.core(a); };
    const auto range = [&at](int lo, int hi) { return at.range(lo, hi); };
    int stride = 1;
    for (int i = 0; i < k; ++i) {
        round_plan st = factor_round(who, fs[static_cast<std::size_t>(i)], stride, i, pos, range);
        if (i == 0) { // the group's remainders sit after its core ranks
            const int group = who / fs.front();
            for (int t = 0; t < at.remainders_in(group); ++t) {
                const int q = at.group_start(group) + fs.front() + t;
                st.from.push_back({q, q, q + 1});
            }
        }
        if (i == k - 1) {
            // The remainders of this last-stage group get the partial too, first: every member
            // sends to a remainder in the same slot, so its fk arrivals come early.
            std::vector<int> to;
            for (int x = who % last_stride; x < r; x += last_stride) {
                to.push_back(at.remainder(x));
            }
            st.to.insert(st.to.begin(), to.begin(), to.end());
        }
        out.push_back(std::move(st));
        stride *= fs[static_cast<std::size_t>(i)];
    }
    return out;
}

} // namespace

std::vector<round_plan> rounds_of(const schedule& s, int p, int position)
{
    s.check(p);
    if (position < 0 || position >= p) {
        throw std::invalid_argument("treefold: position " + std::to_string(position) + " is outside [0, " +
                                    std::to_string(p) + ")");
    }
    if (s.fold() == schedule::fold_kind::pmerge) {
        return pmerge_rounds(s, p, position);
    }
    const std::vector<int> starts = s.segment_starts(p);
    const int segment = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), position) - starts.begin()) - 1;
    const int seg_lo = starts[static_cast<std::size_t>(segment)];
    const int seg_hi = starts[static_cast<std::size_t>(segment) + 1];
    const bool folded = s.fold() != schedule::fold_kind::none;
    const int first = folded ? 1 : 0; // the round of the first factor stage
    std::vector<round_plan> out;
    // Fold: members send to their representative, which combines the segment.
    if (seg_hi - seg_lo > 1) {
        round_plan st;
        if (position != seg_lo) {
            st.to.push_back(seg_lo);
            st.lo = position;
            st.hi = position + 1;
        } else {
            for (int q = seg_lo + 1; q < seg_hi; ++q) {
                st.from.push_back({q, q, q + 1});
            }
        }
        out.push_back(std::move(st));
    }
    const int k = static_cast<int>(s.factors().size());
    if (position != seg_lo) { // unfold: the result comes from the representative
        round_plan st;
        st.round = first + k;
        st.from.push_back({seg_lo, 0, p});
        st.own = false;
        out.push_back(std::move(st));
        return out;
    }
    const auto pos = [&starts](int a) { return starts[static_cast<std::size_t>(a)]; };
    const auto range = [&starts](int lo, int hi) {
        return std::pair{starts[static_cast<std::size_t>(lo)], starts[static_cast<std::size_t>(hi)]};
    };
    int stride = 1;
    for (int i = 0; i < k; ++i) {
        out.push_back(factor_round(segment, s.factors()[static_cast<std::size_t>(i)], stride, first + i, pos, range));
        stride *= s.factors()[static_cast<std::size_t>(i)];
    }
    // Unfold: the representative sends the result to the rest of its segment.
    if (seg_hi - seg_lo > 1) {
        round_plan st;
        st.round = first + k;
        for (int q = seg_lo + 1; q < seg_hi; ++q) {
            st.to.push_back(q);
        }
        st.lo = 0;
        st.hi = p;
        out.push_back(std::move(st));
    }
    return out;
}

schedule recursive_doubling(int p)
{
    if (p < 1) {
        throw std::invalid_argument("treefold: recursive doubling needs p >= 1, got " + std::to_string(p));
    }
    const int pow2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
    std::vector<int> twos(static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(pow2))), 2);
    if (pow2 == p) {
        return schedule(std::move(twos));
    }
    return schedule::collapsed(2 * (p - pow2), 2, std::move(twos));
}

std::vector<schedule> factorisations(int p, std::size_t limit)
{
    if (p < 1) {
        throw std::invalid_argument("treefold: factorisations need p >= 1, got " + std::to_string(p));
    }
    std::vector<schedule> out;
    std::vector<int> prefix;
    enumerate(p, prefix, out, limit);
    return out;
}

} // namespace treefold::topology
