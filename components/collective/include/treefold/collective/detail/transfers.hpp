#pragma once
/// Nonblocking point-to-point transfers of raw values, for the collectives that overlap
/// arithmetic with messages in flight (collective/allreduce.hpp's pipelined allreduces,
/// collective/async_allgather.hpp). Like ring_step below they run on the caller's
/// communicator on tag::ring and have no failure path; unlike it, every transfer is started
/// on its own and completed when its data is needed.
///
/// Raw MPI requests: Boost.MPI 1.74 allocates a handler for every request, and a pipelined
/// allreduce starts hundreds of them per call.

#include "treefold/config.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace treefold::collective::detail {

/// One blocking step of the bandwidth allreduces (collective/allreduce.hpp), which run on the caller's
/// communicator on net::tag::ring and have no failure path: sends send[0, ns) to `to` while
/// receiving nr values from `from` into recv; a negative rank skips that side.
template <class T>
void ring_step(const boost::mpi::communicator& comm, int to, const T* send, std::size_t ns, int from, T* recv,
               std::size_t nr, net::counters& count)
{
    static_assert(std::is_trivially_copyable_v<T>, "treefold: ring steps carry raw values");
    boost::mpi::request reqs[2];
    int k = 0;
    if (from >= 0) {
        reqs[k++] = comm.irecv(from, net::tag::ring, reinterpret_cast<char*>(recv), static_cast<int>(nr * sizeof(T)));
    }
    if (to >= 0) {
        reqs[k++] = comm.isend(to, net::tag::ring, reinterpret_cast<const char*>(send), static_cast<int>(ns * sizeof(T)));
        ++count.messages;
        count.bytes += ns * sizeof(T);
    }
    boost::mpi::wait_all(reqs, reqs + k);
}

/// A set of started sends and receives, each known by the index its start returned. The
/// destructor completes whatever is still outstanding, so no buffer is left in MPI's hands.
/// Messages between two ranks are matched in the order they were started (MPI's
/// non-overtaking rule on one tag): both sides must start them in the same order.
class transfers {
public:
    explicit transfers(const boost::mpi::communicator& comm) : comm_(static_cast<MPI_Comm>(comm)) {}
    transfers(const transfers&) = delete;
    transfers& operator=(const transfers&) = delete;
    ~transfers() { finish_all_noexcept(); }

    /// Starts sending values[0, n) to `dest`; `values` must stay unchanged until the send is
    /// waited for. Counted as one message of n values.
    template <class T>
    std::size_t send(int dest, const T* values, std::size_t n, net::counters& count)
    {
        static_assert(std::is_trivially_copyable_v<T>, "treefold: transfers carry raw values");
        MPI_Request r = MPI_REQUEST_NULL;
        net::check_mpi("MPI_Isend", MPI_Isend(values, bytes_of<T>(n), MPI_BYTE, dest, net::tag::ring, comm_, &r));
        ++count.messages;
        count.bytes += n * sizeof(T);
        return keep(r);
    }

    /// Starts receiving exactly n values from `source` into out[0, n).
    template <class T>
    std::size_t recv(int source, T* out, std::size_t n)
    {
        static_assert(std::is_trivially_copyable_v<T>, "treefold: transfers carry raw values");
        MPI_Request r = MPI_REQUEST_NULL;
        net::check_mpi("MPI_Irecv", MPI_Irecv(out, bytes_of<T>(n), MPI_BYTE, source, net::tag::ring, comm_, &r));
        return keep(r);
    }

    /// Waits for transfer `i` (a no-op once it has completed).
    void wait(std::size_t i) { net::wait_request(requests_.at(i)); }

    /// Whether transfer `i` has completed (without waiting; completes it if so).
    bool test(std::size_t i) { return net::test_request(requests_.at(i)); }

    /// Waits for transfers [first, last).
    void wait_range(std::size_t first, std::size_t last)
    {
        for (std::size_t i = first; i < last; ++i) {
            wait(i);
        }
    }

    /// Waits for every transfer started so far.
    void wait_all() { wait_range(0, requests_.size()); }

    /// The number of transfers started so far (the index the next start returns).
    std::size_t started() const { return requests_.size(); }

private:
    template <class T>
    static int bytes_of(std::size_t n)
    {
        if (n > static_cast<std::size_t>(INT_MAX) / sizeof(T)) {
            throw std::length_error("treefold: one message of more than INT_MAX bytes");
        }
        return static_cast<int>(n * sizeof(T));
    }

    std::size_t keep(MPI_Request r)
    {
        requests_.push_back(r);
        return requests_.size() - 1;
    }

    void finish_all_noexcept() noexcept
    {
        // Only reached with requests outstanding when an exception unwinds a collective: the
        // buffers are about to go, so their transfers must end first.
        if (!requests_.empty()) {
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        }
    }

    MPI_Comm comm_;
    std::vector<MPI_Request> requests_;
};

} // namespace treefold::collective::detail
