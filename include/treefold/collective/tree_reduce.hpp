#pragma once
/// Typed rank-ordered tree reductions over a Boost.MPI communicator: one contribution (a
/// value or an array of n values, combined element by element) per rank, any element type,
/// any callable operator, along a tree shape from collective/tree_shape.hpp.
///
/// ```cpp
/// using namespace treefold::collective;
/// auto op = [scale](const M& a, const M& b) { return product(a, b) * scale; };
/// std::optional<M> at_root = tree_reduce<fibonacci>(world, mine, op, 0);
/// M everywhere = tree_all_reduce<binomial>(world, mine, op);
/// ```
///
/// - Order: operands are combined in rank order, op(lower ranks, higher ranks); neither
///   associativity nor commutativity of the bits is assumed, and for a given p and shape
///   the bracketing is fixed (the same as the C entry points in reduce.h use).
/// - Operator: called as op(const T&, const T&) -> T on the calling rank; the object passed
///   in is the one called, so state it captures or changes stays with the caller.
/// - Transport: trivially copyable T as raw bytes, other T through Boost.Serialization
///   (exchange/wire.hpp), on a private duplicate of the communicator (made once per
///   communicator, collectively, on the first call; shared with reduce.h).
/// - Failures: an operator that throws on one rank does not leave peers waiting: a failure
///   record travels in place of values. That rank rethrows its exception; the root, every
///   rank on the way to it (and, for all_reduce, every rank) throws
///   exchange::remote_failure. A root outside [0, p)
///   throws std::invalid_argument on every rank before any message. All ranks must pass
///   the same n, root and shape, as with MPI_Reduce.

#include "treefold/collective/tree_shape.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/wire.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treefold::collective {

/// What the last reduction call on this thread did (typed versions and C entry points).
struct reduce_counters {
    std::uint64_t messages = 0;       ///< messages this rank sent
    std::uint64_t bytes = 0;          ///< payload bytes this rank sent
    std::uint64_t total_messages = 0; ///< messages of the whole call, all ranks together
    int rounds = 0; ///< schedule length if a rank receives one message per round (one-port)
    int depth = 0;  ///< messages on the longest dependency chain (unlimited receives per round)
};

/// Counters of the last call on this thread (rounds and depth are worked out here, from
/// the shape, so calls do not pay for them).
reduce_counters last_reduce_counters();

namespace detail {

/// What a call leaves behind for last_reduce_counters().
struct call_record {
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    std::uint64_t total_messages = 0;
    int (*rounds)(int) = nullptr; ///< the shape's one_port_rounds
    int (*depth)(int) = nullptr;  ///< the shape's height
    int p = 0;
    int extra_rounds = 0; ///< forwarding to another root, or the broadcast
};

/// The record the next call fills in (thread-local).
call_record& counters_slot();

/// The private duplicate of `comm` that treefold's collectives talk on (errors return).
/// Created on the first call with `comm` (collective: every rank of comm must call) and
/// freed when `comm` is freed. Returns an MPI error code, MPI_SUCCESS when *out is set.
int private_comm(MPI_Comm comm, MPI_Comm* out);

/// The private communicator as a Boost.MPI communicator (not owning it).
inline boost::mpi::communicator private_communicator(const boost::mpi::communicator& comm)
{
    MPI_Comm dup = MPI_COMM_NULL;
    const int rc = private_comm(static_cast<MPI_Comm>(comm), &dup);
    if (rc != MPI_SUCCESS) {
        throw std::runtime_error("treefold: could not duplicate the communicator (MPI error " +
                                 std::to_string(rc) + ")");
    }
    return boost::mpi::communicator(dup, boost::mpi::comm_attach);
}

/// ceil(log2 p): rounds of the binomial broadcast.
inline int broadcast_rounds(int p)
{
    int r = 0;
    while ((std::int64_t{1} << r) < p) {
        ++r;
    }
    return r;
}

/// Combines this rank's values with its children's subtree values in rank order and sends
/// the result (or a failure) to the parent. On the shape's root position, `acc` ends with
/// the reduction unless a failure is returned.
template <class Shape, class T, class Op>
std::optional<exchange::failure> fold_subtree(const boost::mpi::communicator& pc, std::span<const T> in,
                                              std::vector<T>& acc, Op& op, exchange::counters& count,
                                              std::exception_ptr& own_error)
{
    const int p = pc.size();
    const int me = pc.rank();
    const std::size_t n = in.size();
    const auto children = Shape::children(me, p);
    std::optional<exchange::failure> failed;
    std::vector<T> inbox(n);
    bool have = false;

    // The pieces in position order: children before this rank, this rank, children after.
    std::vector<int> pieces; // child index, or -1 for the own values
    bool own_placed = false;
    for (std::size_t c = 0; c < children.size(); ++c) {
        if (!own_placed && children[c].subtree_begin > me) {
            pieces.push_back(-1);
            own_placed = true;
        }
        pieces.push_back(static_cast<int>(c));
    }
    if (!own_placed) {
        pieces.push_back(-1);
    }
    const bool from_right = Shape::fold_from_right;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        const int piece = pieces[from_right ? pieces.size() - 1 - k : k];
        const T* values = in.data();
        if (piece >= 0) {
            std::optional<exchange::failure> remote;
            const int source = children[static_cast<std::size_t>(piece)].position;
            const std::size_t got = exchange::wire<T>::recv(pc, source, inbox.data(), n, remote);
            if (remote) {
                failed = failed ? failed : remote;
                continue;
            }
            if (got != n) {
                failed = failed ? failed : exchange::failure{exchange::failure::code::local_size, source, got, n};
                continue;
            }
            values = inbox.data();
        }
        if (failed) {
            continue; // keep receiving so no child waits
        }
        try {
            if (!have) {
                acc.assign(values, values + n);
                have = true;
            } else if (from_right) {
                for (std::size_t i = 0; i < n; ++i) {
                    acc[i] = op(std::as_const(values[i]), std::as_const(acc[i]));
                }
            } else {
                for (std::size_t i = 0; i < n; ++i) {
                    acc[i] = op(std::as_const(acc[i]), std::as_const(values[i]));
                }
            }
        } catch (...) {
            own_error = std::current_exception();
            failed = exchange::failure{exchange::failure::code::op_threw, me, 0, 0};
        }
    }
    const int parent = Shape::parent(me, p);
    if (parent >= 0) {
        if (failed) {
            exchange::wire<T>::send_failure(pc, parent, *failed, count);
        } else {
            exchange::wire<T>::send(pc, parent, acc.data(), n, count);
        }
    }
    return failed;
}

/// Binomial broadcast of n values (or of a failure) from `from` to every rank.
template <class T>
void broadcast_values(const boost::mpi::communicator& pc, int from, std::vector<T>& values,
                      std::optional<exchange::failure>& failed, exchange::counters& count)
{
    const int p = pc.size();
    const int me = (pc.rank() - from + p) % p;
    const std::size_t n = values.size();
    int mask = 1;
    while (mask < p) {
        if ((me & mask) != 0) {
            std::optional<exchange::failure> remote;
            const int source = (me - mask + from) % p;
            const std::size_t got = exchange::wire<T>::recv(pc, source, values.data(), n, remote);
            if (remote) {
                failed = remote;
            } else if (got != n) {
                failed = exchange::failure{exchange::failure::code::local_size, source, got, n};
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (me + mask < p) {
            const int dest = (me + mask + from) % p;
            if (failed) {
                exchange::wire<T>::send_failure(pc, dest, *failed, count);
            } else {
                exchange::wire<T>::send(pc, dest, values.data(), n, count);
            }
        }
    }
}

inline void check_root(int root, int p)
{
    if (root < 0 || root >= p) {
        throw std::invalid_argument("treefold: reduce root " + std::to_string(root) +
                                    " is not a rank of a communicator of size " + std::to_string(p));
    }
}

/// Throws what a failed call throws on this rank (see the file comment).
inline void raise(const std::optional<exchange::failure>& failed, const std::exception_ptr& own_error)
{
    if (own_error) {
        std::rethrow_exception(own_error);
    }
    if (failed) {
        throw exchange::remote_failure(*failed);
    }
}

template <class Shape>
void record(const exchange::counters& count, std::uint64_t total, int p, int extra_rounds)
{
    counters_slot() = call_record{count.messages, count.bytes, total, &one_port_rounds<Shape>, &Shape::height,
                                  p, extra_rounds};
}

} // namespace detail

/// Reduces `in` (n values per rank, the same n everywhere) element by element in rank
/// order along `Shape`; on `root` the result goes to out[0..n) (out must hold n values
/// there; it is not touched elsewhere). Collective.
template <tree_shape Shape, class T, class Op>
void tree_reduce(const boost::mpi::communicator& comm, std::span<const T> in, std::span<T> out, Op&& op,
                 int root)
{
    const int p = comm.size();
    detail::counters_slot() = {};
    detail::check_root(root, p);
    if (comm.rank() == root && out.size() < in.size()) {
        throw std::invalid_argument("treefold: tree_reduce output holds fewer values than the input");
    }
    const boost::mpi::communicator pc = detail::private_communicator(comm);
    exchange::counters count;
    std::exception_ptr own_error;
    std::vector<T> acc;
    std::optional<exchange::failure> failed = detail::fold_subtree<Shape>(pc, in, acc, op, count, own_error);
    const int top = Shape::root(p);
    if (top != root) {
        if (pc.rank() == top) {
            if (failed) {
                exchange::wire<T>::send_failure(pc, root, *failed, count);
            } else {
                exchange::wire<T>::send(pc, root, acc.data(), acc.size(), count);
            }
        } else if (pc.rank() == root) {
            std::optional<exchange::failure> remote;
            acc.resize(in.size());
            const std::size_t got = exchange::wire<T>::recv(pc, top, acc.data(), acc.size(), remote);
            if (remote || got != in.size()) {
                failed = failed ? failed : remote;
            }
        }
    }
    detail::record<Shape>(count, static_cast<std::uint64_t>(p - 1 + (top != root ? 1 : 0)), p,
                          top != root ? 1 : 0);
    if (pc.rank() == root || failed || own_error) {
        detail::raise(failed, own_error);
    }
    if (pc.rank() == root) {
        std::move(acc.begin(), acc.end(), out.begin());
    }
}

/// Reduces one value per rank in rank order along `Shape`: the result on `root`, nullopt
/// elsewhere. Collective.
template <tree_shape Shape, class T, class Op>
std::optional<T> tree_reduce(const boost::mpi::communicator& comm, const T& in, Op&& op, int root)
{
    T result{};
    tree_reduce<Shape>(comm, std::span<const T>(&in, 1), std::span<T>(&result, 1), op, root);
    if (comm.rank() != root) {
        return std::nullopt;
    }
    return result;
}

/// Reduce to the shape's root, then a binomial broadcast: every rank receives the same
/// bits in out[0..n). Failures are thrown on every rank. Collective.
template <tree_shape Shape, class T, class Op>
void tree_all_reduce(const boost::mpi::communicator& comm, std::span<const T> in, std::span<T> out, Op&& op)
{
    const int p = comm.size();
    detail::counters_slot() = {};
    if (out.size() < in.size()) {
        throw std::invalid_argument("treefold: tree_all_reduce output holds fewer values than the input");
    }
    const boost::mpi::communicator pc = detail::private_communicator(comm);
    exchange::counters count;
    std::exception_ptr own_error;
    std::vector<T> acc;
    std::optional<exchange::failure> failed = detail::fold_subtree<Shape>(pc, in, acc, op, count, own_error);
    acc.resize(in.size());
    detail::broadcast_values(pc, Shape::root(p), acc, failed, count);
    detail::record<Shape>(count, static_cast<std::uint64_t>(2 * (p - 1)), p, detail::broadcast_rounds(p));
    detail::raise(failed, own_error);
    std::move(acc.begin(), acc.end(), out.begin());
}

/// One value per rank; the reduction on every rank. Collective.
template <tree_shape Shape, class T, class Op>
T tree_all_reduce(const boost::mpi::communicator& comm, const T& in, Op&& op)
{
    T result{};
    tree_all_reduce<Shape>(comm, std::span<const T>(&in, 1), std::span<T>(&result, 1), op);
    return result;
}

} // namespace treefold::collective
