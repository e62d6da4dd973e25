#pragma once
/// The architecture whose precompiled kernels this process uses (dispatch.cpp chooses it
/// once), for the dispatch files of every kernel family. Its own header, not arch_kernels.hpp,
/// so that the per-architecture translation units do not depend on it.

namespace treefold::kernel::detail {

/// The architecture kernel::best uses for built-in operators.
enum class arch_id { sse2, avx2, avx512f };

/// The best architecture the CPU and OS support, capped by TREEFOLD_KERNEL_ARCH; chosen on
/// the first call, the same for the rest of the process.
arch_id chosen() noexcept;

/// The one of the three that belongs to the chosen architecture.
template <class V>
V pick(V sse2, V avx2, V avx512f) noexcept
{
    const arch_id id = chosen();
    return id == arch_id::avx512f ? avx512f : id == arch_id::avx2 ? avx2 : sse2;
}

} // namespace treefold::kernel::detail
