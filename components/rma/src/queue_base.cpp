#include "treefold/rma/queue_base.hpp"

#include "queue_detail.hpp"

#include <boost/mpi/collectives/all_gather.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace treefold::rma::detail {

static_assert(sizeof(wire_header) == queue_base::header_bytes);

void check(int rc, const char* what)
{
    if (rc != MPI_SUCCESS) {
        throw std::runtime_error(std::string("treefold: ") + what + " failed");
    }
}

std::uint64_t fetch_op(MPI_Win win, int target, MPI_Aint disp, std::uint64_t operand, MPI_Op op)
{
    std::uint64_t old = 0;
    check(MPI_Fetch_and_op(&operand, &old, MPI_UINT64_T, target, disp, op, win), "MPI_Fetch_and_op");
    check(MPI_Win_flush(target, win), "MPI_Win_flush");
    return old;
}

} // namespace treefold::rma::detail

namespace treefold::rma {

namespace {

/// One rank's window and how it was made.
struct queue_window {
    MPI_Win win = MPI_WIN_NULL;
    std::byte* base = nullptr;
    bool shared = false;
};

using detail::check;
using detail::header_region;

void agree_on_sizes(const boost::mpi::communicator& comm, std::size_t slots_per_half, std::size_t slot_bytes)
{
    // Agree first, then decide from the same data: every rank throws the same error.
    const std::array<std::uint64_t, 2> mine{slots_per_half, slot_bytes};
    std::vector<std::uint64_t> all;
    boost::mpi::all_gather(comm, mine.data(), 2, all);
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
}

queue_window allocate_window(const boost::mpi::communicator& comm, std::size_t bytes)
{
    queue_window w;
    void* memory = nullptr;
    // When every rank shares one node, a shared-memory window lets the MPI library do the
    // atomics and puts with plain loads and stores (Open MPI: osc/sm). With MPI_Win_allocate
    // it picks osc/rdma, whose remote atomics wait for the target process to run: one
    // scheduler slice (~4 ms) per message when ranks outnumber cores (doc/performance.md).
    // The protocol is the same either way; all ranks see the same node size, so they agree.
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(static_cast<MPI_Comm>(comm), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    // TREEFOLD_RMA_WINDOW=allocate forces MPI_Win_allocate (how the tests cover that path on
    // one node); mpirun gives every rank the same environment, so they still agree.
    const char* forced = std::getenv("TREEFOLD_RMA_WINDOW");
    w.shared = node_size == comm.size() && !(forced != nullptr && std::string_view(forced) == "allocate");
    if (w.shared) {
        MPI_Info info = MPI_INFO_NULL;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true"); // each rank's queue on its own pages
        const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, static_cast<MPI_Comm>(comm),
                                               &memory, &w.win);
        MPI_Info_free(&info);
        check(rc, "MPI_Win_allocate_shared");
    } else {
        check(MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, static_cast<MPI_Comm>(comm), &memory,
                               &w.win),
              "MPI_Win_allocate");
    }
    w.base = static_cast<std::byte*>(memory);
    std::memset(w.base, 0, static_cast<std::size_t>(header_region));
    return w;
}

} // namespace

queue_base::queue_base(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes)
    : comm_(comm.get(), boost::mpi::comm_duplicate), slots_per_half_(slots_per_half), slot_bytes_(slot_bytes)
{
    agree_on_sizes(comm_, slots_per_half_, slot_bytes_);
    window_bytes_ = static_cast<std::size_t>(header_region) + 2 * slots_per_half_ * slot_bytes_;
    const auto window = allocate_window(comm_, window_bytes_);
    win_ = window.win;
    base_ = window.base;
    shared_ = window.shared;
    staging_.resize(slots_per_half_ * slot_bytes_);
}

queue_base::~queue_base()
{
    if (win_ != MPI_WIN_NULL) {
        MPI_Win_free(&win_);
    }
}

void queue_base::push(int consumer, std::uint64_t key, std::span<const std::byte> payload,
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

queue_base::swap queue_base::next_swap()
{
    const unsigned filled = filling_;
    filling_ ^= 1U;
    return {filled, filling_ != 0 ? detail::half_bit : 0};
}

std::uint64_t queue_base::check_push(int consumer, std::span<const std::byte> payload) const
{
    if (consumer < 0 || consumer >= comm_.size()) {
        throw std::invalid_argument("treefold: queue consumer " + std::to_string(consumer) + " is not a rank");
    }
    if (payload.size() > max_payload()) {
        throw std::invalid_argument("treefold: a message of " + std::to_string(payload.size()) +
                                    " bytes does not fit in a queue half of " +
                                    std::to_string(max_payload() + header_bytes) + " bytes");
    }
    return slots_for(payload.size());
}

int queue_base::stage(std::uint64_t key, std::span<const std::byte> payload)
{
    const detail::wire_header h{key, comm_.rank(), static_cast<std::uint32_t>(payload.size())};
    std::memcpy(staging_.data(), &h, sizeof h);
    if (!payload.empty()) {
        std::memcpy(staging_.data() + sizeof h, payload.data(), payload.size());
    }
    return static_cast<int>(sizeof h + payload.size());
}

std::vector<message> queue_base::unpack(const std::byte* bytes, std::uint64_t slots) const
{
    std::vector<message> out;
    std::uint64_t slot = 0;
    while (slot < slots) {
        const std::byte* at = bytes + slot * slot_bytes_;
        detail::wire_header h{};
        std::memcpy(&h, at, sizeof h);
        message m;
        m.source = h.source;
        m.key = h.key;
        m.payload.assign(at + sizeof h, at + sizeof h + h.length);
        out.push_back(std::move(m));
        slot += slots_for(h.length);
    }
    std::stable_sort(out.begin(), out.end(), [](const message& a, const message& b) {
        return a.key != b.key ? a.key < b.key : a.source < b.source;
    });
    return out;
}

MPI_Aint queue_base::slot_disp(unsigned half, std::uint64_t slot) const
{
    return header_region + static_cast<MPI_Aint>((half * slots_per_half_ + slot) * slot_bytes_);
}

} // namespace treefold::rma
