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

/// Collective: afterwards every rank holds a failure if any rank did (a rank keeps its own;
/// the others take the failure of the lowest rank that has one). One MPI_Allreduce of an int
/// while nothing failed, plus a broadcast of the record when something did.
inline void agree_on_failure(const boost::mpi::communicator& comm, std::optional<failure>& failed, counters& count)
{
    const int first = boost::mpi::all_reduce(comm, failed ? comm.rank() : INT_MAX, boost::mpi::minimum<int>());
    ++count.collectives;
    count.collective_bytes += sizeof(int);
    if (first == INT_MAX) {
        return;
    }
    std::vector<char> record;
    if (comm.rank() == first) {
        record = encode(*failed);
    }
    boost::mpi::broadcast(comm, record, first);
    if (!failed) {
        failed = decode_failure(record.data(), record.size());
    }
}

/// What the opt-in checks compare across ranks, per call.
struct call_signature {
    std::int64_t root = -1;      ///< reduce's root; -1 for all_reduce
    std::int64_t values = 0;     ///< the size of this rank's span
    std::int64_t expected = 0;   ///< the size of this rank's block
    std::uint64_t op_identity = 0; ///< a hash of the operator's type name
};

/// Collective (one MPI_Allgather of 32 bytes per rank): throws the same std::invalid_argument
/// on every rank if the ranks' roots or operator identities differ or any rank's size is
/// wrong. Every rank decides from the same gathered data, so all throw or none does.
inline void check_same_call(const boost::mpi::communicator& comm, const call_signature& mine, counters& count)
{
    const std::int64_t row[4] = {mine.root, mine.values, mine.expected, static_cast<std::int64_t>(mine.op_identity)};
    std::vector<std::int64_t> rows(4 * static_cast<std::size_t>(comm.size()));
    boost::mpi::all_gather(comm, row, 4, rows.data());
    ++count.collectives;
    count.collective_bytes += sizeof row;
    std::vector<call_signature> all(static_cast<std::size_t>(comm.size()));
    for (std::size_t r = 0; r < all.size(); ++r) {
        all[r] = {rows[4 * r], rows[4 * r + 1], rows[4 * r + 2], static_cast<std::uint64_t>(rows[4 * r + 3])};
    }
    for (std::size_t r = 0; r < all.size(); ++r) {
        const call_signature& s = all[r];
        if (s.root != all[0].root) {
            auto name = [](std::int64_t root) { return root < 0 ? std::string("all_reduce") : "reduce to " + std::to_string(root); };
            throw std::invalid_argument("treefold (TREEFOLD_CHECK): rank 0 called " + name(all[0].root) + " but rank " +
                                        std::to_string(r) + " called " + name(s.root));
        }
        if (s.op_identity != all[0].op_identity) {
            throw std::invalid_argument("treefold (TREEFOLD_CHECK): rank " + std::to_string(r) +
                                        " passed an operator of another type than rank 0");
        }
    }
    for (std::size_t r = 0; r < all.size(); ++r) {
        if (all[r].values != all[r].expected) {
            throw std::invalid_argument(failure::local_size(static_cast<int>(r), static_cast<std::uint64_t>(all[r].values),
                                                            static_cast<std::uint64_t>(all[r].expected))
                                            .message());
        }
    }
}

} // namespace treefold::net
