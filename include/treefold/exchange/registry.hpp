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
#include "treefold/topology/tree_shape.hpp"

#include <string_view>

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

} // namespace treefold::exchange
