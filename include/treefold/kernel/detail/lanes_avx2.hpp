#pragma once
/// The avx2 lane moves of the SIMD kernels: butterfly steps on 64-bit lanes in native
/// unpacks and 128-bit half permutes.
/// Part of simd_impl.hpp; compiled to something only in translation units built with the
/// architecture's flags (XSIMD_WITH_AVX2).

#include "treefold/config.hpp"

#include <xsimd/xsimd.hpp>

#include <bit>
#include <cstddef>

namespace treefold::kernel::detail {

/// The operands of one butterfly step at stride H (defined, generically, in simd_impl.hpp).
template <class T, class Arch, std::size_t H>
struct butterfly;

/// A butterfly step's operands for operators whose operands swap (simd_impl.hpp).
template <class T, class Arch, std::size_t H>
struct swapped_butterfly;

/// Lane l ^ H into lane l (defined, generically, in simd_impl.hpp).
template <class T, class Arch, std::size_t H>
struct lane_swap;

/// Even and odd lanes of two registers (defined, generically, in simd_impl.hpp).
template <class T, class Arch>
struct deinterleave;

#if XSIMD_WITH_AVX2
/// avx2, 64-bit lanes: stride 1 is unpacklo/unpackhi, stride 2 a 128-bit half permute.
template <class T, std::size_t H>
    requires(sizeof(T) == 8)
struct butterfly<T, xsimd::avx2, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx2>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m256d ad = bits(a);
        const __m256d bd = bits(b);
        if constexpr (H == 1) {
            e = from(_mm256_unpacklo_pd(ad, bd)); // a0 b0 a2 b2
            o = from(_mm256_unpackhi_pd(ad, bd)); // a1 b1 a3 b3
        } else {
            e = from(_mm256_permute2f128_pd(ad, bd, 0x20)); // a0 a1 b0 b1
            o = from(_mm256_permute2f128_pd(ad, bd, 0x31)); // a2 a3 b2 b3
        }
    }
    // The same bits as the floating-point register the instructions take, and back.
    static __m256d bits(const batch& x) { return std::bit_cast<__m256d>(x.data); }
    static batch from(__m256d x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx2, 64-bit lanes, operands that swap: e is a blend; o an in-lane shuffle at stride 1,
/// a 128-bit half permute at stride 2.
template <class T, std::size_t H>
    requires(sizeof(T) == 8)
struct swapped_butterfly<T, xsimd::avx2, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx2>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m256d ad = std::bit_cast<__m256d>(a.data);
        const __m256d bd = std::bit_cast<__m256d>(b.data);
        if constexpr (H == 1) {
            e = from(_mm256_blend_pd(ad, bd, 0xA));   // a0 b1 a2 b3
            o = from(_mm256_shuffle_pd(ad, bd, 0x5)); // a1 b0 a3 b2
        } else {
            e = from(_mm256_blend_pd(ad, bd, 0xC));          // a0 a1 b2 b3
            o = from(_mm256_permute2f128_pd(ad, bd, 0x21)); // a2 a3 b0 b1
        }
    }
    static batch from(__m256d x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx2: lane swaps by immediate shuffles (in-lane below 128 bits, the two halves above).
template <class T, std::size_t H>
    requires(sizeof(T) == 8 || sizeof(T) == 4)
struct lane_swap<T, xsimd::avx2, H> {
    using batch = xsimd::batch<T, xsimd::avx2>;
    static constexpr std::size_t bytes = H * sizeof(T); // the distance moved
    static batch apply(const batch& v)
    {
        const __m256d d = std::bit_cast<__m256d>(v.data);
        const __m256 f = std::bit_cast<__m256>(v.data);
        if constexpr (bytes == 4) {
            return from(_mm256_permute_ps(f, 0xB1));
        } else if constexpr (bytes == 8) {
            return from(_mm256_permute_pd(d, 0x5));
        } else {
            return from(_mm256_permute2f128_pd(d, d, 0x01));
        }
    }
    static batch from(__m256d x) { return std::bit_cast<typename batch::register_type>(x); }
    static batch from(__m256 x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx2: the even and odd lanes of two registers, an in-lane shuffle and a 64-bit lane
/// permute each (a0 b0 a2 b2 -> a0 a2 b0 b2).
template <class T>
    requires(sizeof(T) == 8 || sizeof(T) == 4)
struct deinterleave<T, xsimd::avx2> {
    using batch = xsimd::batch<T, xsimd::avx2>;
    static void apply(const batch& a, const batch& b, batch& e, batch& o)
    {
        if constexpr (sizeof(T) == 8) {
            const __m256d ad = std::bit_cast<__m256d>(a.data);
            const __m256d bd = std::bit_cast<__m256d>(b.data);
            e = from(_mm256_permute4x64_pd(_mm256_unpacklo_pd(ad, bd), 0xD8));
            o = from(_mm256_permute4x64_pd(_mm256_unpackhi_pd(ad, bd), 0xD8));
        } else {
            const __m256 af = std::bit_cast<__m256>(a.data);
            const __m256 bf = std::bit_cast<__m256>(b.data);
            // a0 a2 b0 b2 | a4 a6 b4 b6, then the middle 64-bit lanes swapped
            e = from(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(af, bf, 0x88)), 0xD8));
            o = from(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(af, bf, 0xDD)), 0xD8));
        }
    }
    static batch from(__m256d x) { return std::bit_cast<typename batch::register_type>(x); }
};
#endif

} // namespace treefold::kernel::detail
