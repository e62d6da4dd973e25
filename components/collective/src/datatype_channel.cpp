// The C entry points' transport (see treefold/collective/detail/datatype_channel.hpp).
#include "treefold/collective/detail/datatype_channel.hpp"

#include "treefold/net/transport.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstring>

namespace treefold::collective::detail {

void check(int rc)
{
    if (rc != MPI_SUCCESS) {
        throw mpi_error{rc};
    }
}

datatype_layout datatype_layout::of(MPI_Datatype datatype, int count)
{
    datatype_layout t;
    t.count = count;
    MPI_Aint lb = 0;
    check(MPI_Type_get_extent(datatype, &lb, &t.extent));
    check(MPI_Type_get_true_extent(datatype, &t.true_lb, &t.true_extent));
    check(MPI_Type_size(datatype, &t.size));
    return t;
}

maybe_failure datatype_channel::recv(int source)
{
    MPI_Status status;
    check(MPI_Recv(buffer, t.count, datatype, source, MPI_ANY_TAG, pc, &status));
    return after(status, source);
}

void datatype_channel::send(int dest, const maybe_failure& failed)
{
    if (failed) {
        net::counters ignored;
        send_failure(boost::mpi::communicator(pc, boost::mpi::comm_attach), dest, *failed, ignored);
    } else {
        check(MPI_Send(buffer, t.count, datatype, dest, net::tag_of(net::tag::values), pc));
        sent.bytes += t.message_bytes();
    }
    ++sent.messages;
}

MPI_Request datatype_channel::post_recv(int source, void* into) const
{
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Irecv(into, t.count, datatype, source, MPI_ANY_TAG, pc, &request));
    return request;
}

maybe_failure datatype_channel::finish(MPI_Request& request, int source) const
{
    MPI_Status status;
    check(MPI_Wait(&request, &status));
    return after(status, source);
}

void datatype_channel::copy(const void* from, void* to) const
{
    if (t.contiguous()) {
        std::memcpy(static_cast<unsigned char*>(to) + t.true_lb, static_cast<const unsigned char*>(from) + t.true_lb,
                    static_cast<std::size_t>(t.count) * static_cast<std::size_t>(t.extent));
        return;
    }
    int me = 0;
    check(MPI_Comm_rank(pc, &me));
    check(MPI_Sendrecv(from, t.count, datatype, me, net::tag::self_copy, to, t.count, datatype, me, net::tag::self_copy, pc,
                       MPI_STATUS_IGNORE));
}

maybe_failure datatype_channel::after(const MPI_Status& status, int source) const
{
    if (net::tag::kind_of(status.MPI_TAG) != net::tag::failure) {
        return std::nullopt;
    }
    return net::take_failure_record(boost::mpi::communicator(pc, boost::mpi::comm_attach), source);
}

} // namespace treefold::collective::detail
