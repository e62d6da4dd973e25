#pragma once
/// The direct exchange: every outbound subtree root (a right child whose parent starts before
/// the rank's block) goes to the owner of its parent, in point-to-point messages (the loop:
/// routed_run.hpp). A send buffer holds up to 4 values per message and is flushed when the
/// target changes, before a local node of more than 64 elements is computed, and before any
/// blocking receive. The owner of index 0 ends with the root.

#include "treefold/config.hpp"
#include "treefold/detail/exchange/outcome.hpp"
#include "treefold/detail/exchange/routed_run.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/detail/layout/routes.hpp"
#include "treefold/detail/net/transport.hpp"
#include "treefold/index_tree/node.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

namespace treefold::exchange {

/// Exchange policy: point-to-point messages of outbound subtree roots (see file comment).
struct direct {
    /// The exchange's name (the C API's "exchange" option).
    static constexpr const char* name = "direct";
    /// Values per message at most.
    static constexpr std::size_t buffer_values = layout::direct_buffering{}.values_per_message;
    /// Local nodes larger than this flush the send buffer before they are computed.
    static constexpr index_tree::index_t flush_before_elements = layout::direct_buffering{}.flush_before_elements;

    /// The routes of this rank's outbound and inbound subtree roots for one layout; run() and
    /// finisher() come from routed_run.
    template <class T>
    class plan : public routed_run<plan<T>, T> {
    public:
        /// Plans this rank's routes from the layout alone (no communication); the messages
        /// go on `comm`.
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : routed_run<plan, T>(layout, comm.rank()), comm_(comm)
        {
            send_buffer_.reserve(buffer_values);
            inbox_.resize(buffer_values);
        }

    private:
        friend routed_run<plan, T>; // the port it runs through

        void begin(net::counters& count)
        {
            send_buffer_.clear();
            buffer_target_ = -1;
            inbox_size_ = inbox_pos_ = 0;
            inbox_source_ = -1;
            count_ = &count;
        }

        void before_node(index_tree::index_t len)
        {
            if (len > flush_before_elements) {
                flush();
            }
        }

        void send(const layout::routed_node& to, T value)
        {
            if (to.rank != buffer_target_) {
                flush();
            }
            buffer_target_ = to.rank;
            send_buffer_.push_back(std::move(value));
            if (send_buffer_.size() == buffer_values) {
                flush();
            }
        }

        void flush()
        {
            if (!send_buffer_.empty()) {
                net::send_values(comm_, buffer_target_, send_buffer_.data(), send_buffer_.size(), *count_);
                send_buffer_.clear();
            }
        }

        T take(const layout::routed_node& from, std::optional<failure>& remote)
        {
            if (inbox_source_ != from.rank || inbox_pos_ == inbox_size_) {
                inbox_size_ = net::recv_values(comm_, from.rank, inbox_.data(), buffer_values, remote);
                inbox_source_ = from.rank;
                inbox_pos_ = 0;
                if (remote) {
                    return T{};
                }
            }
            return inbox_[inbox_pos_++];
        }

        std::size_t drop_unsent()
        {
            const std::size_t dropped = send_buffer_.size();
            send_buffer_.clear();
            return dropped;
        }

        void send_failure(int target, const failure& f) { net::send_failure(comm_, target, f, *count_); }

        void report(int target, const std::optional<failure>& failed)
        {
            net::send_values_or_failure(comm_, target, inbox_.data(), 0, failed, *count_);
        }

        std::optional<failure> take_report(int source)
        {
            std::optional<failure> remote;
            if (net::recv_values(comm_, source, inbox_.data(), 0, remote) != 0) {
                net::unexpected_size();
            }
            return remote;
        }

        boost::mpi::communicator comm_;

        // Per-call state (capacity kept between calls).
        std::vector<T> send_buffer_;
        int buffer_target_ = -1;
        std::vector<T> inbox_;
        std::size_t inbox_size_ = 0;
        std::size_t inbox_pos_ = 0;
        int inbox_source_ = -1;
        net::counters* count_ = nullptr;
    };
};

} // namespace treefold::exchange
