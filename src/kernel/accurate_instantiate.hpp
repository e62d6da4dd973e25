#pragma once
// Included once by each src/kernel/accurate_<arch>.cpp after defining TREEFOLD_ARCH: the
// accurate sum's block fold for that architecture (kernel/accurate_impl.hpp), templated on
// it like everything in arch_instantiate.hpp.

#if defined(__GNUC__) && !defined(__clang__)
// As in arch_instantiate.hpp: GCC 12 warns inside its own avx512fintrin.h once inlined.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "treefold/kernel/detail/accurate_impl.hpp"

namespace treefold::kernel::detail {
template accurate_block_kernel accurate_blocks<xsimd::TREEFOLD_ARCH>() noexcept;
} // namespace treefold::kernel::detail
