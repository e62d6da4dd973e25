// kernel::binned_simd and kernel::binned_best: chunks scanned and deposited through the
// architecture's lane kernels (binned_<arch>.cpp), joined with the scalar code of this TU,
// which is built without architecture flags.
#include "arch_choice.hpp"
#include "treefold/kernel/binned.hpp"
#include "treefold/kernel/dispatch.hpp"

#include <xsimd/config/xsimd_arch.hpp>

#include <algorithm>
#include <cmath>

namespace treefold::kernel {

namespace detail {

namespace {

/// Deposits the chunk p[0, body) (largest magnitude m, finite) through the lanes into acc;
/// false, leaving acc's folds untouched, if a NaN showed in the lanes.
template <int K>
bool deposit_chunk(const binned_lane_kernel& k, binned<K>& acc, const double* p, std::uint64_t body, double m, double* lanes)
{
    // Deposit at the higher of the chunk's top and the accumulator's: both hold every
    // value of the chunk (binned.hpp).
    const int t = std::min(binned_top_for<K>(m), acc.top == 0 ? binned_bin_count : static_cast<int>(acc.top - 1));
    double base[K];
    for (int f = 0; f < K; ++f) {
        base[f] = binned_base(t, f);
    }
    k.deposit(p, body, base, t == 0 ? binned_pow2(-binned_top_shift) : 1.0, lanes);
    for (int f = 0; f < K; ++f) {
        if (!(lanes[f] == lanes[f])) {
            return false;
        }
    }
    acc.raise_top(t);
    for (int f = 0; f < K; ++f) {
        // both offsets under 2^(e-2): the sum is exact, then back in [-q/2, q/2)
        acc.offset[f] += lanes[f];
        binned_renormalise(acc.offset[f], acc.carry[f], binned_quantum(t, f));
    }
    return true;
}

} // namespace

template <int K>
binned<K> binned_sum_lanes(const binned_lane_kernel& k, const double* first, std::uint64_t len)
{
    binned<K> acc{};
    double lanes[K];
    for (std::uint64_t start = 0; start < len; start += binned_chunk) {
        const double* p = first + start;
        const std::uint64_t n = std::min(binned_chunk, len - start);
        const std::uint64_t body = n - n % k.step;
        const double m = body > 0 ? k.scan(p, body) : 0.0;
        if (m > 0.0 && m - m == 0.0 && deposit_chunk(k, acc, p, body, m, lanes)) {
            for (std::uint64_t j = body; j < n; ++j) {
                acc.deposit(p[j]);
            }
        } else { // an infinity or NaN (or only zeros): this chunk one value at a time
            for (std::uint64_t j = 0; j < n; ++j) {
                acc.deposit(p[j]);
            }
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
    static const binned_lane_kernel k =
        pick(&binned_lanes<xsimd::sse2, K>, &binned_lanes<xsimd::avx2, K>, &binned_lanes<xsimd::avx512f, K>)();
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
