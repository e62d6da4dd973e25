#pragma once
/// The direct exchange: every outbound subtree root goes to the owner of its parent.
///
/// A rank owns the nodes whose first index lies in its block. It pushes its block's maximal
/// nodes (computed by the local kernel) and then the right pieces it receives, in index
/// order, onto a frontier; whenever the node on top is one of its outbound subtree roots
/// (a right child whose parent starts before the block), it goes to a send buffer. The
/// buffer holds up to 4 values per message and is flushed when the target changes, before
/// a local node of more than 64 elements is computed, and before any blocking receive.
/// Dependencies only point from lower to higher indices, so nothing can deadlock. The owner
/// of index 0 ends with the root.

#include "treefold/exchange/outcome.hpp"
#include "treefold/layout/routes.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/frontier.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/tree/decompose.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <vector>

namespace treefold::exchange {

/// Exchange policy: point-to-point messages of outbound subtree roots (see file comment).
struct direct {
    static constexpr const char* name = "direct";
    /// Values per message at most.
    static constexpr std::size_t buffer_values = layout::direct_buffering{}.values_per_message;
    /// Local nodes larger than this flush the send buffer before they are computed.
    static constexpr treefold::tree::index_t flush_before_elements = layout::direct_buffering{}.flush_before_elements;

    template <class T>
    class plan {
    public:
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : comm_(comm), me_(comm.rank()), n_(layout.size()), routes_(layout, comm.rank()), stack_(layout.size())
        {
            send_buffer_.reserve(buffer_values);
            inbox_.resize(buffer_values);
        }

        /// The rank that ends with the root.
        int finisher() const { return routes_.finisher; }

        /// Runs the exchange. `local` points at this rank's block (ignored when `failed` is
        /// set on entry). On return the finisher's outcome holds the root or a failure; other
        /// ranks' outcome holds a failure only if they saw one. `own_error` receives the
        /// exception the operator threw on this rank, if any.
        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, std::optional<failure> failed, net::counters& count,
                       std::exception_ptr& own_error)
        {
            stack_.reset(n_);
            send_buffer_.clear();
            buffer_target_ = -1;
            sent_ = 0;
            next_out_ = 0;
            next_in_ = 0;
            inbox_size_ = inbox_pos_ = 0;
            inbox_source_ = -1;
            dead_source_ = -1;
            count_ = &count;

            for (std::size_t i = 0; i < routes_.local_nodes.size() && !failed; ++i) {
                const treefold::tree::node v = routes_.local_nodes[i];
                const treefold::tree::index_t len = treefold::tree::cover_size(v, n_);
                if (len > flush_before_elements) {
                    flush();
                }
                guarded(me_, failed, own_error, [&] { push(v, Kernel::reduce_node(local + (v.x - routes_.s), len, op), op); });
            }
            while (next_in_ < routes_.incoming.size() && !failed) {
                flush();
                const auto& piece = routes_.incoming[next_in_];
                std::optional<failure> remote;
                T value = take(piece.rank, remote);
                if (remote) {
                    failed = remote;
                    dead_source_ = piece.rank;
                    break;
                }
                ++next_in_;
                guarded(me_, failed, own_error, [&] { push(piece.v, std::move(value), op); });
            }
            if (!failed) {
                flush();
            } else {
                fail_outbound(*failed);
                drain();
            }
            outcome<T> out;
            out.failed = failed;
            if (!failed && me_ == routes_.finisher && n_ > 0) {
                out.value = stack_.pop_back();
            }
            return out;
        }

    private:
        template <class Op>
        void push(treefold::tree::node v, T value, Op& op)
        {
            stack_.push(v, std::move(value), op);
            while (next_out_ < routes_.outbound.size() && !stack_.empty() &&
                   stack_.back_node() == routes_.outbound[next_out_].v) {
                const int target = routes_.outbound[next_out_].rank;
                if (target != buffer_target_) {
                    flush();
                }
                buffer_target_ = target;
                send_buffer_.push_back(stack_.pop_back());
                ++next_out_;
                if (send_buffer_.size() == buffer_values) {
                    flush();
                }
            }
        }

        void flush()
        {
            if (!send_buffer_.empty()) {
                net::send_values(comm_, buffer_target_, send_buffer_.data(), send_buffer_.size(), *count_);
                sent_ += send_buffer_.size();
                send_buffer_.clear();
            }
        }

        T take(int source, std::optional<failure>& remote)
        {
            if (inbox_source_ != source || inbox_pos_ == inbox_size_) {
                inbox_size_ = net::recv_values(comm_, source, inbox_.data(), buffer_values, remote);
                inbox_source_ = source;
                inbox_pos_ = 0;
                if (remote) {
                    return T{};
                }
            }
            return inbox_[inbox_pos_++];
        }

        /// One failure message to every target still owed a piece.
        void fail_outbound(const failure& f)
        {
            send_buffer_.clear();
            routes_.for_each_owed_target(sent_, [&](int target) { net::send_failure(comm_, target, f, *count_); });
        }

        /// Receives what is still owed to this rank, so no sender waits and no message
        /// is left behind for the next call.
        void drain()
        {
            routes_.for_each_owed_source(next_in_, [&](int source, std::size_t /*first*/, std::size_t owed) {
                if (source == dead_source_) {
                    return; // it already sent its failure: its stream has ended
                }
                if (source == inbox_source_) {
                    const std::size_t buffered = inbox_size_ - inbox_pos_;
                    owed = owed > buffered ? owed - buffered : 0;
                }
                std::optional<failure> ignored;
                while (owed > 0 && !ignored) {
                    const std::size_t got = net::recv_values(comm_, source, inbox_.data(), buffer_values, ignored);
                    owed = got > owed ? 0 : owed - got;
                }
            });
        }

        boost::mpi::communicator comm_;
        int me_;
        treefold::tree::index_t n_;
        layout::direct_routes routes_;

        // Per-call state (capacity kept between calls).
        frontier<T> stack_;
        std::vector<T> send_buffer_;
        int buffer_target_ = -1;
        std::size_t sent_ = 0;
        std::size_t next_out_ = 0;
        std::size_t next_in_ = 0;
        std::vector<T> inbox_;
        std::size_t inbox_size_ = 0;
        std::size_t inbox_pos_ = 0;
        int inbox_source_ = -1;
        int dead_source_ = -1;
        net::counters* count_ = nullptr;
    };
};

} // namespace treefold::exchange
