#include "treefold/rma/mpsc_queue.hpp"

#include <boost/mpi/collectives/all_gather.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace treefold::rma {

namespace {

constexpr std::uint64_t half_bit = std::uint64_t{1} << 63;
constexpr std::uint64_t offset_mask = half_bit - 1;
constexpr MPI_Aint disp_r = 0;
constexpr MPI_Aint header_region = 64;
constexpr MPI_Aint disp_s(unsigned half) { return 8 + 8 * static_cast<MPI_Aint>(half); }
constexpr MPI_Aint disp_f(unsigned half) { return 24 + 8 * static_cast<MPI_Aint>(half); }

struct wire_header {
    std::uint64_t key;
    std::int32_t source;
    std::uint32_t length;
};
static_assert(sizeof(wire_header) == mpsc_queue::header_bytes);

void check(int rc, const char* what)
{
    if (rc != MPI_SUCCESS) {
        throw std::runtime_error(std::string("treefold: ") + what + " failed");
    }
}

std::uint64_t atomic_op(MPI_Win win, int target, MPI_Aint disp, std::uint64_t operand, MPI_Op op)
{
    std::uint64_t old = 0;
    check(MPI_Fetch_and_op(&operand, &old, MPI_UINT64_T, target, disp, op, win), "MPI_Fetch_and_op");
    check(MPI_Win_flush(target, win), "MPI_Win_flush");
    return old;
}

} // namespace

mpsc_queue::mpsc_queue(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes)
    : comm_(comm.get(), boost::mpi::comm_duplicate), slots_per_half_(slots_per_half), slot_bytes_(slot_bytes)
{
    // Agree first, then decide from the same data: every rank throws the same error.
    const std::array<std::uint64_t, 2> mine{slots_per_half, slot_bytes};
    std::vector<std::uint64_t> all;
    boost::mpi::all_gather(comm_, mine.data(), 2, all);
    for (std::size_t r = 0; r < all.size() / 2; ++r) {
        std::ostringstream msg;
        if (all[2 * r] != all[0] || all[2 * r + 1] != all[1]) {
            msg << "treefold: ranks disagree on the queue size (rank " << r << " differs from rank 0)";
        } else if (all[1] == 0 || all[1] % 8 != 0) {
            msg << "treefold: queue slot size " << all[1] << " is not a positive multiple of 8 bytes";
        } else if (all[0] == 0 || all[0] >= (std::uint64_t{1} << 32)) {
            msg << "treefold: queue half capacity " << all[0] << " is not between 1 and 2^32 - 1 slots";
        } else {
            continue;
        }
        throw std::invalid_argument(msg.str());
    }
    window_bytes_ = static_cast<std::size_t>(header_region) + 2 * slots_per_half_ * slot_bytes_;
    void* memory = nullptr;
    // When every rank shares one node, a shared-memory window lets the MPI library do the
    // atomics and puts with plain loads and stores (Open MPI: osc/sm). With MPI_Win_allocate
    // it picks osc/rdma, whose remote atomics wait for the target process to run: one
    // scheduler slice (~4 ms) per message when ranks outnumber cores (doc/performance.md).
    // The protocol is the same either way; all ranks see the same node size, so they agree.
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(static_cast<MPI_Comm>(comm_), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    // TREEFOLD_RMA_WINDOW=allocate forces MPI_Win_allocate (how the tests cover that path on
    // one node); mpirun gives every rank the same environment, so they still agree.
    const char* forced = std::getenv("TREEFOLD_RMA_WINDOW");
    shared_ = node_size == comm_.size() && !(forced != nullptr && std::string_view(forced) == "allocate");
    if (shared_) {
        MPI_Info info = MPI_INFO_NULL;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true"); // each rank's queue on its own pages
        const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(window_bytes_), 1, info,
                                               static_cast<MPI_Comm>(comm_), &memory, &win_);
        MPI_Info_free(&info);
        check(rc, "MPI_Win_allocate_shared");
    } else {
        check(MPI_Win_allocate(static_cast<MPI_Aint>(window_bytes_), 1, MPI_INFO_NULL, static_cast<MPI_Comm>(comm_),
                               &memory, &win_),
              "MPI_Win_allocate");
    }
    base_ = static_cast<std::byte*>(memory);
    std::memset(base_, 0, static_cast<std::size_t>(header_region));
    check(MPI_Win_lock_all(0, win_), "MPI_Win_lock_all");
    // Nobody may touch a counter before every rank has zeroed its own.
    check(MPI_Win_sync(win_), "MPI_Win_sync");
    comm_.barrier();
    staging_.resize(slots_per_half_ * slot_bytes_);
}

mpsc_queue::~mpsc_queue()
{
    if (win_ != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win_);
        MPI_Win_free(&win_);
    }
}

MPI_Aint mpsc_queue::slot_disp(unsigned half, std::uint64_t slot) const
{
    return header_region + static_cast<MPI_Aint>((half * slots_per_half_ + slot) * slot_bytes_);
}

bool mpsc_queue::try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload)
{
    if (consumer < 0 || consumer >= comm_.size()) {
        throw std::invalid_argument("treefold: queue consumer " + std::to_string(consumer) + " is not a rank");
    }
    if (payload.size() > max_payload()) {
        throw std::invalid_argument("treefold: a message of " + std::to_string(payload.size()) +
                                    " bytes does not fit in a queue half of " +
                                    std::to_string(slots_per_half_ * slot_bytes_) + " bytes");
    }
    const std::uint64_t slots = slots_for(payload.size());
    const std::uint64_t old = atomic_op(win_, consumer, disp_r, slots, MPI_SUM);
    const unsigned half = (old & half_bit) != 0 ? 1U : 0U;
    const std::uint64_t offset = old & offset_mask;
    if (offset + slots > slots_per_half_) {
        // Release the reservation so the consumer's accounting of this half still closes.
        atomic_op(win_, consumer, disp_f(half), slots, MPI_SUM);
        ++counters_.full;
        return false;
    }
    const wire_header h{key, comm_.rank(), static_cast<std::uint32_t>(payload.size())};
    std::memcpy(staging_.data(), &h, sizeof h);
    if (!payload.empty()) {
        std::memcpy(staging_.data() + sizeof h, payload.data(), payload.size());
    }
    check(MPI_Put(staging_.data(), static_cast<int>(sizeof h + payload.size()), MPI_BYTE, consumer,
                  slot_disp(half, offset), static_cast<int>(sizeof h + payload.size()), MPI_BYTE, win_),
          "MPI_Put");
    check(MPI_Win_flush(consumer, win_), "MPI_Win_flush"); // the data is there before S counts it
    atomic_op(win_, consumer, disp_s(half), slots, MPI_SUM);
    ++counters_.pushed;
    return true;
}

void mpsc_queue::push(int consumer, std::uint64_t key, std::span<const std::byte> payload,
                      const std::function<void()>& progress)
{
    while (!try_push(consumer, key, payload)) {
        if (progress) {
            progress();
        } else {
            std::this_thread::yield();
        }
    }
}

std::vector<message> mpsc_queue::drain()
{
    const int me = comm_.rank();
    const unsigned half = filling_;
    filling_ ^= 1U;
    const std::uint64_t next = filling_ != 0 ? half_bit : 0;
    const std::uint64_t reserved = atomic_op(win_, me, disp_r, next, MPI_REPLACE) & offset_mask;
    ++counters_.drained;
    // Wait for every producer that reserved in this half to finish (write or release).
    std::uint64_t written = 0;
    for (;;) {
        written = atomic_op(win_, me, disp_s(half), 0, MPI_NO_OP);
        const std::uint64_t failed = atomic_op(win_, me, disp_f(half), 0, MPI_NO_OP);
        if (written + failed == reserved) {
            break;
        }
        std::this_thread::yield();
    }
    check(MPI_Win_sync(win_), "MPI_Win_sync"); // make the producers' puts visible to loads
    std::vector<message> out;
    std::uint64_t slot = 0;
    while (slot < written) {
        const std::byte* at = base_ + slot_disp(half, slot);
        wire_header h{};
        std::memcpy(&h, at, sizeof h);
        message m;
        m.source = h.source;
        m.key = h.key;
        m.payload.assign(at + sizeof h, at + sizeof h + h.length);
        out.push_back(std::move(m));
        slot += slots_for(h.length);
    }
    atomic_op(win_, me, disp_s(half), 0, MPI_REPLACE);
    atomic_op(win_, me, disp_f(half), 0, MPI_REPLACE);
    std::stable_sort(out.begin(), out.end(), [](const message& a, const message& b) {
        return a.key != b.key ? a.key < b.key : a.source < b.source;
    });
    counters_.delivered += out.size();
    return out;
}

} // namespace treefold::rma
