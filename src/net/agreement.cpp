// The collective agreements (net/transport.hpp): compiled once here instead of in
// every program.
#include "treefold/net/transport.hpp"
#include "treefold/front_door/special_results.hpp"

#include <boost/mpi/collectives.hpp>

#include <climits>
#include <string>
#include <vector>

namespace treefold::net {

void agree_on_failure(const boost::mpi::communicator& comm, maybe_failure& failed, counters& count,
                      bool complete)
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

void check_same_call(const boost::mpi::communicator& comm, const call_signature& mine, counters& count)
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

namespace treefold::detail {

void agree_on_empty_call(const boost::mpi::communicator& comm, std::size_t values, int root, bool rooted)
{
    const std::int64_t mine[3] = {values != 0 ? comm.rank() : -1, root, -static_cast<std::int64_t>(root)};
    std::int64_t all[3] = {};
    boost::mpi::all_reduce(comm, mine, 3, all, boost::mpi::maximum<std::int64_t>());
    if (all[0] >= 0) {
        const int bad = static_cast<int>(all[0]);
        throw local_size_error(bad == comm.rank() ? failure::local_size(bad, values, 0).message()
                                                  : "treefold: rank " + std::to_string(bad) +
                                                        " passed local values but N = 0 (every block is empty)");
    }
    if (all[1] != -all[2]) {
        throw std::invalid_argument("treefold: the ranks passed different reduce roots (or some called all_reduce)");
    }
    if (rooted) {
        check_root(root, comm.size());
    }
}

} // namespace treefold::detail
