#pragma once
/// Deterministic synthetic inputs, a pure function of the global index, so every rank can
/// make its own block without communication and every run sees the same values.

#include "treefold/config.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::io {

/// Kinds of synthetic input.
enum class synthetic_kind {
    loglik, ///< per-site log-likelihood-like values in about [-60, -0.5]
    mixed,  ///< signed values over many binary orders of magnitude
    cancel, ///< large values that cancel (1e16, 1, -1e16, ...) among small ones
};

/// Parses loglik, mixed or cancel; throws std::invalid_argument otherwise.
inline synthetic_kind parse_synthetic_kind(std::string_view s)
{
    if (s == "loglik") return synthetic_kind::loglik;
    if (s == "mixed") return synthetic_kind::mixed;
    if (s == "cancel") return synthetic_kind::cancel;
    throw std::invalid_argument("treefold: unknown synthetic kind '" + std::string(s) + "' (want loglik, mixed or cancel)");
}

/// A well-mixed 64-bit hash of the index (splitmix64 finaliser constants).
constexpr std::uint64_t mix64(std::uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// Value number `index` of the synthetic input of `kind` (only +, *, exact scaling: the same
/// bits on every IEEE-754 machine).
constexpr double synthetic_value(synthetic_kind kind, std::uint64_t index)
{
    const std::uint64_t h = mix64(index);
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53; // [0, 1)
    switch (kind) {
    case synthetic_kind::loglik:
        return -(0.5 + 60.0 * u * u);
    case synthetic_kind::mixed: {
        double v = u - 0.5;
        for (unsigned k = (h & 0x1f); k > 0; --k) {
            v *= (h & 0x20) != 0 ? 16.0 : 0.0625; // scale by powers of two: exact
        }
        return v;
    }
    case synthetic_kind::cancel:
        switch (index % 4) {
        case 0: return 1e16;
        case 1: return u;
        case 2: return -1e16;
        default: return -u * 0.5;
        }
    }
    return 0.0;
}

/// Values start .. start + count − 1 of the synthetic input of `kind`: a rank's block, filled
/// without communication.
inline std::vector<double> synthetic_values(synthetic_kind kind, std::uint64_t start, std::uint64_t count)
{
    std::vector<double> out(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        out[i] = synthetic_value(kind, start + i);
    }
    return out;
}

} // namespace treefold::io
