// Allreduce schedules: construction, text form, validation, recursive doubling and
// factorisations (see include/treefold/topology/schedule.hpp).
#include "treefold/topology/schedule.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace treefold::topology {

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

schedule schedule::parse(std::string_view text)
{
    std::vector<std::string_view> tokens;
    for (std::size_t i = 0; i < text.size();) {
        if (std::isspace(static_cast<unsigned char>(text[i])) != 0) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])) == 0) {
            ++j;
        }
        tokens.push_back(text.substr(i, j - i));
        i = j;
    }
    if (tokens.empty() || (tokens.size() == 1 && tokens[0] == "-")) {
        return schedule{};
    }
    schedule s;
    std::vector<int> args;
    std::string_view opener; // the fold's stage and its closing stage, if there is a fold
    std::string_view closer;
    if (call_args(tokens[0], "collapse", args)) {
        if (args.size() != 2 || args[0] < 0 || args[1] < 0) {
            bad(text, "collapse takes two positive integers: collapse(T,B)");
        }
        s = collapsed(args[0], args[1], {});
        opener = "collapse(T,B)";
        closer = "expand";
    } else if (call_args(tokens[0], "merge", args)) {
        if (args.size() != 1 || args[0] < 0) {
            bad(text, "merge takes one positive integer: merge(R)");
        }
        s = merged(args[0], {});
        opener = "merge(R)";
        closer = "invmerge";
    }
    const bool folded = !closer.empty();
    if (folded && (tokens.back() != closer || tokens.size() < 2)) {
        bad(text, std::string(opener) + " must be matched by a final '" + std::string(closer) + "'");
    }
    for (std::size_t i = folded ? 1 : 0; i < tokens.size() - (folded ? 1 : 0); ++i) {
        const int f = to_int(tokens[i]);
        if (f < 0) {
            const std::string t(tokens[i]);
            if (t == "expand" || t == "invmerge" || t.starts_with("collapse(") || t.starts_with("merge(")) {
                bad(text, "'" + t + "' is out of place (a schedule is [collapse(T,B)|merge(R)] factors... "
                          "[expand|invmerge])");
            }
            bad(text, "unknown stage '" + t + "' (expected a factor >= 2, collapse(T,B), expand, merge(R) or invmerge)");
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
    if (fold_ == fold_kind::collapse) {
        add("collapse(" + std::to_string(threshold_) + "," + std::to_string(base_) + ")");
    } else if (fold_ == fold_kind::merge) {
        add("merge(" + std::to_string(remainder_) + ")");
    }
    for (const int f : factors_) {
        add(std::to_string(f));
    }
    if (fold_ == fold_kind::collapse) {
        add("expand");
    } else if (fold_ == fold_kind::merge) {
        add("invmerge");
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
    } else if (fold_ == fold_kind::merge && (remainder_ < 1 || remainder_ >= p)) {
        fail("merge remainder R = " + std::to_string(remainder_) + " must lie in [1, p-1]");
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
    case fold_kind::merge: return p - remainder_;
    case fold_kind::none: break;
    }
    return p;
}

std::vector<int> schedule::segment_starts(int p) const
{
    const int m = active(p);
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
    case fold_kind::none: break;
    }
    return 1;
}

std::uint64_t schedule::messages(int p) const
{
    const auto m = static_cast<std::uint64_t>(active(p));
    std::uint64_t total = 2 * (static_cast<std::uint64_t>(p) - m);
    for (const int f : factors_) {
        total += m * static_cast<std::uint64_t>(f - 1);
    }
    return total;
}

int schedule::rounds() const
{
    return static_cast<int>(factors_.size()) + (fold_ == fold_kind::none ? 0 : 2);
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
