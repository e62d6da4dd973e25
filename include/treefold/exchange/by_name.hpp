#pragma once
/// Choosing an exchange by name at run time (command lines, benchmark drivers): every exchange
/// the library ships, under one spelling, so programs do not each keep their own list.

#include "treefold/config.hpp"
#include "treefold/topology/tree_shape.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/exchange/one_sided.hpp"
#include "treefold/exchange/modelled_schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace treefold::exchange {

/// The names visit_by_name accepts ("tree" is also accepted, as binomial).
/// "mary4" and "mary8" are the m_ary<4> and m_ary<8> trees (their type names are "4-ary" and
/// "8-ary").
/// "dual4" and "dual8" are those trees with the result sent out through MPI_Bcast.
/// "truncated_fibonacci" and "truncated_binary" are the reduction-trees document's shapes.
/// "schedule_best_sized" plans with the size-aware model at the frontier's message size.
inline constexpr std::array<std::string_view, 17> exchange_names{
    "direct", "binomial", "fibonacci", "binary", "truncated_fibonacci", "truncated_binary", "mary4", "mary8",
    "dual4", "dual8", "one_sided", "schedule_rd", "schedule_heuristic", "schedule_best", "schedule_best_sized",
    "native", "automatic"};

/// The names as one comma-separated line, for help texts and error messages.
inline std::string exchange_name_list()
{
    std::string out;
    for (const auto n : exchange_names) {
        out += (out.empty() ? "" : ", ") + std::string(n);
    }
    return out;
}

/// Calls `f(std::type_identity<E>{})` for the exchange E called `name` and returns what it
/// returns (every call must return the same type). Throws std::invalid_argument naming the
/// accepted names for any other name.
template <class F>
decltype(auto) visit_by_name(std::string_view name, F&& f)
{
    if (name == "direct") {
        return f(std::type_identity<direct>{});
    }
    if (name == "binomial" || name == "tree") {
        return f(std::type_identity<tree<topology::binomial>>{});
    }
    if (name == "fibonacci") {
        return f(std::type_identity<tree<topology::fibonacci>>{});
    }
    if (name == "binary") {
        return f(std::type_identity<tree<topology::binary>>{});
    }
    if (name == "truncated_fibonacci") {
        return f(std::type_identity<tree<topology::truncated_fibonacci>>{});
    }
    if (name == "truncated_binary") {
        return f(std::type_identity<tree<topology::truncated_binary>>{});
    }
    if (name == "mary4") {
        return f(std::type_identity<tree<topology::m_ary<4>>>{});
    }
    if (name == "mary8") {
        return f(std::type_identity<tree<topology::m_ary<8>>>{});
    }
    if (name == "dual4") {
        return f(std::type_identity<tree<topology::m_ary<4>, result_broadcast::mpi>>{});
    }
    if (name == "dual8") {
        return f(std::type_identity<tree<topology::m_ary<8>, result_broadcast::mpi>>{});
    }
    if (name == "one_sided") {
        return f(std::type_identity<one_sided>{});
    }
    if (name == "schedule_rd") {
        return f(std::type_identity<scheduled<schedules::recursive_doubling>>{});
    }
    if (name == "schedule_heuristic") {
        return f(std::type_identity<scheduled<schedules::heuristic>>{});
    }
    if (name == "schedule_best") {
        return f(std::type_identity<scheduled<schedules::best>>{});
    }
    if (name == "schedule_best_sized") {
        return f(std::type_identity<scheduled<schedules::best_sized>>{});
    }
    if (name == "native") {
        return f(std::type_identity<native>{});
    }
    if (name == "automatic") {
        return f(std::type_identity<automatic>{});
    }
    throw std::invalid_argument("treefold: unknown exchange '" + std::string(name) + "' (want one of " +
                                exchange_name_list() + ")");
}

} // namespace treefold::exchange
