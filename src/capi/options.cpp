// treefold_context_create_info's options (options.hpp).
#include "options.hpp"

#include "treefold/treefold.h"

#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/simd.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
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

/// The option's name of each kernel_choice, indexed by it.
constexpr const char* kernel_names[] = {"best", "scalar", "sse2", "avx2", "avx512f"};
static_assert(std::size(kernel_names) == static_cast<std::size_t>(kernel_choice::avx512f) + 1);

/// The kernel named `value`, or nullopt.
std::optional<kernel_choice> kernel_of(const std::string& value)
{
    const auto at = std::find(std::begin(kernel_names), std::end(kernel_names), value);
    if (at == std::end(kernel_names)) {
        return std::nullopt;
    }
    return static_cast<kernel_choice>(at - std::begin(kernel_names));
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
    const auto i = static_cast<std::size_t>(k);
    return i < std::size(kernel_names) ? kernel_names[i] : "best";
}

context_options read_options(MPI_Info info, local_check& check)
{
    context_options options;
    if (info == MPI_INFO_NULL) {
        return options;
    }
    int keys = 0;
    if (MPI_Info_get_nkeys(info, &keys) != MPI_SUCCESS) {
        check.bad(MPI_ERR_INFO, "treefold: the MPI_Info cannot be read");
        return options;
    }
    for (int k = 0; k < keys; ++k) {
        std::vector<char> key(MPI_MAX_INFO_KEY + 1, '\0');
        int length = 0;
        int found = 0;
        if (MPI_Info_get_nthkey(info, k, key.data()) != MPI_SUCCESS ||
            MPI_Info_get_valuelen(info, key.data(), &length, &found) != MPI_SUCCESS || found == 0) {
            check.bad(MPI_ERR_INFO, "treefold: the MPI_Info cannot be read");
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
                check.bad(MPI_ERR_INFO_VALUE, "treefold: option exchange=" + value +
                                                  " names no exchange a C context can run (" + exchange_names() + ")");
            }
        } else if (name == "threads") {
            std::size_t threads = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), threads);
            if (ec != std::errc{} || end != value.data() + value.size() || threads == 0) {
                check.bad(MPI_ERR_INFO_VALUE, "treefold: option threads=" + value + " is not a positive integer" +
                                                  (ec == std::errc::result_out_of_range ? " of a usable size" : ""));
            } else if (threads > TREEFOLD_MAX_THREADS) {
                check.bad(MPI_ERR_INFO_VALUE, "treefold: option threads=" + value + " exceeds TREEFOLD_MAX_THREADS (" +
                                                  std::to_string(TREEFOLD_MAX_THREADS) + ")");
            } else {
                options.threads = threads;
            }
        } else if (name == "kernel") {
            const std::optional<kernel_choice> k = kernel_of(value);
            if (!k) {
                check.bad(MPI_ERR_INFO_VALUE,
                          "treefold: option kernel=" + value + " names no kernel (best, scalar, sse2, avx2, avx512f)");
            } else if (const std::string why = unusable(*k, check); !why.empty()) {
                check.bad(MPI_ERR_INFO_VALUE, why);
            } else {
                options.kernel = *k;
            }
        } else {
            check.bad(MPI_ERR_INFO_KEY, "treefold: unknown option '" + name + "' (exchange, threads, kernel)");
        }
    }
    if (options.threads > 1 && check.op == operation::user) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Query_thread(&provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            check.bad(MPI_ERR_ARG, "treefold: threads > 1 with a user-created MPI_Op needs MPI_THREAD_MULTIPLE "
                                   "(MPI_Reduce_local then runs on several threads)");
        }
    }
    return options;
}

} // namespace treefold::capi::detail
