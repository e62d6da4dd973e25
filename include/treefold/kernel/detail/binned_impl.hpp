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

namespace treefold::kernel::detail {

/// binned_lane_kernel's functions for Arch and K folds.
template <class Arch, int K>
struct binned_lanes_of {
    using batch = xsimd::batch<double, Arch>;         ///< one register of doubles
    static constexpr std::size_t width = batch::size; ///< lanes per register
    /// Accumulators per fold: independent additions to hide their latency, K x U primaries
    /// in registers (2, 4 and 8 measured the same with avx512f: the loop is throughput bound).
    static constexpr std::size_t unroll = 4;
    static constexpr std::size_t step = width * unroll; ///< values per step
    static_assert(step <= 64 && binned_chunk % step == 0);

    /// max |x|: an infinity shows; a NaN may not (max drops it), but it turns the primaries
    /// it is deposited into to NaN, which binned_sum_lanes checks.
    static double scan(const double* p, std::uint64_t len)
    {
        batch m(0.0);
        for (std::uint64_t j = 0; j < len; j += width) {
            m = xsimd::max(m, xsimd::abs(batch::load_unaligned(p + j)));
        }
        alignas(64) double lanes[width];
        m.store_aligned(lanes);
        double out = 0.0;
        for (std::size_t l = 0; l < width; ++l) {
            out = lanes[l] > out ? lanes[l] : out;
        }
        return out;
    }

    /// binned_lane_kernel::deposit (the scaled loop only for top bin 0).
    static void deposit(const double* p, std::uint64_t len, const double* base, double scale, double* out)
    {
        if (scale == 1.0) {
            deposit_scaled<false>(p, len, base, scale, out);
        } else {
            deposit_scaled<true>(p, len, base, scale, out);
        }
    }

    /// deposit, multiplying each value by `scale` first where Scaled.
    template <bool Scaled>
    static void deposit_scaled(const double* p, std::uint64_t len, const double* base, double scale, double* out)
    {
        const batch odd(std::bit_cast<double>(std::uint64_t{1}));
        const batch s(scale);
        batch acc[K][unroll];
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
#pragma GCC unroll 16
            for (std::size_t a = 0; a < unroll; ++a) {
                acc[k][a] = batch(base[k]);
            }
        }
        // Fully unrolled, so that the K x U accumulators live in registers (a loop over the
        // array kept them on the stack: 1.6x slower).
        for (std::uint64_t j = 0; j < len; j += step) {
#pragma GCC unroll 16
            for (std::size_t a = 0; a < unroll; ++a) {
                // The next chunk is scanned after this deposit re-reads the current one
                // from L1: fetching it now keeps the memory stream going meanwhile (a
                // prefetch past the end of the data is harmless).
                __builtin_prefetch(p + j + a * width + binned_chunk);
                batch r = batch::load_unaligned(p + j + a * width);
                if constexpr (Scaled) {
                    r = r * s;
                }
#pragma GCC unroll 4
                for (int k = 0; k < K - 1; ++k) {
                    const batch pn = acc[k][a] + (r | odd);
                    r = r - (pn - acc[k][a]);
                    acc[k][a] = pn;
                }
                acc[K - 1][a] = acc[K - 1][a] + (r | odd);
            }
        }
        // The lanes' offsets from the bin constant are multiples of its unit under 2^(e-2) in
        // total (2048 deposits of at most 2^(e-13)): their sum is exact in any order.
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            const batch b(base[k]);
            batch total = acc[k][0] - b;
#pragma GCC unroll 16
            for (std::size_t a = 1; a < unroll; ++a) {
                total = total + (acc[k][a] - b);
            }
            alignas(64) double lanes[width];
            total.store_aligned(lanes);
            double sum = 0.0;
            for (std::size_t l = 0; l < width; ++l) {
                sum += lanes[l];
            }
            out[k] = sum;
        }
    }
};

/// The lane kernel of Arch for K folds (instantiated in src/kernel/binned_ARCH.cpp).
template <class Arch, int K>
binned_lane_kernel binned_lanes() noexcept
{
    using L = binned_lanes_of<Arch, K>;
    return {&L::scan, &L::deposit, L::step};
}

} // namespace treefold::kernel::detail
