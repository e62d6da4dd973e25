#pragma once
/// The plan of an exchange that is a generator of schedules (direct, the trees, the allreduce
/// schedules, yours): the one executor running the schedule the exchange makes.

#include "treefold/config.hpp"
#include "treefold/exchange/executor.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/schedule.hpp"

#include <boost/mpi/communicator.hpp>

namespace treefold::exchange {

/// The plan of an exchange that is a generator of schedules: the executor of this rank's
/// `Exchange::schedule(layout, rank)` (or `schedule(layout, rank, sizeof(T))` for one that
/// plans by message size and says so: `static constexpr bool plans_by_value_bytes = true`),
/// made from the layout alone. An exchange names it as its plan:
/// `template <class T> using plan = generated_plan<my_exchange, T>;`.
template <class Exchange, class T>
class generated_plan : public executor<T> {
public:
    /// Plans from the layout alone (no communication); the messages go on `comm`.
    generated_plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        : executor<T>(comm, schedule_of(layout, comm.rank()))
    {
    }

private:
    static plan::rank_schedule schedule_of(const layout::block_layout& layout, int rank)
    {
        if constexpr (requires { requires Exchange::plans_by_value_bytes; }) {
            return Exchange::schedule(layout, rank, sizeof(T));
        } else {
            return Exchange::schedule(layout, rank);
        }
    }
};

} // namespace treefold::exchange
