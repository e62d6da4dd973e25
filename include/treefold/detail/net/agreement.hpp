#pragma once
/// Collective agreements a call makes where its exchange alone cannot tell every rank: that
/// some rank failed (an operator throwing in a rank's last combine of an allreduce schedule,
/// where no message follows), and the opt-in checks that the ranks made the same call.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/detail/net/transport.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <climits>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace treefold::net {

/// Collective: afterwards every rank holds a failure if any rank did (a rank keeps a
/// `complete` one; the others take the failure of the lowest rank with a complete one, or
/// with any one where none is). A failure read from a fixed-size record whose text may have
/// been cut is not complete. One MPI_Allreduce of an int while nothing failed, plus a
/// broadcast of the record when something did.
inline void agree_on_failure(const boost::mpi::communicator& comm, std::optional<failure>& failed, counters& count,
                             bool complete = true)
{
    const int size = comm.size();
    const int key = !failed ? INT_MAX : complete ? comm.rank() : size + comm.rank();
    const int first = boost::mpi::all_reduce(comm, key, boost::mpi::minimum<int>());
    ++count.collectives;
    count.collective_bytes += sizeof(int);
    if (first == INT_MAX) {
        return;
    }
    const int root = first < size ? first : first - size;
    std::vector<char> record;
    if (comm.rank() == root) {
        record = encode(*failed);
    }
    boost::mpi::broadcast(comm, record, root);
    if (!failed || (!complete && comm.rank() != root)) {
        failed = decode_failure(record.data(), record.size());
    }
}

/// What the opt-in checks compare across ranks, per call.
struct call_signature {
    std::int64_t root = -1;      ///< reduce's root; -1 for all_reduce
    std::int64_t values = 0;     ///< the size of this rank's span
    std::int64_t expected = 0;   ///< the size of this rank's block
    std::uint64_t op_identity = 0; ///< a hash of the operator's type name
    std::uint64_t element_identity = 0; ///< a hash of the element type's name and size
    bool nonblocking = false;    ///< iall_reduce / ireduce rather than all_reduce / reduce
};

/// Collective (one MPI_Allgather of 40 bytes per rank): throws the same exception on every
/// rank if the ranks' roots, call forms, element types or operator types differ
/// (call_mismatch) or any rank's size is wrong (local_size_error). Every rank decides from the
/// same gathered data, so all throw or none does.
inline void check_same_call(const boost::mpi::communicator& comm, const call_signature& mine, counters& count)
{
    constexpr int fields = 5;
    // The call form rides in the root's field (a root is below 2^31), so the gather stays 40 bytes.
    constexpr std::int64_t nonblocking_bit = std::int64_t{1} << 40;
    const std::int64_t row[fields] = {mine.root + (mine.nonblocking ? nonblocking_bit : 0), mine.values, mine.expected,
                                      static_cast<std::int64_t>(mine.op_identity),
                                      static_cast<std::int64_t>(mine.element_identity)};
    std::vector<std::int64_t> rows(fields * static_cast<std::size_t>(comm.size()));
    boost::mpi::all_gather(comm, row, fields, rows.data());
    ++count.collectives;
    count.collective_bytes += sizeof row;
    std::vector<call_signature> all(static_cast<std::size_t>(comm.size()));
    for (std::size_t r = 0; r < all.size(); ++r) {
        const std::int64_t* x = rows.data() + fields * r;
        const bool nonblocking = x[0] >= nonblocking_bit / 2;
        all[r] = {nonblocking ? x[0] - nonblocking_bit : x[0], x[1], x[2], static_cast<std::uint64_t>(x[3]),
                  static_cast<std::uint64_t>(x[4]), nonblocking};
    }
    using kind = call_mismatch::kind;
    for (std::size_t r = 0; r < all.size(); ++r) {
        const call_signature& s = all[r];
        if (s.nonblocking != all[0].nonblocking) {
            auto form = [](bool nonblocking) { return nonblocking ? "a nonblocking call" : "a blocking call"; };
            throw call_mismatch(kind::form, "treefold (TREEFOLD_CHECK): rank 0 made " + std::string(form(all[0].nonblocking)) +
                                                " but rank " + std::to_string(r) + " made " + form(s.nonblocking) +
                                                " (iall_reduce/ireduce against all_reduce/reduce)");
        }
        if (s.root != all[0].root) {
            auto name = [](std::int64_t root) { return root < 0 ? std::string("all_reduce") : "reduce to " + std::to_string(root); };
            throw call_mismatch(kind::root, "treefold (TREEFOLD_CHECK): rank 0 called " + name(all[0].root) +
                                                " but rank " + std::to_string(r) + " called " + name(s.root));
        }
        if (s.element_identity != all[0].element_identity) {
            throw call_mismatch(kind::element, "treefold (TREEFOLD_CHECK): rank " + std::to_string(r) +
                                                   " reduces values of another element type (or size) than rank 0");
        }
        if (s.op_identity != all[0].op_identity) {
            throw call_mismatch(kind::op, "treefold (TREEFOLD_CHECK): rank " + std::to_string(r) +
                                              " passed an operator of another type than rank 0");
        }
    }
    for (std::size_t r = 0; r < all.size(); ++r) {
        if (all[r].values != all[r].expected) {
            throw local_size_error(failure::local_size(static_cast<int>(r), static_cast<std::uint64_t>(all[r].values),
                                                       static_cast<std::uint64_t>(all[r].expected))
                                       .message());
        }
    }
}

} // namespace treefold::net
