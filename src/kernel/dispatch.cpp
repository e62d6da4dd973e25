// Runtime dispatch of the precompiled kernels: built without architecture flags, it asks
// the CPU once which architectures it (and the OS) supports and hands out the best
// architecture's kernels (typed pointers to functions of simd_<arch>.cpp).
// TREEFOLD_KERNEL_ARCH=sse2|avx2|avx512f in the environment caps the choice (to exercise
// the fallbacks on an AVX-512 machine).
#include "arch_choice.hpp"
#include "arch_kernels.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/kernel/detail/simd_impl.hpp"
#include "treefold/kernel/dot.hpp"

#include <cstdlib>
#include <cstring>
#include <utility>

namespace treefold::kernel {

namespace {

struct cpu_features {
    bool sse2 = false;
    bool avx2 = false;
    bool avx512f = false;
};

const cpu_features& features() noexcept
{
    static const cpu_features detected = [] {
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
    }();
    return detected;
}

} // namespace

namespace detail {

arch_id chosen() noexcept
{
    static const arch_id id = [] {
        const char* cap = std::getenv("TREEFOLD_KERNEL_ARCH");
        const bool allow512 = cap == nullptr || std::strcmp(cap, "avx512f") == 0;
        const bool allow2 = allow512 || std::strcmp(cap, "avx2") == 0;
        if (allow512 && features().avx512f) {
            return arch_id::avx512f;
        }
        if (allow2 && features().avx2) {
            return arch_id::avx2;
        }
        return arch_id::sse2;
    }();
    return id;
}

} // namespace detail

using detail::pick;

bool simd_supported(const char* arch) noexcept
{
    const cpu_features& f = features();
    const std::pair<const char*, bool> known[] = {{"sse2", f.sse2}, {"avx2", f.avx2}, {"avx512f", f.avx512f}};
    for (const auto& [name, supported] : known) {
        if (arch != nullptr && std::strcmp(arch, name) == 0) {
            return supported;
        }
    }
    return false;
}

const char* best_arch_name() noexcept
{
    return pick(xsimd::sse2::name(), xsimd::avx2::name(), xsimd::avx512f::name());
}

namespace detail {

template <class T, ops::builtin_kind Kind>
builtin_fn<T, Kind> builtin_kernel() noexcept
{
    return pick(&node_kernel<xsimd::sse2, T, Kind>, &node_kernel<xsimd::avx2, T, Kind>,
                &node_kernel<xsimd::avx512f, T, Kind>);
}

template <class T, ops::builtin_kind Kind>
row_fn<T> builtin_row_kernel() noexcept
{
    return pick(&row_kernel<xsimd::sse2, T, Kind>, &row_kernel<xsimd::avx2, T, Kind>,
                &row_kernel<xsimd::avx512f, T, Kind>);
}

template <class T>
products_fn<T> builtin_products_kernel() noexcept
{
    return pick(&products_kernel<xsimd::sse2, T>, &products_kernel<xsimd::avx2, T>, &products_kernel<xsimd::avx512f, T>);
}
template products_fn<double> builtin_products_kernel<double>() noexcept;
template products_fn<float> builtin_products_kernel<float>() noexcept;

// Compiled here, without architecture flags and optimised whatever the caller's build: the
// straight-line trees are where the time of short nodes goes.
template <class T, ops::builtin_kind Kind>
T builtin_small_node(const T* first, std::uint64_t len)
{
    typename op_of<Kind>::type op;
    return small_node<best::scalar_below - 1>(first, len, op);
}

template <class T, ops::builtin_kind Kind>
builtin_fn<T, Kind> builtin_short_kernel() noexcept
{
    using fn = builtin_fn<T, Kind>;
    if constexpr (operands_swap<typename op_of<Kind>::type, T>) {
        return pick<fn>(&builtin_small_node<T, Kind>, &node_kernel<xsimd::avx2, T, Kind>,
                        &node_kernel<xsimd::avx512f, T, Kind>);
    } else {
        return &builtin_small_node<T, Kind>;
    }
}

#define TREEFOLD_KERNEL_DISPATCH(T, OP)                                                                  \
    template builtin_fn<T, ops::builtin_kind::OP> builtin_kernel<T, ops::builtin_kind::OP>() noexcept; \
    template builtin_fn<T, ops::builtin_kind::OP> builtin_short_kernel<T, ops::builtin_kind::OP>() noexcept; \
    template row_fn<T> builtin_row_kernel<T, ops::builtin_kind::OP>() noexcept;                        \
    template T builtin_small_node<T, ops::builtin_kind::OP>(const T*, std::uint64_t);
TREEFOLD_KERNEL_EACH(TREEFOLD_KERNEL_DISPATCH)
#undef TREEFOLD_KERNEL_DISPATCH

} // namespace detail
} // namespace treefold::kernel
