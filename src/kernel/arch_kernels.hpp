#pragma once
// Private to src/kernel: the precompiled kernels of every architecture, typed as
// dispatch.hpp hands them out. Defined, and instantiated for every pair of
// treefold/kernel/ops.hpp, by simd_<arch>.cpp (with that arch's flags); dispatch.cpp
// (without) only takes their addresses.

#include "treefold/kernel/ops.hpp"

#include <cstddef>
#include <cstdint>

namespace treefold::kernel::detail {

/// The functor of each built-in kind.
template <ops::builtin_kind Kind>
struct op_of;
#define TREEFOLD_KERNEL_OP_OF(A, OP)      \
    template <>                           \
    struct op_of<ops::builtin_kind::OP> { \
        using type = ops::OP;             \
    };
TREEFOLD_KERNEL_OPS(TREEFOLD_KERNEL_OP_OF, )
#undef TREEFOLD_KERNEL_OP_OF

/// simd<Arch>::reduce_node for the built-in (T, Kind): a builtin_fn<T, Kind>.
template <class Arch, class T, ops::builtin_kind Kind>
T node_kernel(const T* first, std::uint64_t len);

/// rows<Arch>::reduce for the built-in (T, Kind): a row_fn<T>.
template <class Arch, class T, ops::builtin_kind Kind>
void row_kernel(const T* first, std::uint64_t len, std::size_t k, T* out, T* scratch);

/// simd<Arch>::reduce_products under ops::plus: a products_fn<T>.
template <class Arch, class T>
T products_kernel(const T* x, const T* y, std::uint64_t len);

} // namespace treefold::kernel::detail
