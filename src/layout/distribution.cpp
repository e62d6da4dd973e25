#include "treefold/layout/block_layout.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace treefold::layout {

namespace {

void check_p(int p)
{
    if (p <= 0) {
        throw std::invalid_argument("treefold: a distribution needs at least one rank (p = " +
                                    std::to_string(p) + ")");
    }
}

} // namespace

std::vector<index_t> even_lower(index_t n, int p)
{
    check_p(p);
    const auto up = static_cast<index_t>(p);
    std::vector<index_t> c(up, n / up);
    for (index_t r = 0; r < n % up; ++r) {
        ++c[r];
    }
    return c;
}

std::vector<index_t> even_upper(index_t n, int p)
{
    auto c = even_lower(n, p);
    std::reverse(c.begin(), c.end());
    return c;
}

std::vector<index_t> power_of_two(index_t n, int p)
{
    check_p(p);
    const auto up = static_cast<index_t>(p);
    const index_t q = n / up;
    const index_t each = q == 0 ? 0 : std::bit_floor(q);
    std::vector<index_t> c(up, each);
    c[up - 1] = n - (up - 1) * each;
    return c;
}

std::vector<index_t> aligned(index_t n, int p, double alpha)
{
    check_p(p);
    if (!(alpha >= 0.0) || !std::isfinite(alpha)) {
        throw std::invalid_argument("treefold: aligned distribution needs a finite alpha >= 0");
    }
    const auto up = static_cast<index_t>(p);
    const auto even = even_upper(n, p);
    const double slack_d = alpha * static_cast<double>(n) / static_cast<double>(p);
    const index_t slack = slack_d >= 9.2e18 ? index_tree::max_size : static_cast<index_t>(slack_d);
    std::vector<index_t> starts(up + 1, 0);
    index_t even_start = 0;
    for (index_t r = 0; r < up; ++r) {
        if (r > 0) {
            // Clear low bits one at a time while the start stays within the slack and
            // does not pass the previous start.
            index_t best = even_start;
            for (unsigned k = 1; k < 64; ++k) {
                const index_t candidate = even_start & ~((index_t{1} << k) - 1);
                if (even_start - candidate > slack || candidate < starts[r - 1]) {
                    break;
                }
                best = candidate;
            }
            starts[r] = best;
        }
        even_start += even[r];
    }
    starts[up] = n;
    std::vector<index_t> c(up);
    for (index_t r = 0; r < up; ++r) {
        c[r] = starts[r + 1] - starts[r];
    }
    return c;
}

std::vector<index_t> distribution::counts(index_t n, int p) const
{
    switch (which) {
    case kind::even_lower: return even_lower(n, p);
    case kind::even_upper: return even_upper(n, p);
    case kind::power_of_two: return power_of_two(n, p);
    case kind::aligned: return aligned(n, p, alpha);
    }
    throw std::logic_error("treefold: unknown distribution kind");
}

std::string distribution::name() const
{
    switch (which) {
    case kind::even_lower: return "even-lower";
    case kind::even_upper: return "even-upper";
    case kind::power_of_two: return "power-of-two";
    case kind::aligned: {
        std::ostringstream s;
        s << "aligned:" << alpha;
        return s.str();
    }
    }
    return "?";
}

distribution distribution::parse(std::string_view text)
{
    distribution d;
    for (const kind k : {kind::even_lower, kind::even_upper, kind::power_of_two}) { // name() spells these
        d.which = k;
        if (text == d.name()) {
            return d;
        }
    }
    if (text.starts_with("aligned:")) {
        d.which = kind::aligned;
        const std::string number(text.substr(8));
        std::size_t used = 0;
        try {
            d.alpha = std::stod(number, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (number.empty() || used != number.size() || !(d.alpha >= 0.0) || !std::isfinite(d.alpha)) {
            throw std::invalid_argument("treefold: bad alpha in distribution '" + std::string(text) +
                                        "' (want aligned:ALPHA with ALPHA >= 0)");
        }
    } else {
        throw std::invalid_argument("treefold: unknown distribution '" + std::string(text) +
                                    "' (want even-lower, even-upper, power-of-two or aligned:ALPHA)");
    }
    return d;
}

} // namespace treefold::layout
