#include "treefold/rma/locked_queue.hpp"

#include "queue_detail.hpp"

#include <cstring>

namespace treefold::rma {

namespace {

constexpr MPI_Aint disp_state = 0;
using detail::check;
using detail::fetch_op;
using detail::half_bit;
using detail::offset_mask;

} // namespace

locked_queue::locked_queue(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes)
    : queue_base(comm, slots_per_half, slot_bytes)
{
    // Nobody may lock a window before its owner has zeroed the state word.
    comm_.barrier();
}

bool locked_queue::try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload)
{
    const std::uint64_t slots = check_push(consumer, payload);
    const int bytes = stage(key, payload);
    check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, consumer, 0, win_), "MPI_Win_lock");
    const std::uint64_t state = fetch_op(win_, consumer, disp_state, 0, MPI_NO_OP);
    const unsigned half = (state & half_bit) != 0 ? 1U : 0U;
    const std::uint64_t offset = state & offset_mask;
    const bool fits = offset + slots <= slots_per_half_;
    if (fits) {
        check(MPI_Put(staging_.data(), bytes, MPI_BYTE, consumer, slot_disp(half, offset), bytes, MPI_BYTE, win_),
              "MPI_Put");
        const std::uint64_t next = state + slots;
        check(MPI_Accumulate(&next, 1, MPI_UINT64_T, consumer, disp_state, 1, MPI_UINT64_T, MPI_REPLACE, win_),
              "MPI_Accumulate");
    }
    // The unlock completes the put and the new state together: the consumer's next lock sees both.
    check(MPI_Win_unlock(consumer, win_), "MPI_Win_unlock");
    if (!fits) {
        ++counters_.full;
        return false;
    }
    ++counters_.pushed;
    return true;
}

std::vector<message> locked_queue::drain()
{
    const int me = comm_.rank();
    const auto [half, next] = next_swap();
    check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win_), "MPI_Win_lock");
    const std::uint64_t written = fetch_op(win_, me, disp_state, next, MPI_REPLACE) & offset_mask;
    check(MPI_Win_sync(win_), "MPI_Win_sync"); // the producers' puts, visible to local loads
    // Local loads of window memory belong inside an epoch; the copy is short next to the lock.
    const std::size_t used = static_cast<std::size_t>(written) * slot_bytes_;
    if (used > 0) {
        std::memcpy(staging_.data(), base_ + slot_disp(half, 0), used);
    }
    check(MPI_Win_unlock(me, win_), "MPI_Win_unlock");
    ++counters_.drained;
    auto out = unpack(staging_.data(), written);
    counters_.delivered += out.size();
    return out;
}

} // namespace treefold::rma
