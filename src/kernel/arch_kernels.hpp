#pragma once
// Private to src/kernel: the table each per-architecture TU exports, and the macro that
// fills it. Included by simd_<arch>.cpp (with that arch's flags) and dispatch.cpp (without).

#include "treefold/kernel/ops.hpp"

#include <cstddef>
#include <cstdint>

namespace treefold::kernel::dispatch_detail {

/// An erased function pointer (cast back to its real type by dispatch.cpp).
using erased_fn = void (*)();

/// Element types and operators in table order.
enum class type_code : unsigned { f64 = 0, f32 = 1, i32 = 2, i64 = 3 };
inline constexpr unsigned type_count = 4;
inline constexpr unsigned kind_count = 4; // plus, multiplies, min, max

/// One architecture's precompiled kernels: node[type][kind] has type
/// T (*)(const T*, std::uint64_t) and rows[type][kind] has type
/// void (*)(const T*, std::uint64_t, std::size_t, T* out, T* scratch).
struct arch_table {
    const char* name;
    erased_fn node[type_count][kind_count];
    erased_fn rows[type_count][kind_count];
};

const arch_table& sse2_table() noexcept;
const arch_table& avx2_table() noexcept;
const arch_table& avx512f_table() noexcept;

} // namespace treefold::kernel::dispatch_detail
