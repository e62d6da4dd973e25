#pragma once
/// The schedule exchange: the reproducible reducer's frontiers combined by an allreduce
/// schedule, leaving the root on every rank (no broadcast).
///
/// Positions are the ranks in index order (layout.index_order()), so a contiguous range of
/// positions is a contiguous index range and its partial value is that range's frontier.
/// Each rank turns its block into a frontier with the local kernel; the schedule executor
/// (net/schedule_run.hpp) then merges frontiers of adjacent ranges left to right.
/// The nodes of every frontier that travels are known from the layout, so only values go on
/// the wire. Frontier merges are exact, so the root has the tree's bits on every rank.

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/detail/exchange/outcome.hpp"
#include "treefold/frontier.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/detail/layout/routes.hpp"
#include "treefold/detail/net/agreement.hpp"
#include "treefold/detail/net/schedule_run.hpp"
#include "treefold/exchange/list.hpp"
#include "treefold/topology/schedule.hpp"
#include "treefold/index_tree/decompose.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

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

    /// The schedule for this communicator's size and the layout's frontiers.
    template <class T>
    class plan {
    public:
        /// The result is on every rank after run(): the reducer skips its broadcast.
        static constexpr bool result_everywhere = true;

        /// Plans from the layout and Generator's schedule for p (no communication); the
        /// messages go on `comm`.
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : comm_(comm), n_(layout.size()), s_(layout.block_of(comm.rank()).start),
              starts_(layout::position_starts(layout)), local_nodes_(layout::block_nodes(layout, comm.rank())),
              runner_(comm, make_schedule(comm.size(), layout.size()),
                      std::vector<int>(layout.index_order().begin(), layout.index_order().end()))
        {
        }

        /// Every rank ends with the result; kept for the reducer's interface.
        int finisher() const { return 0; }
        /// The schedule this plan runs.
        const topology::schedule& schedule() const { return runner_.plan(); }

        /// The bytes a frontier message is planned with: sizeof(T) per node of a prefix
        /// range's frontier (root_level(n) + 1 nodes; any range has at most twice as many).
        static std::uint64_t message_bytes(std::uint64_t n)
        {
            return sizeof(T) * (std::uint64_t{index_tree::root_level(n)} + 1);
        }

        /// Runs the exchange; same contract as direct::plan::run, except that every rank's
        /// outcome holds the root (or the failure).
        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, std::optional<failure> failed, net::counters& count,
                       std::exception_ptr& own_error)
        {
            frontier<T>& mine = mine_;
            mine.reset(n_);
            if (!failed) {
                guarded(comm_.rank(), failed, own_error, [&] {
                    for (const auto& v : local_nodes_) {
                        mine.push(v, treefold::detail::local_node<Kernel>(local, v.x - s_, index_tree::cover_size(v, n_), op), op);
                    }
                });
            }
            codec<Op> c{this, &op};
            failed = runner_.run(mine, c, failed, count, own_error, received_);
            if constexpr (may_throw<Op, T>) {
                net::agree_on_failure(comm_, failed, count); // a throw in a rank's last combine reaches no one else
            }
            return finish(failed, mine, n_ > 0);
        }

    private:
        static topology::schedule make_schedule(int p, std::uint64_t n)
        {
            if constexpr (sized_schedule_generator<Generator>) {
                return Generator::make(p, message_bytes(n));
            } else {
                return Generator::make(p);
            }
        }

        /// Frontier values travel; nodes come from the layout.
        template <class Op>
        struct codec {
            using value_type = T;
            using partial = frontier<T>;
            const plan* self;
            Op* op;

            std::span<const index_tree::node> nodes(int lo, int hi) const { return self->nodes_of(lo, hi); }

            std::size_t count(int lo, int hi) const { return nodes(lo, hi).size(); }
            std::span<const T> values(const partial& f) const { return f.values(); }

            void assign(partial& f, std::span<T> values, int lo, int hi)
            {
                const auto ns = nodes(lo, hi);
                f.reset(self->n_);
                for (std::size_t i = 0; i < ns.size(); ++i) {
                    f.push(ns[i], std::move(values[i]), *op); // maximal nodes never combine: no op call
                }
            }

            void combine(partial& left, partial&& right) { left.merge(right, *op); }
        };

        /// The maximal nodes of positions [lo, hi), computed once per range (the schedule
        /// meets the same few ranges on every call).
        std::span<const index_tree::node> nodes_of(int lo, int hi) const
        {
            auto [at, fresh] = ranges_.try_emplace({lo, hi});
            if (fresh) {
                at->second = index_tree::maximal_nodes(starts_[static_cast<std::size_t>(lo)],
                                                           starts_[static_cast<std::size_t>(hi)], n_);
            }
            return at->second;
        }

        boost::mpi::communicator comm_;
        index_tree::index_t n_;
        index_tree::index_t s_ = 0;
        std::vector<index_tree::index_t> starts_; // index start by position, n for empty
        std::vector<index_tree::node> local_nodes_;
        net::schedule_runner runner_;
        // Per-call storage, kept between calls.
        frontier<T> mine_;
        std::vector<frontier<T>> received_;
        mutable std::map<std::pair<int, int>, std::vector<index_tree::node>> ranges_;
    };
};

} // namespace treefold::exchange
