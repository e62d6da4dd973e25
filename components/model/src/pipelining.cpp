// The pipelining model: Lambert-W formulas, their numerical checks, modelled time, the
// heuristic and the exact search (see treefold/model/pipelining.hpp).
#include "treefold/model/pipelining.hpp"
#include "treefold/io/values_file.hpp"

#include <boost/math/special_functions/lambert_w.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace treefold::model {

using topology::schedule;

void params::check() const
{
    if (!std::isfinite(alpha_p) || !std::isfinite(alpha_r) || alpha_p < 0 || alpha_r <= 0) {
        std::ostringstream os;
        os << "treefold: model parameters need finite alpha_p >= 0 and alpha_r > 0, got alpha_p = " << alpha_p
           << ", alpha_r = " << alpha_r;
        throw std::invalid_argument(os.str());
    }
}

namespace {

void check_p(int p, const char* what)
{
    if (p < 1) {
        throw std::invalid_argument(std::string("treefold: ") + what + " needs p >= 1, got " + std::to_string(p));
    }
}

void check_ratio(double c)
{
    if (!std::isfinite(c) || c < 0) {
        throw std::invalid_argument("treefold: alpha_p/alpha_r must be finite and >= 0, got " + std::to_string(c));
    }
}

/// Lambert W arguments computed in floating point may fall a hair below the branch point.
double clamp_branch(double x) { return std::max(x, -std::exp(-1.0)); }

} // namespace

double b_opt(double c)
{
    check_ratio(c);
    // u = b+1 solves u ln u − u = c − 1; with ln u = z + 1: z e^z = (c−1)/e.
    const double w = boost::math::lambert_w0(clamp_branch((c - 1.0) / std::numbers::e));
    return std::exp(w + 1.0) - 1.0;
}

double b_upper(double c)
{
    check_ratio(c);
    // u = b+1 solves (c−1+u) ln2 = (c+1) ln u, i.e. (−ku) e^{−ku} = −k e^{k(c−1)} = −2k e^{−2k}
    // with k = ln2/(c+1). u = 2 is the trivial root; the other lies on the other branch.
    const double k = std::numbers::ln2 / (c + 1.0);
    const double x = clamp_branch(-2.0 * k * std::exp(-2.0 * k));
    const double w = 2.0 * k < 1.0 ? boost::math::lambert_wm1(x) : boost::math::lambert_w0(x);
    return -w / k - 1.0;
}

double b_opt_numeric(double c)
{
    check_ratio(c);
    // Golden section on t = ln b of g(b) = (c+b)/ln(b+1), unimodal in t.
    auto g = [c](double t) {
        const double b = std::exp(t);
        return (c + b) / std::log1p(b);
    };
    double lo = -30.0;
    double hi = 30.0;
    const double r = (std::sqrt(5.0) - 1.0) / 2.0;
    double x1 = hi - r * (hi - lo);
    double x2 = lo + r * (hi - lo);
    double g1 = g(x1);
    double g2 = g(x2);
    for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
        if (g1 < g2) {
            hi = x2;
            x2 = x1;
            g2 = g1;
            x1 = hi - r * (hi - lo);
            g1 = g(x1);
        } else {
            lo = x1;
            x1 = x2;
            g1 = g2;
            x2 = lo + r * (hi - lo);
            g2 = g(x2);
        }
    }
    return std::exp((lo + hi) / 2.0);
}

double b_upper_numeric(double c)
{
    check_ratio(c);
    auto h = [c](double b) { return (c + b) * std::numbers::ln2 - (c + 1.0) * std::log1p(b); };
    const double at = b_opt_numeric(c);
    double lo = 0;
    double hi = 0;
    if (at > 1.0) {
        lo = at; // h < 0 between the roots 1 and b_upper
        hi = 2.0 * at + 2.0;
        while (h(hi) < 0) {
            hi *= 2.0;
        }
    } else {
        lo = 0.0; // h(0) = c ln 2 > 0, h(b_opt) < 0
        hi = at;
    }
    const bool rising = h(hi) > h(lo);
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2.0;
        if ((h(mid) < 0) == rising) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return (lo + hi) / 2.0;
}

namespace detail {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The extra α_r units a fold adds: fold and unfold of largest segment s.
double fold_units(int s, receive_cost receives)
{
    return (receives == receive_cost::conflicts ? s - 1 : 1) + (s - 1);
}

/// The extra α_r units pmerge(r) adds to the first stage (factor f1) and the last (factor fk)
/// of m core ranks.
double pmerge_units(int r, int m, int f1, int fk, receive_cost receives)
{
    // The first stage: a remainder sends f1 messages; a core rank receives f1 − 1 + its remainders.
    const int first = receives == receive_cost::conflicts ? ceil_div(r, m / f1) : 1;
    return first + ceil_div(r, m / fk);
}

} // namespace detail

double modelled_time(const schedule& s, int p, const params& m)
{
    double t = 0;
    for (const int f : s.factors()) {
        t += m.alpha_p + (f - 1) * m.alpha_r;
    }
    switch (s.fold()) {
    case schedule::fold_kind::collapse:
    case schedule::fold_kind::merge:
        t += 2.0 * m.alpha_p + detail::fold_units(s.largest_segment(p), m.receives) * m.alpha_r;
        break;
    case schedule::fold_kind::pmerge:
        t += detail::pmerge_units(s.remainder(), p - s.remainder(), s.factors().front(), s.factors().back(),
                                  m.receives) *
             m.alpha_r;
        break;
    case schedule::fold_kind::none: break;
    }
    return t;
}

namespace {

std::vector<int> prime_factors(int n)
{
    std::vector<int> out;
    for (int d = 2; d * d <= n; ++d) {
        while (n % d == 0) {
            out.push_back(d);
            n /= d;
        }
    }
    if (n > 1) {
        out.push_back(n);
    }
    return out;
}

/// Groups the prime factors of n into factors close to `target`, none above `cap` unless a
/// prime is. Largest primes first; a prime joins the factor whose product lands closest to
/// the target, if that is closer than standing alone.
std::vector<int> group_factors(int n, int target, int cap)
{
    std::vector<int> primes = prime_factors(n);
    std::sort(primes.rbegin(), primes.rend());
    std::vector<int> factors;
    for (const int q : primes) {
        int best_i = -1;
        int best_gap = std::abs(q - target);
        for (std::size_t i = 0; i < factors.size(); ++i) {
            const long long prod = static_cast<long long>(factors[i]) * q;
            if (prod > cap) {
                continue;
            }
            const int gap = static_cast<int>(std::llabs(prod - target));
            if (gap < best_gap || (gap == best_gap && factors[i] * q <= target)) {
                best_gap = gap;
                best_i = static_cast<int>(i);
            }
        }
        if (best_i >= 0) {
            factors[static_cast<std::size_t>(best_i)] *= q;
        } else {
            factors.push_back(q);
        }
    }
    std::sort(factors.rbegin(), factors.rend());
    return factors;
}

} // namespace

schedule heuristic(int p, const params& m)
{
    m.check();
    check_p(p, "heuristic schedule");
    if (p == 1) {
        return schedule{};
    }
    const double c = m.ratio();
    const int target = std::max(2, static_cast<int>(std::lround(b_opt(c))) + 1);
    const int cap = std::max(target, static_cast<int>(std::floor(b_upper(c))) + 1);
    auto small = [cap](int n) {
        const auto pf = prime_factors(n);
        return pf.empty() || pf.back() <= cap;
    };
    if (small(p)) {
        return schedule(group_factors(p, target, cap));
    }
    // A large prime factor: merge the remainder onto some m in [p/2, p) whose prime factors
    // are small (a power of two always qualifies); among those, the model picks.
    schedule chosen = topology::recursive_doubling(p);
    double chosen_time = modelled_time(chosen, p, m);
    auto consider = [&](schedule s) {
        const double t = modelled_time(s, p, m);
        if (t < chosen_time) {
            chosen = std::move(s);
            chosen_time = t;
        }
    };
    for (int mm = p - 1; 2 * mm >= p; --mm) {
        if (small(mm)) {
            std::vector<int> factors = group_factors(mm, target, cap);
            consider(schedule::merged(p - mm, factors));
            if (factors.size() >= 2) {
                // pmerge charges the first and the last factor: the smallest go there.
                std::sort(factors.begin(), factors.end());
                std::swap(factors[1], factors.back());
                consider(schedule::prime_merged(p - mm, std::move(factors)));
            }
        }
    }
    return chosen;
}

thesis_result thesis_heuristic_factors(int p, const params& m, bool sorted)
{
    m.check();
    check_p(p, "thesis heuristic");
    thesis_result out;
    if (p == 1) {
        return out;
    }
    const double c = m.ratio();
    const double upper = c > 0 ? b_upper(c) : 1.0;
    const int cap = std::min(p, std::max(2, static_cast<int>(std::floor(upper)) + 1));
    std::vector<int> candidates;
    for (int d = 2; d <= cap; ++d) {
        candidates.push_back(d);
    }
    if (sorted) { // by the time per ln(rank count) of a factor-d stage, Eq. 5.7 with b = d − 1
        auto key = [&m](int d) { return (m.alpha_p + (d - 1) * m.alpha_r) / std::log(static_cast<double>(d)); };
        std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) { return key(a) < key(b); });
    } else {
        std::reverse(candidates.begin(), candidates.end());
    }
    // The thesis recurses on count − 1 with one more merged rank; this is that loop.
    for (int count = p;; --count, ++out.merge) {
        out.factors.clear();
        long long product = 1;
        for (const int d : candidates) {
            while (count % (product * d) == 0) {
                out.factors.push_back(d);
                product *= d;
            }
        }
        if (product == count) {
            return out;
        }
    }
}

schedule thesis_heuristic(int p, const params& m, bool sorted)
{
    thesis_result r = thesis_heuristic_factors(p, m, sorted);
    if (r.merge == 0) {
        return schedule(std::move(r.factors));
    }
    if (r.factors.size() >= 2) {
        return schedule::prime_merged(r.merge, std::move(r.factors));
    }
    return schedule::merged(r.merge, std::move(r.factors));
}

namespace {

struct cost {
    double time = 0;
    std::uint64_t messages = 0;
    int rounds = 0;
};

bool better(const cost& a, const cost& b)
{
    const double eps = 1e-12 * std::max({1.0, std::abs(a.time), std::abs(b.time)});
    if (a.time < b.time - eps) {
        return true;
    }
    if (a.time > b.time + eps) {
        return false;
    }
    if (a.messages != b.messages) {
        return a.messages < b.messages;
    }
    return a.rounds < b.rounds;
}

} // namespace

schedule best(int p, const params& m, const search_space& space)
{
    m.check();
    check_p(p, "schedule search");
    // Divisors >= 2 of every n <= p, ascending (a sieve: O(p log p)).
    std::vector<std::vector<int>> divisors(static_cast<std::size_t>(p) + 1);
    for (int d = 2; d <= p; ++d) {
        for (int n = d; n <= p; n += d) {
            divisors[static_cast<std::size_t>(n)].push_back(d);
        }
    }
    // Factor-only optimum for every m <= p, its messages counted per active rank: Σ(f−1).
    struct entry {
        cost c;
        int first = 0; // the factor taken first (0 for m = 1)
    };
    std::vector<entry> dp(static_cast<std::size_t>(p) + 1);
    for (int n = 2; n <= p; ++n) {
        entry& bestn = dp[static_cast<std::size_t>(n)];
        for (const int f : divisors[static_cast<std::size_t>(n)]) {
            const cost& rest = dp[static_cast<std::size_t>(n / f)].c;
            const cost c{rest.time + m.alpha_p + (f - 1) * m.alpha_r,
                         rest.messages + static_cast<std::uint64_t>(f - 1), rest.rounds + 1};
            if (bestn.first == 0 || better(c, bestn.c)) {
                bestn = {c, f};
            }
        }
    }
    auto factors_of = [&](int n) {
        std::vector<int> f;
        while (n > 1) {
            f.push_back(dp[static_cast<std::size_t>(n)].first);
            n /= f.back();
        }
        std::sort(f.rbegin(), f.rend());
        return f;
    };
    // The factor stages of mm ranks plus a fold (largest segment `largest`) over p.
    auto folded = [&](int mm, int largest) {
        cost c = dp[static_cast<std::size_t>(mm)].c;
        c.messages = c.messages * static_cast<std::uint64_t>(mm) + 2 * static_cast<std::uint64_t>(p - mm);
        c.time += 2.0 * m.alpha_p + detail::fold_units(largest, m.receives) * m.alpha_r;
        c.rounds += 2;
        return c;
    };
    cost best_cost = dp[static_cast<std::size_t>(p)].c;
    best_cost.messages *= static_cast<std::uint64_t>(p);
    schedule best_schedule(factors_of(p));
    auto consider = [&](const cost& c, auto&& make) {
        if (better(c, best_cost)) {
            best_cost = c;
            best_schedule = make();
        }
    };
    if (space.collapse) {
        for (int b = 2; b <= p; ++b) {
            for (int t = b; t <= p; t += b) {
                const int mm = t / b + (p - t);
                consider(folded(mm, b), [&] { return schedule::collapsed(t, b, factors_of(mm)); });
            }
        }
    }
    if (space.merge) {
        for (int r = 1; r < p; ++r) {
            const int mm = p - r;
            consider(folded(mm, 1 + detail::ceil_div(r, mm)), [&] { return schedule::merged(r, factors_of(mm)); });
        }
    }
    if (space.pmerge) {
        // First factor f1, last factor fk, and the best factor-only middle of mm/(f1·fk).
        for (int r = 1; r + 4 <= p; ++r) {
            const int mm = p - r;
            for (const int fk : divisors[static_cast<std::size_t>(mm)]) {
                const int q = mm / fk;
                for (const int f1 : divisors[static_cast<std::size_t>(q)]) {
                    if (space.pmerge_remainder_below_first && r >= f1) {
                        continue;
                    }
                    const cost& mid = dp[static_cast<std::size_t>(q / f1)].c;
                    const cost c{mid.time + 2.0 * m.alpha_p + (f1 - 1 + fk - 1) * m.alpha_r +
                                     detail::pmerge_units(r, mm, f1, fk, m.receives) * m.alpha_r,
                                 (mid.messages + static_cast<std::uint64_t>(f1 - 1 + fk - 1)) *
                                         static_cast<std::uint64_t>(mm) +
                                     static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(f1 + fk),
                                 mid.rounds + 2};
                    consider(c, [&] {
                        std::vector<int> f{f1};
                        const auto middle = factors_of(q / f1);
                        f.insert(f.end(), middle.begin(), middle.end());
                        f.push_back(fk);
                        return schedule::prime_merged(r, std::move(f));
                    });
                }
            }
        }
    }
    return best_schedule;
}

params read_constants(const std::string& path)
{
    std::ifstream in = io::open_regular_file(path);
    return read_constants(in, path);
}

params read_constants(std::istream& in, const std::string& path)
{
    params out;
    bool have_p = false;
    bool have_r = false;
    std::string line;
    while (std::getline(in, line)) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) {
            line.resize(hash);
        }
        std::istringstream ls(line);
        std::string key;
        double value = 0;
        if (!(ls >> key)) {
            continue;
        }
        if (!(ls >> value)) {
            throw std::runtime_error("treefold: constants file '" + path + "': no number after '" +
                                     io::printable_excerpt(key) + "'");
        }
        if (key == "alpha_p") {
            out.alpha_p = value;
            have_p = true;
        } else if (key == "alpha_r") {
            out.alpha_r = value;
            have_r = true;
        }
    }
    if (!have_p || !have_r) {
        throw std::runtime_error("treefold: constants file '" + path + "' lacks " +
                                 (have_p ? "alpha_r" : "alpha_p"));
    }
    out.check();
    return out;
}

void write_constants(const std::string& path, const params& m, const std::string& comment)
{
    std::ofstream out(path);
    if (!out) {
        throw std::runtime_error("treefold: cannot write constants file '" + path + "'");
    }
    out.precision(17);
    out << "# " << comment << "\n"
        << "alpha_p " << m.alpha_p << "\n"
        << "alpha_r " << m.alpha_r << "\n";
    if (!out) {
        throw std::runtime_error("treefold: writing constants file '" + path + "' failed");
    }
}

} // namespace treefold::model
