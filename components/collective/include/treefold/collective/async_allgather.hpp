#pragma once
/// An allgatherv whose blocks can be used as they arrive: the caller asks for rank r's block
/// and works on it while the others are still in flight (the DSOP document's allgather-async
/// and Bruck-async: outer products computed while pairs travel).

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/collective/detail/transfers.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace treefold::collective {

/// How the blocks travel.
enum class gather_pattern {
    direct, ///< every rank sends its block to every other at once: p − 1 messages, one step
    bruck   ///< Bruck's allgather: ⌈log2 p⌉ rounds, round j forwards up to 2^j blocks to rank − 2^j
};

/// Rank r contributes sizes[r] values (its `mine`); block(r) returns them on every rank,
/// waiting only for what that block needs. Construction starts the transfers (collective:
/// every rank constructs one with the same sizes and pattern, and asks for blocks in any
/// order); the destructor completes whatever is still outstanding. Trivially copyable T only.
/// Runs on the caller's communicator on tag::ring (no failure path, like the ring allreduce).
template <class T>
class async_allgatherv {
    static_assert(std::is_trivially_copyable_v<T>, "treefold: async_allgatherv moves raw values");

public:
    /// Starts gathering. Throws std::invalid_argument (on this rank, before any message) when
    /// `sizes` does not have one entry per rank or mine.size() differs from this rank's entry.
    async_allgatherv(comm_view comm, std::span<const T> mine, std::vector<std::size_t> sizes, gather_pattern pattern,
                     net::counters* count = nullptr)
        : comm_(comm), p_(comm_.size()), me_(comm_.rank()), sizes_(std::move(sizes)), pattern_(pattern),
          count_(count ? count : &local_), transfers_(comm_)
    {
        if (sizes_.size() != static_cast<std::size_t>(p_) || mine.size() != sizes_[static_cast<std::size_t>(me_)]) {
            throw std::invalid_argument("treefold: async_allgatherv needs one size per rank, this rank's equal to "
                                        "its own block");
        }
        // Blocks are stored in the order this rank receives them: rank order for direct,
        // starting from this rank (me, me + 1, …) for Bruck, so that each Bruck round sends and
        // receives one contiguous run.
        offset_.assign(static_cast<std::size_t>(p_) + 1, 0);
        for (int i = 0; i < p_; ++i) {
            offset_[static_cast<std::size_t>(i) + 1] =
                offset_[static_cast<std::size_t>(i)] + sizes_[static_cast<std::size_t>(slot_rank(i))];
        }
        buffer_.resize(offset_.back());
        std::copy(mine.begin(), mine.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(offset_[slot(me_)]));
        if (pattern_ == gather_pattern::direct) {
            recv_of_.assign(static_cast<std::size_t>(p_), none);
            for (int r = 0; r < p_; ++r) {
                if (r != me_) {
                    recv_of_[static_cast<std::size_t>(r)] =
                        transfers_.recv(r, buffer_.data() + offset_[slot(r)], sizes_[static_cast<std::size_t>(r)]);
                }
            }
            // Destinations in ring order from me + 1, so the ranks do not all send to rank 0 first.
            for (int s = 1; s < p_; ++s) {
                transfers_.send((me_ + s) % p_, buffer_.data() + offset_[slot(me_)], mine.size(), *count_);
            }
        } else {
            have_ = 1;
            start_bruck_round();
        }
    }

    async_allgatherv(const async_allgatherv&) = delete;
    async_allgatherv& operator=(const async_allgatherv&) = delete;

    /// Rank r's block, once it is here (waits for it; valid while this object lives).
    std::span<const T> block(int r)
    {
        arrive(r, true);
        return {buffer_.data() + offset_[slot(r)], sizes_[static_cast<std::size_t>(r)]};
    }

    /// Whether rank r's block is here already (never waits; may start the next Bruck round).
    bool ready(int r) { return arrive(r, false); }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    /// The rank whose block sits in slot i.
    int slot_rank(int i) const { return pattern_ == gather_pattern::direct ? i : (me_ + i) % p_; }
    /// The slot of rank r's block.
    std::size_t slot(int r) const
    {
        return static_cast<std::size_t>(pattern_ == gather_pattern::direct ? r : (r - me_ + p_) % p_);
    }

    /// Whether rank r's block is here, waiting for it when `wait` (then always true) and only
    /// testing otherwise; a Bruck round that completes starts the next one either way.
    bool arrive(int r, bool wait)
    {
        if (r < 0 || r >= p_) {
            throw std::out_of_range(std::string("treefold: async_allgatherv::") + (wait ? "block" : "ready") +
                                    " of a rank outside the communicator");
        }
        if (pattern_ == gather_pattern::direct) {
            if (r == me_) {
                return true;
            }
            const std::size_t i = recv_of_[static_cast<std::size_t>(r)];
            if (!wait) {
                return transfers_.test(i);
            }
            transfers_.wait(i);
            return true;
        }
        // Bruck: block r is slot (r − me) mod p; rounds complete in order.
        while (static_cast<int>(slot(r)) >= have_) {
            if (wait) {
                transfers_.wait(round_recv_);
            } else if (!transfers_.test(round_recv_)) {
                return false;
            }
            have_ = std::min(p_, 2 * have_);
            start_bruck_round();
        }
        return true;
    }

    /// Bruck round with distance d = have_ (slots [0, d) are here): send the first
    /// min(d, p − d) slots to me − d, receive as many from me + d into slots [d, …).
    void start_bruck_round()
    {
        const int d = have_;
        if (d >= p_) {
            return;
        }
        const auto c = static_cast<std::size_t>(std::min(d, p_ - d));
        const auto ud = static_cast<std::size_t>(d);
        round_recv_ = transfers_.recv((me_ + d) % p_, buffer_.data() + offset_[ud], offset_[ud + c] - offset_[ud]);
        // The receiver holds my slots as its slots [d, d + c): ranks me … me + c − 1 either way.
        transfers_.send((me_ - d + p_) % p_, buffer_.data(), offset_[c], *count_);
    }

    boost::mpi::communicator comm_;
    int p_;
    int me_;
    std::vector<std::size_t> sizes_;
    gather_pattern pattern_;
    net::counters local_;
    net::counters* count_;
    std::vector<std::size_t> offset_; // offset_[i]: where slot i starts
    std::vector<T> buffer_;
    std::vector<std::size_t> recv_of_; // direct: the receive of each rank's block
    std::size_t round_recv_ = 0;       // bruck: the receive of the current round
    int have_ = 0;                     // bruck: slots [0, have_) are here
    detail::transfers transfers_;         // last: completes before the buffers go
};

} // namespace treefold::collective
