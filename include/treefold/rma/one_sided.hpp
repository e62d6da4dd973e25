#pragma once
/// The one-sided exchange: the direct exchange's outbound subtree roots travel through each
/// owner's one-sided many-to-one queue (rma::mpsc_queue) instead of point-to-point messages,
/// so a rank needs one receive queue of constant size whatever p is.
///
/// Each message carries one node value; its key is (call number << 8 | level), so pieces are
/// found by key whatever order they arrive in, and pieces of a later call that arrive early
/// (a rank may start its next call while another still finishes this one) wait in a pending
/// list. The same routes as the direct exchange (routes.hpp) fix which pieces a rank expects
/// from whom.
/// Construction and destruction are collective (the queue's MPI window).

#include "treefold/config.hpp"
#include "treefold/detail/exchange/outcome.hpp"
#include "treefold/detail/exchange/routed_run.hpp"
#include "treefold/detail/layout/routes.hpp"
#include "treefold/detail/net/tags.hpp"
#include "treefold/detail/net/transport.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/rma/mpsc_queue.hpp"
#include "treefold/index_tree/node.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstring>
#include <exception>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

namespace treefold::exchange {

/// Exchange policy: outbound subtree roots through one-sided queues (see file comment).
/// Only for trivially copyable T (the queue carries raw bytes).
struct one_sided {
    /// The exchange's name.
    static constexpr const char* name = "one_sided";
    /// Slots in each half of a rank's queue (a call sends each rank at most 64 pieces).
    static constexpr std::size_t queue_slots = 256;

    /// This rank's messages as a schedule: the direct exchange's routes with one queue message
    /// per outbound root (the counts, the model and the simulator read it; the plan below
    /// runs the routes through the queue).
    static treefold::plan::rank_schedule schedule(const layout::block_layout& layout, int rank)
    {
        treefold::plan::rank_schedule s = treefold::plan::direct(layout, rank, {1, 0});
        s.exchange = name;
        s.header_bytes = rma::mpsc_queue::header_bytes; // the queue's header on every message
        return s;
    }

    /// The routes of this rank's subtree roots and its queue; run() and finisher() come from
    /// routed_run (the contract of direct::plan::run).
    template <class T>
    class plan : public routed_run<plan<T>, T> {
        static_assert(std::is_trivially_copyable_v<T>, "treefold: the one_sided exchange needs a trivially copyable T");

    public:
        /// Plans the routes from the layout and creates the queue's MPI window: collective
        /// over `comm` (so is the plan's destruction).
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : routed_run<plan, T>(layout, comm.rank()), queue_(comm, queue_slots, slot_bytes())
        {
        }

        /// The queue (for its counters and memory figure).
        const rma::mpsc_queue& queue() const { return queue_; }

    private:
        static constexpr unsigned failure_level = net::tag::queue_failure_level;

        /// One node value per slot; a failure record (rare) spans several slots.
        static std::size_t slot_bytes() { return (rma::mpsc_queue::header_bytes + sizeof(T) + 7) / 8 * 8; }

        struct piece {
            std::uint64_t call;
            unsigned level;
            int source;
            std::vector<std::byte> bytes;
        };

        friend routed_run<plan, T>; // the port it runs through: every piece leaves at once

        void begin(net::counters& count)
        {
            ++call_;
            std::erase_if(pending_, [&](const piece& p) { return p.call < call_; }); // stale: a failed call's leftovers
            count_ = &count;
        }

        void before_node(index_tree::index_t /*len*/) {}
        void flush() {}
        std::size_t drop_unsent() { return 0; }
        void send(const layout::routed_node& to, const T& value) { put(to.rank, to.v.level, &value, sizeof value); }

        void send_failure(int target, const failure& f)
        {
            const std::vector<char> record = encode(f);
            put(target, failure_level, record.data(), record.size());
        }

        void report(int target, const std::optional<failure>& failed)
        {
            if (failed) {
                send_failure(target, *failed);
            } else {
                put(target, net::tag::queue_report_level, nullptr, 0);
            }
        }

        std::optional<failure> take_report(int source)
        {
            std::optional<failure> remote;
            (void)take(layout::routed_node{{0, net::tag::queue_report_level}, source}, remote);
            return remote;
        }

        void put(int target, unsigned level, const void* data, std::size_t bytes)
        {
            const auto* p = static_cast<const std::byte*>(data);
            queue_.push(target, call_ << 8 | level, std::span<const std::byte>(p, bytes), [this] { service(); });
            ++count_->messages;
            count_->bytes += bytes + rma::mpsc_queue::header_bytes;
        }

        /// Moves everything that has arrived into the pending list.
        void service()
        {
            for (auto& m : queue_.drain()) {
                pending_.push_back({m.key >> 8, static_cast<unsigned>(m.key & 0xff), m.source, std::move(m.payload)});
            }
        }

        /// The piece `want` of this call, or a failure record from its source.
        T take(const layout::routed_node& want, std::optional<failure>& remote)
        {
            for (;;) {
                for (std::size_t i = 0; i < pending_.size(); ++i) {
                    const piece& p = pending_[i];
                    if (p.call != call_ || p.source != want.rank ||
                        (p.level != want.v.level && p.level != failure_level)) {
                        continue;
                    }
                    T value{};
                    if (p.level == failure_level) {
                        remote = decode_failure(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
                    } else if (p.level != net::tag::queue_report_level) {
                        std::memcpy(&value, p.bytes.data(), sizeof value);
                    }
                    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
                    return value;
                }
                service();
                std::this_thread::yield();
            }
        }

        rma::mpsc_queue queue_;
        std::uint64_t call_ = 0;
        std::vector<piece> pending_;
        net::counters* count_ = nullptr;
    };
};

} // namespace treefold::exchange
