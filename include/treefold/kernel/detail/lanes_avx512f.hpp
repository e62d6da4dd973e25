#pragma once
/// The avx512f lane moves of the SIMD kernels: butterfly steps in native two-source
/// permutes and shuffles, and the main loop's register load.
/// Part of simd_impl.hpp; compiled to something only in translation units built with the
/// architecture's flags (XSIMD_WITH_AVX512F).

#include "treefold/config.hpp"

#include <xsimd/xsimd.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

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

#if XSIMD_WITH_AVX512F
/// avx512f: e and o each in one non-destructive instruction: unpack for stride 1 (64-bit
/// lanes), a 128-bit block shuffle for the top stride, a two-source permute otherwise.
/// (Merge-masked one-register permutes also work, but destroy their source, and the
/// compiler then loads every input twice.)
template <class T, std::size_t H>
    requires(sizeof(T) == 8)
struct butterfly<T, xsimd::avx512f, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx512f>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m512d ad = bits(a);
        const __m512d bd = bits(b);
        if constexpr (H == 1) {
            e = from(_mm512_unpacklo_pd(ad, bd)); // a0 b0 a2 b2 ...
            o = from(_mm512_unpackhi_pd(ad, bd)); // a1 b1 a3 b3 ...
        } else if constexpr (H == 2) {
            // lanes 0..7 of a, 8..15 of b
            e = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), bd));
            o = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), bd));
        } else {
            e = from(_mm512_shuffle_f64x2(ad, bd, 0x44)); // a0-3 b0-3
            o = from(_mm512_shuffle_f64x2(ad, bd, 0xEE)); // a4-7 b4-7
        }
    }
    // The same bits as the floating-point register the instructions take, and back.
    static __m512d bits(const batch& x) { return std::bit_cast<__m512d>(x.data); }
    static batch from(__m512d x) { return std::bit_cast<typename batch::register_type>(x); }
};

template <class T, std::size_t H>
    requires(sizeof(T) == 4)
struct butterfly<T, xsimd::avx512f, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx512f>;
    /// Two-source permute indices: lane l of e takes a_l where bit H of l is clear and
    /// b_{l^H} (index 16 + (l^H)) where it is set; o takes a_{l^H} and b_l.
    static __m512i index(bool right)
    {
        alignas(64) std::int32_t idx[16];
        for (int l = 0; l < 16; ++l) {
            const bool high = (l & static_cast<int>(H)) != 0;
            const int partner = l ^ static_cast<int>(H);
            idx[l] = right ? (high ? 16 + l : partner) : (high ? 16 + partner : l);
        }
        return _mm512_load_si512(idx);
    }
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m512 af = bits(a);
        const __m512 bf = bits(b);
        if constexpr (H == 8) {
            e = from(_mm512_shuffle_f32x4(af, bf, 0x44)); // a0-7 b0-7
            o = from(_mm512_shuffle_f32x4(af, bf, 0xEE)); // a8-15 b8-15
        } else {
            e = from(_mm512_permutex2var_ps(af, index(false), bf));
            o = from(_mm512_permutex2var_ps(af, index(true), bf));
        }
    }
    // The same bits as the floating-point register the instructions take, and back.
    static __m512 bits(const batch& x) { return std::bit_cast<__m512>(x.data); }
    static batch from(__m512 x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx512f: e is a masked blend (no lane moves); o is an in-lane shuffle at stride 1, a
/// 128-bit block shuffle at the top stride and a two-source permute otherwise.
template <class T, std::size_t H>
    requires(sizeof(T) == 8 || sizeof(T) == 4)
struct swapped_butterfly<T, xsimd::avx512f, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx512f>;
    static constexpr unsigned lanes = 64 / sizeof(T);
    /// The lanes whose bit H is set (they take b in e).
    static constexpr unsigned high_mask = [] {
        unsigned m = 0;
        for (unsigned l = 0; l < lanes; ++l) {
            m |= (l & H) != 0 ? 1u << l : 0u;
        }
        return m;
    }();
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        if constexpr (sizeof(T) == 8) {
            const __m512d ad = std::bit_cast<__m512d>(a.data);
            const __m512d bd = std::bit_cast<__m512d>(b.data);
            e = from(_mm512_mask_blend_pd(static_cast<__mmask8>(high_mask), ad, bd));
            if constexpr (H == 1) {
                o = from(_mm512_shuffle_pd(ad, bd, 0x55)); // a1 b0 a3 b2 ...
            } else if constexpr (H == 2) {
                o = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(2, 3, 8, 9, 6, 7, 12, 13), bd));
            } else {
                o = from(_mm512_shuffle_f64x2(ad, bd, 0x4E)); // a4-7 b0-3
            }
        } else {
            const __m512 af = std::bit_cast<__m512>(a.data);
            const __m512 bf = std::bit_cast<__m512>(b.data);
            e = from(_mm512_mask_blend_ps(static_cast<__mmask16>(high_mask), af, bf));
            if constexpr (H == 8) {
                o = from(_mm512_shuffle_f32x4(af, bf, 0x4E)); // a8-15 b0-7
            } else {
                o = from(_mm512_permutex2var_ps(af, index(), bf));
            }
        }
    }
    /// Lane l of o takes a_{l^H} where bit H of l is clear, b_{l^H} (index 16 + (l^H)) where set.
    static __m512i index()
    {
        alignas(64) std::int32_t idx[16];
        for (int l = 0; l < 16; ++l) {
            const int partner = l ^ static_cast<int>(H);
            idx[l] = (l & static_cast<int>(H)) != 0 ? 16 + partner : partner;
        }
        return _mm512_load_si512(idx);
    }
    static batch from(__m512d x) { return std::bit_cast<typename batch::register_type>(x); }
    static batch from(__m512 x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx512f: lane swaps by immediate shuffles (in-lane below 128 bits, across 128-bit
/// blocks above 256).
template <class T, std::size_t H>
    requires(sizeof(T) == 8 || sizeof(T) == 4)
struct lane_swap<T, xsimd::avx512f, H> {
    using batch = xsimd::batch<T, xsimd::avx512f>;
    static constexpr std::size_t bytes = H * sizeof(T); // the distance moved
    static batch apply(const batch& v)
    {
        const __m512d d = std::bit_cast<__m512d>(v.data);
        const __m512 f = std::bit_cast<__m512>(v.data);
        if constexpr (bytes == 4) {
            return from(_mm512_permute_ps(f, 0xB1));
        } else if constexpr (bytes == 8) {
            return from(_mm512_permute_pd(d, 0x55));
        } else if constexpr (bytes == 16) {
            return from(_mm512_permutex_pd(d, 0x4E));
        } else {
            return from(_mm512_shuffle_f64x2(d, d, 0x4E));
        }
    }
    static batch from(__m512d x) { return std::bit_cast<typename batch::register_type>(x); }
    static batch from(__m512 x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx512f: the even and odd lanes of two registers, one two-source permute each.
template <class T>
    requires(sizeof(T) == 8)
struct deinterleave<T, xsimd::avx512f> {
    using batch = xsimd::batch<T, xsimd::avx512f>;
    static void apply(const batch& a, const batch& b, batch& e, batch& o)
    {
        const __m512d ad = std::bit_cast<__m512d>(a.data);
        const __m512d bd = std::bit_cast<__m512d>(b.data);
        e = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), bd));
        o = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), bd));
    }
    static batch from(__m512d x) { return std::bit_cast<typename batch::register_type>(x); }
};

template <class T>
    requires(sizeof(T) == 4)
struct deinterleave<T, xsimd::avx512f> {
    using batch = xsimd::batch<T, xsimd::avx512f>;
    static void apply(const batch& a, const batch& b, batch& e, batch& o)
    {
        const __m512 af = std::bit_cast<__m512>(a.data);
        const __m512 bf = std::bit_cast<__m512>(b.data);
        e = from(_mm512_permutex2var_ps(
            af, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), bf));
        o = from(_mm512_permutex2var_ps(
            af, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), bf));
    }
    static batch from(__m512 x) { return std::bit_cast<typename batch::register_type>(x); }
};

/// avx512f: the first `count` values of a partial register in one masked load (zeros in the
/// other lanes, ordinary values never combined into a result; nothing is read past p + count).
template <class T, class Arch>
    requires(std::is_same_v<Arch, xsimd::avx512f> && (sizeof(T) == 8 || sizeof(T) == 4))
xsimd::batch<T, Arch> partial_load(const T* p, unsigned count)
{
    using register_type = typename xsimd::batch<T, Arch>::register_type;
    if constexpr (sizeof(T) == 8) {
        const auto mask = static_cast<__mmask8>((1u << count) - 1u);
        return std::bit_cast<register_type>(_mm512_maskz_loadu_epi64(mask, p));
    } else {
        const auto mask = static_cast<__mmask16>((1u << count) - 1u);
        return std::bit_cast<register_type>(_mm512_maskz_loadu_epi32(mask, p));
    }
}

/// The main loop's register load on avx512f: two 256-bit loads joined. Most input is not
/// 64-byte aligned (malloc returns 16-byte alignment), and then every 512-bit load
/// straddles two cache lines, which costs ~20 % when streaming from memory on this machine
/// (doc/performance.md). The lanes, and so the bits, are those of one unaligned load.
template <class T, class Arch>
    requires std::is_same_v<Arch, xsimd::avx512f>
xsimd::batch<T, Arch> stream_load(const T* p)
{
    const __m512i joined =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p) + 1), 1);
    return std::bit_cast<typename xsimd::batch<T, Arch>::register_type>(joined);
}
#endif

} // namespace treefold::kernel::detail
