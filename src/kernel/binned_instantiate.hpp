#pragma once
// The binned sum's lane kernels (kernel/binned_impl.hpp) for K = 2 and 3, on the architecture
// each src/kernel/binned_<arch>.cpp names in TREEFOLD_ARCH before including this file.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized" // GCC 12, inside its avx512fintrin.h
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "treefold/kernel/detail/binned_impl.hpp"

template treefold::kernel::detail::binned_lane_kernel treefold::kernel::detail::binned_lanes<xsimd::TREEFOLD_ARCH, 2>() noexcept;
template treefold::kernel::detail::binned_lane_kernel treefold::kernel::detail::binned_lanes<xsimd::TREEFOLD_ARCH, 3>() noexcept;
