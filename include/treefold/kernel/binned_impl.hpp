#pragma once
/// The register part of kernel::binned_simd<Arch, K>: include it only in translation units
/// compiled with the architecture's flags (src/kernel/binned_ARCH.cpp). Everything here is
/// templated on Arch, so nothing compiled with those flags is shared with other objects.
///
/// The deposit of kernel/binned.hpp on registers: U independent accumulators of W lanes each
/// (U x W = step values per step), each with K primaries; the values of a chunk are spread
/// over them in memory order. Any spread gives the same shares (see binned.hpp).

#include "treefold/config.hpp"
#include "treefold/kernel/binned.hpp"

#include <xsimd/xsimd.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace treefold::kernel::detail {

template <class Arch, int K>
struct binned_lanes_of {
    using batch = xsimd::batch<double, Arch>;
    static constexpr std::size_t width = batch::size;
    /// Accumulators per fold: enough independent additions to hide their latency, few
    /// enough for K x U primaries to stay in registers.
    static constexpr std::size_t unroll = 4;
    static constexpr std::size_t step = width * unroll;
    static_assert(step <= 64 && binned_chunk % step == 0);

    static double scan(const double* p, std::uint64_t len)
    {
        batch m(0.0);
        batch f(0.0); // x - x: 0 for finite x, NaN otherwise
        for (std::uint64_t j = 0; j < len; j += width) {
            const batch x = batch::load_unaligned(p + j);
            m = xsimd::max(m, xsimd::abs(x));
            f = f + (x - x);
        }
        alignas(64) double lanes[width];
        alignas(64) double flags[width];
        m.store_aligned(lanes);
        f.store_aligned(flags);
        double out = 0.0;
        for (std::size_t l = 0; l < width; ++l) {
            if (!(flags[l] == 0.0)) {
                return std::numeric_limits<double>::quiet_NaN();
            }
            out = lanes[l] > out ? lanes[l] : out;
        }
        return out;
    }

    static void deposit(const double* p, std::uint64_t len, const double* base, double scale, double* out)
    {
        const batch odd(std::bit_cast<double>(std::uint64_t{1}));
        const batch s(scale);
        batch acc[K][unroll];
        for (int k = 0; k < K; ++k) {
            for (std::size_t a = 0; a < unroll; ++a) {
                acc[k][a] = batch(base[k]);
            }
        }
        for (std::uint64_t j = 0; j < len; j += step) {
            for (std::size_t a = 0; a < unroll; ++a) {
                batch r = batch::load_unaligned(p + j + a * width) * s;
                for (int k = 0; k < K - 1; ++k) {
                    const batch pn = acc[k][a] + (r | odd);
                    r = r - (pn - acc[k][a]);
                    acc[k][a] = pn;
                }
                acc[K - 1][a] = acc[K - 1][a] + (r | odd);
            }
        }
        for (int k = 0; k < K; ++k) {
            const batch b(base[k]);
            for (std::size_t a = 0; a < unroll; ++a) {
                (acc[k][a] - b).store_unaligned(out + static_cast<std::size_t>(k) * step + a * width);
            }
        }
    }
};

template <class Arch, int K>
binned_lane_kernel binned_lanes() noexcept
{
    using L = binned_lanes_of<Arch, K>;
    return {&L::scan, &L::deposit, L::step};
}

} // namespace treefold::kernel::detail
