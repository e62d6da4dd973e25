// Runtime dispatch of the precompiled kernels: built without architecture flags, it asks
// the CPU once which architectures it (and the OS) supports and hands out the best
// architecture's function pointers. TREEFOLD_KERNEL_ARCH=sse2|avx2|avx512f in the
// environment caps the choice (to exercise the fallbacks on an AVX-512 machine).
#include "arch_kernels.hpp"
#include "treefold/kernel/dispatch.hpp"

#include <cstdlib>
#include <cstring>

namespace treefold::kernel {

namespace {

struct cpu_features {
    bool sse2 = false;
    bool avx2 = false;
    bool avx512f = false;
};

cpu_features detect() noexcept
{
    cpu_features f;
#if defined(__x86_64__) || defined(__i386__)
    // __builtin_cpu_supports also checks that the OS saves the wider registers (XCR0).
    __builtin_cpu_init();
    f.sse2 = __builtin_cpu_supports("sse2") != 0;
    f.avx2 = __builtin_cpu_supports("avx2") != 0;
    // The avx512f TU also uses AVX512DQ (see sources.cmake).
    f.avx512f = __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512dq") != 0;
#endif
    return f;
}

const cpu_features& features() noexcept
{
    static const cpu_features f = detect();
    return f;
}

const dispatch_detail::arch_table& chosen() noexcept
{
    static const dispatch_detail::arch_table& table = [&]() -> const dispatch_detail::arch_table& {
        const char* cap = std::getenv("TREEFOLD_KERNEL_ARCH");
        const bool allow512 = cap == nullptr || std::strcmp(cap, "avx512f") == 0;
        const bool allow2 = allow512 || std::strcmp(cap, "avx2") == 0;
        if (allow512 && features().avx512f) {
            return dispatch_detail::avx512f_table();
        }
        if (allow2 && features().avx2) {
            return dispatch_detail::avx2_table();
        }
        return dispatch_detail::sse2_table();
    }();
    return table;
}

template <class T>
constexpr dispatch_detail::type_code code_of()
{
    using dispatch_detail::type_code;
    if constexpr (std::is_same_v<T, double>) {
        return type_code::f64;
    } else if constexpr (std::is_same_v<T, float>) {
        return type_code::f32;
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
        return type_code::i32;
    } else {
        return type_code::i64;
    }
}

constexpr unsigned kind_index(ops::builtin_kind k) { return static_cast<unsigned>(k) - 1; }

} // namespace

bool simd_supported(const char* arch) noexcept
{
    if (arch == nullptr) {
        return false;
    }
    if (std::strcmp(arch, "sse2") == 0) {
        return features().sse2;
    }
    if (std::strcmp(arch, "avx2") == 0) {
        return features().avx2;
    }
    if (std::strcmp(arch, "avx512f") == 0) {
        return features().avx512f;
    }
    return false;
}

const char* best_arch_name() noexcept { return chosen().name; }

namespace dispatch_detail {

template <class T, ops::builtin_kind Kind>
builtin_fn<T, Kind> builtin_kernel() noexcept
{
    const auto t = static_cast<unsigned>(code_of<T>());
    return reinterpret_cast<builtin_fn<T, Kind>>(chosen().node[t][kind_index(Kind)]);
}

template <class T, ops::builtin_kind Kind>
row_fn<T> builtin_row_kernel() noexcept
{
    const auto t = static_cast<unsigned>(code_of<T>());
    return reinterpret_cast<row_fn<T>>(chosen().rows[t][kind_index(Kind)]);
}

#define TREEFOLD_DISPATCH_ONE(T, KIND)                                          \
    template builtin_fn<T, ops::builtin_kind::KIND> builtin_kernel<T, ops::builtin_kind::KIND>() noexcept; \
    template row_fn<T> builtin_row_kernel<T, ops::builtin_kind::KIND>() noexcept;
#define TREEFOLD_DISPATCH_TYPE(T)          \
    TREEFOLD_DISPATCH_ONE(T, plus)         \
    TREEFOLD_DISPATCH_ONE(T, multiplies)   \
    TREEFOLD_DISPATCH_ONE(T, min)          \
    TREEFOLD_DISPATCH_ONE(T, max)
TREEFOLD_DISPATCH_TYPE(double)
TREEFOLD_DISPATCH_TYPE(float)
TREEFOLD_DISPATCH_TYPE(std::int32_t)
TREEFOLD_DISPATCH_TYPE(std::int64_t)
#undef TREEFOLD_DISPATCH_TYPE
#undef TREEFOLD_DISPATCH_ONE

} // namespace dispatch_detail
} // namespace treefold::kernel
