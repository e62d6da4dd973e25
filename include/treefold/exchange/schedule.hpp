#pragma once
/// The schedule exchange: the reproducible reducer's frontiers combined by an allreduce
/// schedule, leaving the root on every rank (no broadcast).
///
/// The schedule is plan::allreduce's (plan/generators.hpp): positions are the ranks in index
/// order, so a contiguous range of positions is a contiguous index range and its partial
/// value is that range's frontier; its nodes are known from the layout, so only values go on
/// the wire. Frontier merges are exact, so the root has the tree's bits on every rank.

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/generated_plan.hpp"
#include "treefold/exchange/list.hpp"
#include "treefold/index_tree/node.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/topology/schedule.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace treefold::exchange {

/// Schedule generators usable as the `Generator` of exchange::scheduled: a type with
/// `static topology::schedule make(int p)`. Write your own to run any fixed schedule. The
/// generators planned by the cost model (heuristic, best, best_sized) are in the model
/// component (treefold/model/schedules.hpp).
namespace schedules {
/// Recursive doubling (collapse/expand when p is not a power of two).
struct recursive_doubling {
    /// The generator's name (the exchange is "schedule_rd").
    static constexpr const char* name = "rd";
    /// topology::recursive_doubling(p).
    static topology::schedule make(int p) { return topology::recursive_doubling(p); }
};

} // namespace schedules

/// Exchange policy: frontiers merged along the schedule Generator::make(p) (see file comment).
template <schedule_generator Generator = schedules::recursive_doubling>
struct scheduled {
private:
    static constexpr auto name_storage = detail::concat_name({"schedule_", Generator::name});

public:
    /// The exchange's one name: "schedule_" and the generator's name ("schedule_rd", ...).
    static constexpr const char* name = name_storage.data();

    /// The bytes a frontier message is planned with: `value_bytes` per node of a prefix
    /// range's frontier (root_level(n) + 1 nodes; any range has at most twice as many).
    static std::uint64_t message_bytes(std::uint64_t n, std::uint64_t value_bytes)
    {
        return value_bytes * (std::uint64_t{index_tree::root_level(n)} + 1);
    }

    /// Its plan passes the value size to schedule() (generated_plan): a sized generator's
    /// schedule depends on it.
    static constexpr bool plans_by_value_bytes = true;

    /// This rank's schedule (plan::allreduce over Generator's schedule for p; a sized
    /// generator plans for frontier messages of `value_bytes` per value): no communication.
    static treefold::plan::rank_schedule schedule(const layout::block_layout& layout, int rank,
                                                  std::uint64_t value_bytes = 8)
    {
        return treefold::plan::allreduce(layout, rank, made(layout.ranks(), message_bytes(layout.size(), value_bytes)),
                                         name);
    }

private:
    /// Generator's schedule for p ranks and `bytes` per message, made once per process (a
    /// model's search can take milliseconds, and every rank of a one-process check asks).
    static const topology::schedule& made(int p, std::uint64_t bytes)
    {
        static std::mutex lock;
        static std::map<std::pair<int, std::uint64_t>, topology::schedule> cache;
        if constexpr (!sized_schedule_generator<Generator>) {
            bytes = 0;
        }
        const std::lock_guard<std::mutex> hold(lock);
        auto [at, fresh] = cache.try_emplace({p, bytes});
        if (fresh) {
            try {
                if constexpr (sized_schedule_generator<Generator>) {
                    at->second = Generator::make(p, bytes);
                } else {
                    at->second = Generator::make(p);
                }
            } catch (...) {
                cache.erase(at); // (a generator that refuses this p refuses it again next time)
                throw;
            }
        }
        return at->second;
    }

public:
    /// The executor running this rank's schedule (see exchange/executor.hpp), planned with
    /// frontier messages of sizeof(T) per value; every rank ends with the root, so the
    /// reducer skips its broadcast.
    template <class T>
    using plan = generated_plan<scheduled, T>;
};

} // namespace treefold::exchange
