// treefold_context_create_info's options (options.hpp).
#include "options.hpp"

#include "treefold/treefold.h"

#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/simd.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

namespace treefold::capi::detail {

namespace {

/// The exchanges a C context may name: automatic and the ones it chooses from.
std::string exchange_names()
{
    std::string all = "automatic";
    for (std::string_view name : exchange::automatic_candidates::names) {
        all += ", ";
        all += name;
    }
    return all;
}

constexpr kernel_choice kernels[] = {kernel_choice::best, kernel_choice::scalar, kernel_choice::sse2,
                                     kernel_choice::avx2, kernel_choice::avx512f};

/// The kernel named `value`, or nullopt.
std::optional<kernel_choice> kernel_of(const std::string& value)
{
    for (kernel_choice k : kernels) {
        if (value == kernel_name(k)) {
            return k;
        }
    }
    return std::nullopt;
}

/// Why this rank cannot run architecture kernel `k` for `check`'s type and operation ("" if it can).
std::string unusable(kernel_choice k, const local_check& check)
{
    const std::string name = kernel_name(k);
    if (k == kernel_choice::best || k == kernel_choice::scalar) {
        return {};
    }
    if (check.type == element::c64 || check.op == operation::user) {
        return "treefold: option kernel=" + name + ": the SIMD kernels run MPI_SUM, MPI_PROD, MPI_MIN and MPI_MAX "
               "on real and integer types only (best or scalar here)";
    }
    if (!kernel::simd_supported(name.c_str())) {
        return "treefold: option kernel=" + name + ": this CPU (rank's) does not support " + name;
    }
    return {};
}

} // namespace

const char* kernel_name(kernel_choice k)
{
    switch (k) {
    case kernel_choice::best:
        return "best";
    case kernel_choice::scalar:
        return "scalar";
    case kernel_choice::sse2:
        return "sse2";
    case kernel_choice::avx2:
        return "avx2";
    case kernel_choice::avx512f:
        return "avx512f";
    }
    return "best";
}

context_options read_options(MPI_Info info, local_check& check)
{
    context_options options;
    if (info == MPI_INFO_NULL) {
        return options;
    }
    auto bad = [&check](int cls, std::string why) {
        if (check.error_class == MPI_SUCCESS) {
            check.error_class = cls;
            check.message = std::move(why);
        }
    };
    int keys = 0;
    if (MPI_Info_get_nkeys(info, &keys) != MPI_SUCCESS) {
        bad(MPI_ERR_INFO, "treefold: the MPI_Info cannot be read");
        return options;
    }
    for (int k = 0; k < keys; ++k) {
        std::vector<char> key(MPI_MAX_INFO_KEY + 1, '\0');
        int length = 0;
        int found = 0;
        if (MPI_Info_get_nthkey(info, k, key.data()) != MPI_SUCCESS ||
            MPI_Info_get_valuelen(info, key.data(), &length, &found) != MPI_SUCCESS || found == 0) {
            bad(MPI_ERR_INFO, "treefold: the MPI_Info cannot be read");
            return options;
        }
        std::vector<char> text(static_cast<std::size_t>(length) + 1, '\0');
        MPI_Info_get(info, key.data(), length, text.data(), &found);
        const std::string name(key.data());
        const std::string value(text.data());
        if (name == "exchange") {
            constexpr auto& names = exchange::automatic_candidates::names;
            if (value == "automatic") {
                options.exchange.clear();
            } else if (std::find(names.begin(), names.end(), value) != names.end()) {
                options.exchange = value;
            } else {
                bad(MPI_ERR_INFO_VALUE, "treefold: option exchange=" + value + " names no exchange a C context can run (" +
                                            exchange_names() + ")");
            }
        } else if (name == "threads") {
            std::size_t threads = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), threads);
            if (ec != std::errc{} || end != value.data() + value.size() || threads == 0) {
                bad(MPI_ERR_INFO_VALUE, "treefold: option threads=" + value + " is not a positive integer" +
                                            (ec == std::errc::result_out_of_range ? " of a usable size" : ""));
            } else if (threads > TREEFOLD_MAX_THREADS) {
                bad(MPI_ERR_INFO_VALUE, "treefold: option threads=" + value + " exceeds TREEFOLD_MAX_THREADS (" +
                                            std::to_string(TREEFOLD_MAX_THREADS) + ")");
            } else {
                options.threads = threads;
            }
        } else if (name == "kernel") {
            const std::optional<kernel_choice> k = kernel_of(value);
            if (!k) {
                bad(MPI_ERR_INFO_VALUE,
                    "treefold: option kernel=" + value + " names no kernel (best, scalar, sse2, avx2, avx512f)");
            } else if (const std::string why = unusable(*k, check); !why.empty()) {
                bad(MPI_ERR_INFO_VALUE, why);
            } else {
                options.kernel = *k;
            }
        } else {
            bad(MPI_ERR_INFO_KEY, "treefold: unknown option '" + name + "' (exchange, threads, kernel)");
        }
    }
    if (options.threads > 1 && check.op == operation::user) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Query_thread(&provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            bad(MPI_ERR_ARG, "treefold: threads > 1 with a user-created MPI_Op needs MPI_THREAD_MULTIPLE "
                             "(MPI_Reduce_local then runs on several threads)");
        }
    }
    return options;
}

} // namespace treefold::capi::detail
