#pragma once
/// The one-sided exchange: the direct exchange's outbound subtree roots travel through each
/// owner's one-sided many-to-one queue (rma::mpsc_queue) instead of point-to-point messages,
/// so a rank needs one receive queue of constant size whatever p is.
///
/// Each message carries one node value; its key is (call number << 8 | level), so pieces are
/// found by key whatever order they arrive in, and pieces of a later call that arrive early
/// (possible after reduce(), which does not broadcast) wait in a pending list. The same
/// routes as the direct exchange (routes.hpp) fix which pieces a rank expects from whom.
/// Construction and destruction are collective (the queue's MPI window).

#include "treefold/exchange/outcome.hpp"
#include "treefold/layout/routes.hpp"
#include "treefold/net/tags.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/frontier.hpp"
#include "treefold/rma/mpsc_queue.hpp"

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
    static constexpr const char* name = "one_sided";
    /// Slots in each half of a rank's queue (a call sends each rank at most 64 pieces).
    static constexpr std::size_t queue_slots = 256;

    template <class T>
    class plan {
        static_assert(std::is_trivially_copyable_v<T>, "treefold: the one_sided exchange needs a trivially copyable T");

    public:
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : n_(layout.size()), routes_(layout, comm.rank()),
              queue_(comm, queue_slots, slot_bytes()), stack_(layout.size())
        {
        }

        int finisher() const { return routes_.finisher; }

        /// Runs the exchange; same contract as direct::plan::run.
        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, std::optional<failure> failed, net::counters& count,
                       std::exception_ptr& own_error)
        {
            ++call_;
            std::erase_if(pending_, [&](const piece& p) { return p.call < call_; }); // stale: a failed call's leftovers
            stack_.reset(n_);
            std::size_t next_out = 0;
            std::size_t next_in = 0;
            int dead_source = -1;
            const int me = queue_.communicator().rank();
            auto push = [&](treefold::tree::node v, T value) {
                stack_.push(v, std::move(value), op);
                while (next_out < routes_.outbound.size() && !stack_.empty() &&
                       stack_.back_node() == routes_.outbound[next_out].v) {
                    const T root = stack_.pop_back();
                    send(routes_.outbound[next_out].rank, key(call_, routes_.outbound[next_out].v.level), &root,
                         sizeof root, count);
                    ++next_out;
                }
            };
            for (std::size_t i = 0; i < routes_.local_nodes.size() && !failed; ++i) {
                const treefold::tree::node v = routes_.local_nodes[i];
                guarded(me, failed, own_error, [&] { push(v, Kernel::reduce_node(local + (v.x - routes_.s), treefold::tree::cover_size(v, n_), op)); });
            }
            while (next_in < routes_.incoming.size() && !failed) {
                const auto& want = routes_.incoming[next_in];
                std::optional<failure> remote;
                const T value = wait_for(want, remote);
                if (remote) {
                    failed = remote;
                    dead_source = want.rank;
                    break;
                }
                ++next_in;
                guarded(me, failed, own_error, [&] { push(want.v, value); });
            }
            if (failed) {
                // One failure record per target still owed a piece, then take every piece
                // still owed to this rank so no producer is left retrying on a full queue.
                const std::vector<char> record = encode(*failed);
                routes_.for_each_owed_target(next_out, [&](int target) {
                    send(target, key(call_, failure_level), record.data(), record.size(), count);
                });
                routes_.for_each_owed_source(next_in, [&](int source, std::size_t first, std::size_t owed) {
                    for (std::size_t k = first; k < first + owed && source != dead_source; ++k) {
                        std::optional<failure> remote;
                        (void)wait_for(routes_.incoming[k], remote);
                        if (remote) {
                            dead_source = source;
                        }
                    }
                });
            }
            outcome<T> out;
            out.failed = failed;
            if (!failed && queue_.communicator().rank() == routes_.finisher && n_ > 0) {
                out.value = stack_.pop_back();
            }
            return out;
        }

        /// The queue (for its counters and memory figure).
        const rma::mpsc_queue& queue() const { return queue_; }

    private:
        static constexpr unsigned failure_level = net::tag::queue_failure_level;
        static constexpr std::uint64_t key(std::uint64_t call, unsigned level) { return call << 8 | level; }

        /// One node value per slot; a failure record (rare) spans several slots.
        static std::size_t slot_bytes() { return (rma::mpsc_queue::header_bytes + sizeof(T) + 7) / 8 * 8; }

        struct piece {
            std::uint64_t call;
            unsigned level;
            int source;
            std::vector<std::byte> bytes;
        };

        void send(int target, std::uint64_t k, const void* data, std::size_t bytes, net::counters& count)
        {
            const auto* p = static_cast<const std::byte*>(data);
            queue_.push(target, k, std::span<const std::byte>(p, bytes), [this] { service(); });
            ++count.messages;
            count.bytes += bytes + rma::mpsc_queue::header_bytes;
        }

        /// Moves everything that has arrived into the pending list.
        void service()
        {
            for (auto& m : queue_.drain()) {
                pending_.push_back({m.key >> 8, static_cast<unsigned>(m.key & 0xff), m.source, std::move(m.payload)});
            }
        }

        /// The piece `want` of this call, or a failure record from its source.
        T wait_for(const layout::routed_node& want, std::optional<failure>& remote)
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
                    } else {
                        std::memcpy(&value, p.bytes.data(), sizeof value);
                    }
                    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
                    return value;
                }
                service();
                std::this_thread::yield();
            }
        }

        treefold::tree::index_t n_;
        layout::direct_routes routes_;
        rma::mpsc_queue queue_;
        frontier<T> stack_;
        std::uint64_t call_ = 0;
        std::vector<piece> pending_;
    };
};

} // namespace treefold::exchange
