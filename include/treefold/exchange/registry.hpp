#pragma once
/// The exchange registry: every exchange of the core, once, under its one name (the type's
/// `name`). visit_by_name, exchange_used(), the CLI, the benchmarks, the tests and the docs take
/// their lists and names from here; treefold/all_exchanges.hpp joins the components'
/// exchanges to it (the model's modelled schedules, the rma component's one-sided exchange).

#include "treefold/config.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/list.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/plan/schedule.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace treefold::exchange {

/// The core's exchanges. Names: "direct"; the tree shapes "binomial", "fibonacci", "binary",
/// "inorder", "truncated_fibonacci", "truncated_binary", "mary4", "mary8"; the dual trees
/// "dual4", "dual8" (4- and 8-ary trees whose result leaves by MPI_Bcast); "schedule_rd"
/// (recursive doubling); "native" (the MPI library's reduction with a treefold MPI_Op);
/// "automatic".
using core_exchanges =
    exchange_list<direct, tree<topology::binomial>, tree<topology::fibonacci>, tree<topology::binary>,
                  tree<topology::inorder>, tree<topology::truncated_fibonacci>, tree<topology::truncated_binary>,
                  tree<topology::m_ary<4>>, tree<topology::m_ary<8>>,
                  tree<topology::m_ary<4>, result_broadcast::mpi>, tree<topology::m_ary<8>, result_broadcast::mpi>,
                  scheduled<schedules::recursive_doubling>, native, automatic>;

/// The types of automatic's candidates, in automatic_candidates::names' order.
using automatic_candidate_types = exchange_list<native, tree<>, direct, tree<topology::m_ary<4>, result_broadcast::mpi>,
                                                scheduled<schedules::recursive_doubling>>;
static_assert(automatic_candidate_types::names == automatic_candidates::names,
              "treefold: automatic's candidate names must be the registry's names of its candidate types");

/// Calls `f(std::type_identity<E>{})` for the exchange E of `List` (the core's by default;
/// treefold::all_exchanges with the components) called `name`, and returns what it returns.
/// Throws std::invalid_argument naming the list's names for any other name.
template <class List = core_exchanges, class F>
auto visit_by_name(std::string_view name, F&& f)
{
    return visit_in<List>(name, f);
}

/// `E::schedule` (as a function pointer) of the exchange E of `List` called `name` that runs a
/// schedule (plan::scheduled_exchange). For any other name, throws std::invalid_argument with
/// the text `unknown(names)`, `names` listing those that run one (comma-separated, in list order).
template <class List, class Unknown>
auto schedule_by_name(std::string_view name, Unknown&& unknown)
{
    plan::rank_schedule (*out)(const layout::block_layout&, int) = nullptr;
    std::string names;
    for_each_exchange<List>([&]<class E>(std::type_identity<E>) {
        if constexpr (plan::scheduled_exchange<E>) {
            names += (names.empty() ? "" : ", ") + std::string(E::name);
            if (out == nullptr && name == std::string_view(E::name)) {
                out = [](const layout::block_layout& layout, int rank) { return E::schedule(layout, rank); };
            }
        }
    });
    if (out == nullptr) {
        throw std::invalid_argument(unknown(names));
    }
    return out;
}

} // namespace treefold::exchange
