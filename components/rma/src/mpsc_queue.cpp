#include "treefold/rma/mpsc_queue.hpp"

#include "queue_detail.hpp"

#include <thread>

namespace treefold::rma {

namespace {

constexpr MPI_Aint disp_r = 0;
using detail::check;
using detail::fetch_op;
using detail::half_bit;
using detail::offset_mask;
constexpr MPI_Aint disp_s(unsigned half) { return 8 + 8 * static_cast<MPI_Aint>(half); }
constexpr MPI_Aint disp_f(unsigned half) { return 24 + 8 * static_cast<MPI_Aint>(half); }

} // namespace

mpsc_queue::mpsc_queue(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes)
    : queue_base(comm, slots_per_half, slot_bytes)
{
    check(MPI_Win_lock_all(0, win_), "MPI_Win_lock_all");
    // Nobody may touch a counter before every rank has zeroed its own.
    check(MPI_Win_sync(win_), "MPI_Win_sync");
    comm_.barrier();
}

mpsc_queue::~mpsc_queue()
{
    if (win_ != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win_); // queue_base frees the window
    }
}

bool mpsc_queue::try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload)
{
    const std::uint64_t slots = check_push(consumer, payload);
    const std::uint64_t old = fetch_op(win_, consumer, disp_r, slots, MPI_SUM);
    const unsigned half = (old & half_bit) != 0 ? 1U : 0U;
    const std::uint64_t offset = old & offset_mask;
    if (offset + slots > slots_per_half_) {
        // Release the reservation so the consumer's accounting of this half still closes.
        fetch_op(win_, consumer, disp_f(half), slots, MPI_SUM);
        ++counters_.full;
        return false;
    }
    const int bytes = stage(key, payload);
    check(MPI_Put(staging_.data(), bytes, MPI_BYTE, consumer, slot_disp(half, offset), bytes, MPI_BYTE, win_),
          "MPI_Put");
    check(MPI_Win_flush(consumer, win_), "MPI_Win_flush"); // the data is there before S counts it
    fetch_op(win_, consumer, disp_s(half), slots, MPI_SUM);
    ++counters_.pushed;
    return true;
}

std::vector<message> mpsc_queue::drain()
{
    const int me = comm_.rank();
    const auto [half, next] = next_swap();
    const std::uint64_t reserved = fetch_op(win_, me, disp_r, next, MPI_REPLACE) & offset_mask;
    ++counters_.drained;
    // Wait for every producer that reserved in this half to finish (write or release).
    std::uint64_t written = 0;
    for (;;) {
        written = fetch_op(win_, me, disp_s(half), 0, MPI_NO_OP);
        const std::uint64_t failed = fetch_op(win_, me, disp_f(half), 0, MPI_NO_OP);
        if (written + failed == reserved) {
            break;
        }
        std::this_thread::yield();
    }
    check(MPI_Win_sync(win_), "MPI_Win_sync"); // make the producers' puts visible to loads
    auto out = unpack(base_ + slot_disp(half, 0), written);
    fetch_op(win_, me, disp_s(half), 0, MPI_REPLACE);
    fetch_op(win_, me, disp_f(half), 0, MPI_REPLACE);
    counters_.delivered += out.size();
    return out;
}

} // namespace treefold::rma
