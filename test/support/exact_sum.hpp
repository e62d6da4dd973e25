#pragma once
/// The correctly rounded reference for accurate sums: an exact fixed-point accumulator over
/// the whole double range (a "long accumulator"). Nothing shared with the library.
///
/// Every finite double is m * 2^e with an integer |m| < 2^53 and e >= -1074, so it is an
/// integer multiple of 2^-1074 below 2^1024. The accumulator holds such a multiple exactly
/// in 32-bit digits (stored in int64 words, so additions need no carry until normalise());
/// the sum of any number of doubles is exact, and rounding it once gives the correctly
/// rounded sum (round to nearest, ties to even; overflow gives +-Inf). Also: the distance
/// in ulps between doubles, and inputs of a chosen condition number.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

namespace treefold::testing {

/// An exact sum of finite doubles (see the file comment).
class exact_sum {
public:
    /// Bit 0 of the fixed point is worth 2^-1074; doubles reach bit 1074 + 1023 + 1 = 2098.
    static constexpr int digit_bits = 32;
    static constexpr int digits = 2098 / digit_bits + 4; // headroom for carries of 2^64 terms

    exact_sum() : w_(digits, 0) {}

    /// Adds x exactly (x must be finite).
    void add(double x)
    {
        if (!std::isfinite(x)) {
            throw std::invalid_argument("exact_sum: non-finite value");
        }
        if (x == 0.0) {
            return;
        }
        int e = 0;
        const double f = std::frexp(std::fabs(x), &e); // |x| = f * 2^e, f in [0.5, 1)
        // |x| = m * 2^(e - 53) with m = f * 2^53 an integer; below 2^-1074 the low bits are 0.
        auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));
        int pos = e - 53 + 1074; // the fixed-point position of m's bit 0
        if (pos < 0) {
            m >>= -pos; // exact: x is a multiple of 2^-1074
            pos = 0;
        }
        const int k = pos / digit_bits;
        const int r = pos % digit_bits;
        // m * 2^r < 2^85: three digits.
        const std::uint64_t mask = 0xffffffffU;
        const std::uint64_t rest = m >> (digit_bits - r);
        const std::uint64_t piece[3] = {(m << r) & mask, rest & mask, rest >> digit_bits};
        const std::int64_t sign = x < 0 ? -1 : 1;
        for (int d = 0; d < 3; ++d) {
            w_[k + d] += sign * static_cast<std::int64_t>(piece[d]);
        }
        if (++pending_ == (std::uint64_t{1} << 30)) {
            normalise();
        }
    }

    void add(std::span<const double> xs)
    {
        for (const double x : xs) {
            add(x);
        }
    }

    /// The exact sum rounded to nearest (ties to even).
    double rounded()
    {
        normalise();
        std::vector<std::int64_t> mag = w_;
        const bool negative = mag.back() < 0;
        if (negative) { // two's complement over the digits: negate
            std::int64_t carry = 1;
            for (auto& d : mag) {
                d = (~d & 0xffffffff) + carry;
                carry = d >> digit_bits;
                d &= 0xffffffff;
            }
        }
        int top = -1; // highest set bit
        for (int i = digits * digit_bits - 1; i >= 0; --i) {
            if (bit(mag, i)) {
                top = i;
                break;
            }
        }
        if (top < 0) {
            return 0.0;
        }
        // Below bit 53 everything is exact (the subnormal range and the smallest normals).
        const int low = top >= 52 ? top - 52 : 0;
        std::uint64_t m = 0;
        for (int i = top; i >= low; --i) {
            m = (m << 1) | static_cast<std::uint64_t>(bit(mag, i));
        }
        int exponent = low - 1074;
        if (low > 0) {
            const bool guard = bit(mag, low - 1);
            bool sticky = false;
            for (int i = low - 2; i >= 0 && !sticky; --i) {
                sticky = bit(mag, i);
            }
            if (guard && (sticky || (m & 1) != 0)) {
                ++m;
                if (m == (std::uint64_t{1} << 53)) {
                    m >>= 1;
                    ++exponent;
                }
            }
        }
        const double v = std::ldexp(static_cast<double>(m), exponent); // exact, or +Inf on overflow
        return negative ? -v : v;
    }

private:
    static bool bit(const std::vector<std::int64_t>& d, int i)
    {
        return ((d[static_cast<std::size_t>(i / digit_bits)] >> (i % digit_bits)) & 1) != 0;
    }

    /// Carries so that every digit but the top one is in [0, 2^32); the top one is signed.
    void normalise()
    {
        for (int i = 0; i + 1 < digits; ++i) {
            const std::int64_t carry = w_[i] >> digit_bits; // arithmetic shift: floor division
            w_[i] -= carry * (std::int64_t{1} << digit_bits);
            w_[i + 1] += carry;
        }
        pending_ = 0;
    }

    std::vector<std::int64_t> w_;
    std::uint64_t pending_ = 0;
};

/// The correctly rounded sum of xs (all finite).
inline double exact_rounded_sum(std::span<const double> xs)
{
    exact_sum acc;
    acc.add(xs);
    return acc.rounded();
}

/// |got - the exact sum of xs|, rounded once (all finite).
inline double abs_error(double got, std::span<const double> xs)
{
    exact_sum acc;
    acc.add(got);
    for (const double x : xs) {
        acc.add(-x);
    }
    return std::fabs(acc.rounded());
}

/// The distance in ulps between two finite doubles: how many doubles lie between them
/// (0 when equal; +0 and -0 are the same point).
inline std::uint64_t ulps_apart(double a, double b)
{
    auto ordered = [](double x) {
        std::int64_t i = 0;
        static_assert(sizeof i == sizeof x);
        std::memcpy(&i, &x, sizeof x);
        return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
    };
    const std::int64_t ia = ordered(a);
    const std::int64_t ib = ordered(b);
    return ia > ib ? static_cast<std::uint64_t>(ia) - static_cast<std::uint64_t>(ib)
                   : static_cast<std::uint64_t>(ib) - static_cast<std::uint64_t>(ia);
}

/// Values whose exact sum is tiny against their magnitudes: ~n/2 values with exponents over
/// [-spread, spread], their negations, and a few small terms of magnitude 2^-bits of the
/// total, all shuffled. The condition number is about 2^bits.
inline std::vector<double> ill_conditioned(std::uint64_t seed, std::size_t n, int spread, int bits)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::uniform_int_distribution<int> expo(-spread, spread);
    std::vector<double> xs;
    double total = 0.0;
    for (std::size_t i = 0; i < n / 2; ++i) {
        const double v = std::ldexp(rng() % 2 ? mant(rng) : -mant(rng), expo(rng));
        xs.push_back(v);
        xs.push_back(-v);
        total += 2 * std::fabs(v);
    }
    for (int i = 0; i < 3; ++i) {
        xs.push_back(std::ldexp(mant(rng), -bits) * total * (i == 1 ? -0.25 : 1.0));
    }
    std::shuffle(xs.begin(), xs.end(), rng);
    return xs;
}

} // namespace treefold::testing
