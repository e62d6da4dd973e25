// The transport's code that does not depend on the value type (net/transport.hpp):
// compiled once here instead of in every program.
#include "treefold/net/transport.hpp"

#include <string>

namespace treefold::net {

namespace {

/// Thrown when `source` sent a message of a call this rank has not reached.
[[noreturn]] void later_call_from(int source)
{
    throw std::logic_error("treefold: rank " + std::to_string(source) +
                           " sent a message of a later call: the ranks disagree about the calls "
                           "(a root or a call that differs between ranks)");
}

} // namespace

failure codec_failure(const boost::mpi::communicator& comm)
{
    codec_error() = std::current_exception();
    return failure::codec_threw(comm.rank(), codec_error());
}

bool skip_other_call(const boost::mpi::communicator& comm, int source, const boost::mpi::status& st)
{
    const int order = tag::call_order(st.tag(), current_call());
    if (order == 0) {
        return false;
    }
    if (order > 0) {
        later_call_from(source);
    }
    std::vector<char> stale(static_cast<std::size_t>(*st.template count<char>()) + 1);
    comm.recv(source, st.tag(), stale.data(), static_cast<int>(stale.size() - 1));
    return true;
}

boost::mpi::status probe_call(const boost::mpi::communicator& comm, int source)
{
    for (;;) {
        const boost::mpi::status st = comm.probe(source, boost::mpi::any_tag);
        if (!skip_other_call(comm, source, st)) {
            return st;
        }
    }
}

void send_failure(const boost::mpi::communicator& comm, int dest, const failure& f, counters& count)
{
    const std::vector<char> record = encode(f);
    static constexpr char none = 0;
    comm.send(dest, tag_of(tag::failure), &none, 0);
    comm.send(dest, tag_of(tag::failure_record), record.data(), static_cast<int>(record.size()));
    ++count.messages;
    count.bytes += record.size();
}

failure take_failure_record(const boost::mpi::communicator& comm, int source)
{
    const int t = tag_of(tag::failure_record);
    const boost::mpi::status st = comm.probe(source, t);
    std::vector<char> record(static_cast<std::size_t>(*st.template count<char>()));
    comm.recv(source, t, record.data(), static_cast<int>(record.size()));
    return decode_failure(record.data(), record.size());
}

maybe_failure recv_message(const boost::mpi::communicator& comm, int source, std::vector<char>& bytes)
{
    const boost::mpi::status st = probe_call(comm, source);
    if (tag::kind_of(st.tag()) == tag::failure) {
        comm.recv(source, st.tag());
        return take_failure_record(comm, source);
    }
    bytes.resize(static_cast<std::size_t>(*st.template count<char>()) + 1); // + 1: never a null buffer
    comm.recv(source, st.tag(), bytes.data(), static_cast<int>(bytes.size() - 1));
    bytes.pop_back();
    return std::nullopt;
}

maybe_failure posted_receive::wait(std::size_t& bytes)
{
    MPI_Status st;
    for (;;) {
        if (const int rc = MPI_Wait(&request_, &st); rc != MPI_SUCCESS) {
            throw boost::mpi::exception("MPI_Wait", rc);
        }
        const int order = tag::call_order(st.MPI_TAG, current_call());
        if (order == 0) {
            break;
        }
        if (order > 0) {
            later_call_from(source_);
        }
        repost(); // an earlier call's leftover took the receive
    }
    bytes = 0;
    if (tag::kind_of(st.MPI_TAG) == tag::failure) {
        return take_failure_record(*comm_, source_);
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    bytes = static_cast<std::size_t>(count);
    return std::nullopt;
}

void posted_receive::repost()
{
    if (const int rc = MPI_Irecv(buffer_, capacity_, MPI_BYTE, source_, MPI_ANY_TAG, *comm_, &request_);
        rc != MPI_SUCCESS) {
        throw boost::mpi::exception("MPI_Irecv", rc);
    }
}

void send_queue::send_failure(const boost::mpi::communicator& comm, int dest, std::size_t m, const failure& f,
                              counters& count)
{
    std::vector<char>& record = buffer(m);
    record = encode(f);
    post(comm, dest, tag::failure, empty_);
    post(comm, dest, tag::failure_record, record);
    ++count.messages;
    count.bytes += record.size();
}

void send_queue::wait_posted()
{
    const int rc = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    if (rc != MPI_SUCCESS) {
        throw boost::mpi::exception("MPI_Waitall", rc);
    }
}

void send_queue::post(const boost::mpi::communicator& comm, int dest, int kind, const std::vector<char>& bytes)
{
    static constexpr char none = 0; // never a null buffer
    requests_.emplace_back();
    if (const int rc = MPI_Isend(bytes.empty() ? &none : bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE,
                                 dest, tag_of(kind), comm, &requests_.back());
        rc != MPI_SUCCESS) {
        requests_.pop_back();
        throw boost::mpi::exception("MPI_Isend", rc);
    }
}

} // namespace treefold::net
