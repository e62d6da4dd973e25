#pragma once
/// Typed rank-ordered tree reductions over a Boost.MPI communicator: one contribution (a
/// value or an array of n values, combined element by element) per rank, any element type,
/// any callable operator, along a tree shape from topology/tree_shape.hpp.
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
///   (net/transport.hpp), on a private duplicate of the communicator (made once per
///   communicator, collectively, on the first call; shared with reduce.h).
/// - Failures: an operator that throws on one rank does not leave peers waiting: a failure
///   record travels in place of values. That rank rethrows its exception; the root, every
///   rank on the way to it (and, for all_reduce, every rank) throws
///   remote_failure (ranks that passed a different n: std::invalid_argument naming the
///   sizes, error.hpp's one mapping). A root outside [0, p)
///   throws std::invalid_argument on every rank before any message. All ranks must pass
///   the same n, root and shape, as with MPI_Reduce.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/error.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/collective/detail/walk.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <boost/mpi/communicator.hpp>

#include <bit>
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

/// ceil(log2 p): rounds of the binomial broadcast.
inline int broadcast_rounds(int p)
{
    return static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1)));
}

/// Combines this rank's values with its children's subtree values in rank order and sends
/// the result (or a failure) to the parent. On the shape's root position, `acc` ends with
/// the reduction unless a failure is returned.
template <class Shape, class T, class Op>
maybe_failure fold_subtree(const boost::mpi::communicator& pc, std::span<const T> in, std::vector<T>& acc,
                                    Op& op, net::counters& count, std::exception_ptr& own_error)
{
    const int p = pc.size();
    const int me = pc.rank();
    const std::size_t n = in.size();
    const auto children = Shape::children(me, p);
    maybe_failure failed;
    std::vector<T> inbox(n);
    bool have = false;
    auto take = [&](std::size_t k) {
        return net::values_channel<T>{pc, count, inbox.data(), n}.recv(children[k].position);
    };
    auto combine = [&](int piece, maybe_failure& f) {
        const T* values = piece < 0 ? in.data() : inbox.data();
        try {
            if (!have) {
                acc.assign(values, values + n);
                have = true;
            } else {
                for (std::size_t i = 0; i < n; ++i) {
                    acc[i] = Shape::fold_from_right ? op(std::as_const(values[i]), std::as_const(acc[i]))
                                                    : op(std::as_const(acc[i]), std::as_const(values[i]));
                }
            }
        } catch (...) {
            own_error = std::current_exception();
            f = failure::op_threw(me, own_error);
        }
    };
    detail::walk_subtree(children, me, Shape::fold_from_right, failed, take, combine);
    const int parent = Shape::parent(me, p);
    if (parent >= 0) {
        net::send_values_or_failure(pc, parent, acc.data(), n, failed, count);
    }
    return failed;
}

template <class Shape>
void record(const net::counters& count, std::uint64_t total, int p, int extra_rounds)
{
    counters_slot() = call_record{count.messages, count.bytes, total, &topology::one_port_rounds<Shape>, &Shape::height,
                                  p, extra_rounds};
}

/// tree_reduce to `root`, or with `all` tree_all_reduce (the shape's root broadcasts).
template <class Shape, class T, class Op>
void tree_call(const boost::mpi::communicator& comm, std::span<const T> in, std::span<T> out, Op& op, int root,
               bool all)
{
    const int p = comm.size();
    counters_slot() = {};
    if (!all) {
        treefold::check_root(root, p);
    }
    if ((all || comm.rank() == root) && out.size() < in.size()) {
        throw std::invalid_argument(std::string("treefold: ") + (all ? "tree_all_reduce" : "tree_reduce") +
                                    " output holds fewer values than the input");
    }
    const boost::mpi::communicator pc = net::private_communicator(comm);
    net::counters count;
    std::exception_ptr own_error;
    std::vector<T> acc;
    maybe_failure failed = fold_subtree<Shape>(pc, in, acc, op, count, own_error);
    const int top = Shape::root(p);
    acc.resize(in.size());
    net::values_channel<T> result{pc, count, acc.data(), acc.size()};
    if (all) {
        net::broadcast(result, p, pc.rank(), top, failed);
        record<Shape>(count, static_cast<std::uint64_t>(2 * (p - 1)), p, broadcast_rounds(p));
    } else {
        net::deliver(result, pc.rank(), top, root, failed);
        record<Shape>(count, static_cast<std::uint64_t>(p - 1 + (top != root ? 1 : 0)), p, top != root ? 1 : 0);
    }
    throw_if_failed(failed, own_error);
    if (all || pc.rank() == root) {
        std::move(acc.begin(), acc.end(), out.begin());
    }
}

} // namespace detail

/// Reduces `in` (n values per rank, the same n everywhere) element by element in rank
/// order along `Shape`; on `root` the result goes to out[0..n) (out must hold n values
/// there; it is not touched elsewhere). Collective.
template <tree_shape Shape, class T, class Op>
void tree_reduce(comm_view comm, std::span<const T> in, std::span<T> out, Op&& op,
                 int root)
{
    detail::tree_call<Shape>(comm, in, out, op, root, false);
}

/// Reduces one value per rank in rank order along `Shape`: the result on `root`, nullopt
/// elsewhere. Collective.
template <tree_shape Shape, class T, class Op>
std::optional<T> tree_reduce(comm_view comm, const T& in, Op&& op, int root)
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
void tree_all_reduce(comm_view comm, std::span<const T> in, std::span<T> out, Op&& op)
{
    detail::tree_call<Shape>(comm, in, out, op, 0, true);
}

/// One value per rank; the reduction on every rank. Collective.
template <tree_shape Shape, class T, class Op>
T tree_all_reduce(comm_view comm, const T& in, Op&& op)
{
    T result{};
    tree_all_reduce<Shape>(comm, std::span<const T>(&in, 1), std::span<T>(&result, 1), op);
    return result;
}

} // namespace treefold::collective
