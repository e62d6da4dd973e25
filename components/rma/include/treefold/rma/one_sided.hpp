#pragma once
/// The one-sided exchange: the direct exchange's schedule (one node value per message) run by
/// the one executor, its messages through each receiver's one-sided many-to-one queue
/// (mpsc_queue) instead of point-to-point messages, so a rank needs one receive queue
/// of constant size whatever p is.
///
/// A message's key is (call number << 9 | failed << 8 | level of its first node), or the
/// report level for an empty rank's report, so messages are found by key whatever order they
/// arrive in, and messages of a later call that arrive early (a rank may start its next call
/// while another still finishes this one) wait in a pending list. A sender never has two
/// messages with one level for one receiver in a call (the direct routes send each subtree
/// root once, to its parent's owner).
/// Construction and destruction are collective (the queue's MPI window).

#include "treefold/config.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/exchange/executor.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/rma/mpsc_queue.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstring>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

namespace treefold::rma {

/// Exchange policy: the direct exchange's messages through one-sided queues (see file
/// comment). Only for trivially copyable T (the queue carries raw bytes).
struct one_sided {
    /// The exchange's name.
    static constexpr const char* name = "one_sided";
    /// Slots in each half of a rank's queue (a call sends each rank at most 64 pieces).
    static constexpr std::size_t queue_slots = 256;

    /// This rank's messages: the direct exchange's routes with one queue message per outbound
    /// root, each carrying the queue's header.
    static treefold::plan::rank_schedule schedule(const layout::block_layout& layout, int rank)
    {
        treefold::plan::rank_schedule s = treefold::plan::direct(layout, rank, {1, 0});
        s.exchange = name;
        s.header_bytes = mpsc_queue::header_bytes; // the queue's header on every message
        return s;
    }

    /// The executor's channel through the queues (exchange::message_channel).
    template <class T>
    class channel {
        static_assert(std::is_trivially_copyable_v<T>, "treefold: the one_sided exchange needs a trivially copyable T");

    public:
        /// Creates the queue's MPI window: collective over `comm`.
        explicit channel(const boost::mpi::communicator& comm) : queue_(comm, queue_slots, slot_bytes()) {}

        /// The queue (for its counters and memory figure).
        const mpsc_queue& queue() const { return queue_; }

        /// Starts a call: this schedule and these counters until the next begin().
        void begin(const treefold::plan::rank_schedule& s, net::counters& count)
        {
            s_ = &s;
            count_ = &count;
            ++call_;
            std::erase_if(pending_, [&](const piece& p) { return p.call < call_; }); // stale: a failed call's leftovers
        }
        /// Starts receive k into `into` early where the channel can (message_channel).
        void post(std::size_t /*k*/, T* /*into*/) {}

        /// Receive k's values into `into`, or the failure its sender sent in their place.
        maybe_failure receive(std::size_t k, T* into)
        {
            const treefold::plan::message& m = s_->receives[k];
            const unsigned level = level_of(m);
            for (;;) {
                for (std::size_t i = 0; i < pending_.size(); ++i) {
                    const piece& p = pending_[i];
                    if (p.call != call_ || p.source != m.peer || p.level != level) {
                        continue;
                    }
                    maybe_failure remote;
                    if (p.failed) {
                        remote = decode_failure(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
                    } else {
                        if (p.bytes.size() != std::size_t{m.count} * sizeof(T)) {
                            net::unexpected_size();
                        }
                        if (!p.bytes.empty()) { // an empty rank's report carries nothing
                            std::memcpy(static_cast<void*>(into), p.bytes.data(), p.bytes.size());
                        }
                    }
                    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
                    return remote;
                }
                service();
                std::this_thread::yield();
            }
        }

        /// Prepares send k from `values` (may throw while encoding; nothing has left then).
        void stage(std::size_t /*k*/, std::span<const T> values) { staged_ = std::as_bytes(values); }
        /// Sends what stage(k) prepared (the executor sends right after staging, while the
        /// values are still where stage() saw them; the push copies them into the window).
        void send(std::size_t k) { put(s_->sends[k], false, staged_.data(), staged_.size()); }
        /// Sends the failure `f` in place of send k.
        void send_failure(std::size_t k, const failure& f)
        {
            const std::vector<char> record = encode(f);
            put(s_->sends[k], true, record.data(), record.size());
        }
        /// Completes the sends made so far.
        void wait_sends() {} // a push returns once the message is in the target's window

    private:
        /// One node value per slot; a failure record (rare) spans several slots.
        static std::size_t slot_bytes() { return (mpsc_queue::header_bytes + sizeof(T) + 7) / 8 * 8; }

        /// The level a message's key carries: its first node's, or the report level.
        unsigned level_of(const treefold::plan::message& m) const
        {
            return m.count == 0 ? net::tag::queue_report_level : s_->nodes[m.first].level;
        }

        void put(const treefold::plan::message& m, bool failed, const void* data, std::size_t bytes)
        {
            const auto* p = static_cast<const std::byte*>(data);
            const std::uint64_t key = call_ << 9 | std::uint64_t{failed} << 8 | level_of(m);
            queue_.push(m.peer, key, std::span<const std::byte>(p, bytes), [this] { service(); });
            ++count_->messages;
            count_->bytes += bytes + mpsc_queue::header_bytes;
        }

        /// Moves everything that has arrived into the pending list.
        void service()
        {
            for (auto& m : queue_.drain()) {
                pending_.push_back({m.key >> 9, static_cast<unsigned>(m.key & 0xff), (m.key >> 8 & 1) != 0, m.source,
                                    std::move(m.payload)});
            }
        }

        struct piece {
            std::uint64_t call;
            unsigned level;
            bool failed;
            int source;
            std::vector<std::byte> bytes;
        };

        mpsc_queue queue_;
        const treefold::plan::rank_schedule* s_ = nullptr;
        net::counters* count_ = nullptr;
        std::uint64_t call_ = 0;
        std::vector<piece> pending_;
        std::span<const std::byte> staged_;
    };

    /// The executor of this rank's schedule with the queue channel (the contract of the
    /// reducer's plans).
    template <class T>
    class plan : public exchange::executor<T, channel<T>> {
    public:
        /// Makes the schedule and creates the queue's MPI window: collective over `comm` (so
        /// is the plan's destruction).
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : exchange::executor<T, channel<T>>(comm, schedule(layout, comm.rank()))
        {
        }

        /// The queue (for its counters and memory figure).
        const mpsc_queue& queue() const { return this->channel().queue(); }
    };
};

/// The one-sided exchange's messages in one call, summed over every rank.
struct one_sided_messages {
    std::uint64_t exchange = 0;   ///< the exchange alone: one queue message per outbound root, one report per empty block
    std::uint64_t all_reduce = 0; ///< with the result's broadcast: what all_reduce() and reduce() send
};

/// This component's cost model: the messages of one_sided's calls on `layout`, counted from
/// the schedules it runs (one_sided::schedule for every rank, plan::count and
/// plan::broadcast_messages), so model and executor cannot disagree.
one_sided_messages one_sided_call_messages(const layout::block_layout& layout);

} // namespace treefold::rma
