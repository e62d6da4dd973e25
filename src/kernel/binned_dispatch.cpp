// kernel::binned_simd and kernel::binned_best: chunks scanned and deposited through the
// architecture's lane kernels (binned_<arch>.cpp), joined with the scalar code of this TU,
// which is built without architecture flags.
#include "treefold/kernel/binned.hpp"
#include "treefold/kernel/dispatch.hpp"

#include <xsimd/config/xsimd_arch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace treefold::kernel {

namespace detail {

template <int K>
binned<K> binned_sum_lanes(const binned_lane_kernel& k, const double* first, std::uint64_t len)
{
    binned<K> acc{};
    double lanes[K * 64];
    double base[K];
    for (std::uint64_t start = 0; start < len; start += binned_chunk) {
        const double* p = first + start;
        const std::uint64_t n = std::min(binned_chunk, len - start);
        const std::uint64_t body = n - n % k.step;
        const double m = body > 0 ? k.scan(p, body) : 0.0;
        if (!(m - m == 0.0)) { // a non-finite value: this chunk one value at a time
            for (std::uint64_t j = 0; j < n; ++j) {
                acc.deposit(p[j]);
            }
            continue;
        }
        if (m > 0.0) {
            // Deposit at the higher of the chunk's top and the accumulator's: both hold every
            // value of the chunk (binned.hpp).
            acc.raise_top(binned_top_for<K>(m));
            const int t = static_cast<int>(acc.top - 1);
            for (int f = 0; f < K; ++f) {
                base[f] = binned_base(t, f);
            }
            k.deposit(p, body, base, t == 0 ? binned_pow2(-binned_top_shift) : 1.0, lanes);
            for (int f = 0; f < K; ++f) {
                const double q = binned_quantum(t, f);
                for (std::size_t l = 0; l < k.step; ++l) {
                    // both offsets under 2^(e-1): the sum is exact, then back in [-q/2, q/2)
                    acc.offset[f] += lanes[static_cast<std::size_t>(f) * k.step + l];
                    binned_renormalise(acc.offset[f], acc.carry[f], q);
                }
            }
        }
        for (std::uint64_t j = body; j < n; ++j) {
            acc.deposit(p[j]);
        }
    }
    return acc;
}

template binned<2> binned_sum_lanes<2>(const binned_lane_kernel&, const double*, std::uint64_t);
template binned<3> binned_sum_lanes<3>(const binned_lane_kernel&, const double*, std::uint64_t);

namespace {

template <int K>
const binned_lane_kernel& best_lanes() noexcept
{
    static const binned_lane_kernel k = [] {
        const char* arch = best_arch_name();
        if (std::strcmp(arch, xsimd::avx512f::name()) == 0) {
            return binned_lanes<xsimd::avx512f, K>();
        }
        if (std::strcmp(arch, xsimd::avx2::name()) == 0) {
            return binned_lanes<xsimd::avx2, K>();
        }
        return binned_lanes<xsimd::sse2, K>();
    }();
    return k;
}

} // namespace
} // namespace detail

template <class Arch, int K>
binned<K> binned_simd<Arch, K>::sum(const double* first, std::uint64_t len)
{
    static const detail::binned_lane_kernel k = detail::binned_lanes<Arch, K>();
    return detail::binned_sum_lanes<K>(k, first, len);
}

template struct binned_simd<xsimd::sse2, 2>;
template struct binned_simd<xsimd::sse2, 3>;
template struct binned_simd<xsimd::avx2, 2>;
template struct binned_simd<xsimd::avx2, 3>;
template struct binned_simd<xsimd::avx512f, 2>;
template struct binned_simd<xsimd::avx512f, 3>;

template <int K>
binned<K> binned_best<K>::sum(const double* first, std::uint64_t len)
{
    return detail::binned_sum_lanes<K>(detail::best_lanes<K>(), first, len);
}

template struct binned_best<2>;
template struct binned_best<3>;

} // namespace treefold::kernel
