// treefold_context_create_info's options (options.hpp).
#include "options.hpp"

#include "treefold/exchange/automatic.hpp"

#include <algorithm>
#include <charconv>
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

} // namespace

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
                bad(MPI_ERR_INFO_VALUE, "treefold: option threads=" + value + " is not a positive integer");
            } else {
                options.threads = threads;
            }
        } else {
            bad(MPI_ERR_INFO_KEY, "treefold: unknown option '" + name + "' (exchange, threads)");
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
