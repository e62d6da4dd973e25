#pragma once
/// Buffers of `count` elements of an MPI datatype (derived types with holes included) as
/// net/'s channels move them: the transport of the MPI_Reduce-signature C entry points. Raw
/// MPI, since Boost.MPI has no form for an arbitrary MPI_Datatype; failures in the framing of
/// net/transport.hpp. MPI errors are thrown as detail::mpi_error.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/net/transport.hpp"

#include <mpi.h>

#include <cstddef>
#include <optional>

namespace treefold::collective::detail {

/// An MPI error code inside a call (the C entry points return it).
struct mpi_error {
    int rc;
};

/// Throws mpi_error unless rc is MPI_SUCCESS.
void check(int rc);

/// How a datatype lays out `count` elements.
struct datatype_layout {
    int count = 0;
    MPI_Aint extent = 0;
    MPI_Aint true_lb = 0;
    MPI_Aint true_extent = 0;
    int size = 0;

    /// Reads the layout of `count` elements of `datatype` (throws mpi_error).
    static datatype_layout of(MPI_Datatype datatype, int count);
    std::size_t span_bytes() const { return static_cast<std::size_t>(true_extent + (count - 1) * extent); }
    /// No holes: the data is the bytes [true_lb, true_lb + count * extent).
    bool contiguous() const { return size == extent && true_extent == extent; }
    /// Payload bytes of one message.
    std::size_t message_bytes() const { return static_cast<std::size_t>(size) * static_cast<std::size_t>(count); }
};

/// `count` elements at `buffer` on the private communicator `pc` (a net::channel). Messages
/// and payload bytes sent are added to `sent` (a failure counts as one message of 0 bytes).
struct datatype_channel {
    MPI_Comm pc;
    MPI_Datatype datatype;
    const datatype_layout& t;
    net::counters& sent;
    void* buffer = nullptr;

    maybe_failure recv(int source);
    void send(int dest, const maybe_failure& failed);
    /// Posts a receive from `source` into `into` (complete it with finish()).
    MPI_Request post_recv(int source, void* into) const;
    /// Waits for a posted receive; returns the failure it carried, if any.
    maybe_failure finish(MPI_Request& request, int source) const;
    /// Copies the elements `from` to `to`: memcpy without holes, else a message to self.
    void copy(const void* from, void* to) const;

private:
    maybe_failure after(const MPI_Status& status, int source) const;
};

} // namespace treefold::collective::detail
