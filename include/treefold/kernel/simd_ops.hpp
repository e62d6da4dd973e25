#pragma once
/// The SIMD kernel for operators of your own: include this header in a program whose operator
/// kernel::best may call on xsimd batches, that is one opted in by kernel::allow_simd, or a
/// treefold operator on an element type without a precompiled kernel (std::uint32_t,
/// std::uint64_t). kernel::best then computes nodes of at least dispatch::scalar_below
/// values with kernel::simd<Arch> (Arch: xsimd::default_arch, the best architecture this
/// translation unit is compiled for), and shorter ones with the straight-line scalar tree;
/// both give the scalar tree's bits. Without this header such a program does not compile
/// (kernel/dispatch.hpp says which header is missing). Programs on the built-in operators
/// and types do not need it: their kernels are precompiled in libtreefold.a.

#include "treefold/config.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/kernel/detail/simd_impl.hpp"

#include <cstdint>
#include <type_traits>

namespace treefold::kernel::detail {

/// kernel::dispatch's path for SIMD candidates: simd<Arch> where the operator is callable on
/// batches, the scalar kernel where it is not.
template <class Arch>
struct simd_path {
    /// The node over first[0, len); nodes below `ScalarBelow` values take small_node.
    template <std::uint64_t ScalarBelow, class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op)
    {
        if constexpr (batch_callable<std::remove_cv_t<Op>, T, Arch>) {
            if (len < ScalarBelow) {
                return small_node<ScalarBelow - 1>(first, len, op);
            }
            return simd<Arch>::reduce_node(first, len, op);
        } else {
            return scalar::reduce_node(first, len, op);
        }
    }
};

} // namespace treefold::kernel::detail
