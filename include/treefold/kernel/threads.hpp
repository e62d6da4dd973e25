#pragma once
/// Threads inside a rank: one tree node computed by several threads with the bits of one.
///
/// kernel::split<Inner> cuts a node's cover into t contiguous pieces, has each piece's
/// maximal nodes computed by `Inner` on some thread (the pieces' frontiers), and merges the
/// frontiers in index order on the calling thread. Every value is a node of the same fixed
/// tree, combined as op(left, right) exactly once, so the result has the bits of
/// Inner::reduce_node for every t and every way the pieces are cut (doc/design.md, "Threads
/// inside a rank"). The threads come from an executor (treefold/thread_pool.hpp): anything that
/// runs n tasks and waits (task_executor), such as the built-in thread_pool or an OpenMP
/// adapter (doc/guide.md).
/// Nothing here calls MPI.

#include "treefold/config.hpp"
#include "treefold/frontier.hpp"
#include "treefold/index_tree/node.hpp"
#include "treefold/thread_pool.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>


namespace treefold::kernel {

/// Default smallest piece (elements) worth a task of its own: below about 2^15 doubles the
/// hand-over to a worker costs more than the piece's sum. Only speed depends on it.
inline constexpr std::uint64_t default_min_piece = std::uint64_t{1} << 15;

/// Where a split kernel's pieces run: the executor, and the smallest piece worth a task.
struct split_context {
    /// Runs the pieces; its concurrency() is the number of pieces a node is cut into.
    executor_ref executor;
    /// The smallest piece worth a task (elements); nodes shorter than twice this are not cut.
    std::uint64_t min_piece = default_min_piece;
};

namespace detail {

/// The context of the split kernel calls made on this thread (set by split_scope).
inline thread_local const split_context* current_split = nullptr;

/// Clears this thread's split context for its lifetime: the pieces' kernels, some of which
/// may run on the calling thread, must not split again (a nested run of the same pool would
/// wait for itself), even when Inner is itself a split kernel.
class split_pause {
public:
    split_pause() noexcept : saved_(current_split) { current_split = nullptr; }
    split_pause(const split_pause&) = delete;
    split_pause& operator=(const split_pause&) = delete;
    ~split_pause() { current_split = saved_; }

private:
    const split_context* saved_;
};

/// Per calling thread, grown never shrunk: after the first call with t pieces, a split call
/// allocates nothing (the frontiers keep their capacity).
template <class T>
struct split_scratch {
    std::vector<frontier<T>> pieces;
    std::vector<std::exception_ptr> errors;
};

} // namespace detail

/// Makes the split kernel calls on this thread use `context` until the scope ends (then
/// the previous context, if any, is back). treefold::reducer opens one per call.
class split_scope {
public:
    /// Installs `context` (which must outlive the scope).
    explicit split_scope(const split_context& context) noexcept : previous_(detail::current_split)
    {
        detail::current_split = &context;
    }
    split_scope(const split_scope&) = delete;
    split_scope& operator=(const split_scope&) = delete;
    /// Puts back the context that was in use before (if any).
    ~split_scope() { detail::current_split = previous_; }

private:
    const split_context* previous_;
};

/// Inner::reduce_node(first, len, op) computed by up to context.executor.concurrency()
/// threads, with the same bits. The cover is cut into pieces of at least context.min_piece
/// elements (one piece: Inner on this thread, nothing else); each piece's maximal nodes are
/// computed by Inner on the executor's threads, then the pieces' frontiers are merged in
/// index order here. `op` is called on several threads at once. If it throws, every piece
/// still finishes and the exception of the lowest piece that threw is rethrown here.
template <class Inner, class T, class Op>
T reduce_node_split(const T* first, std::uint64_t len, Op& op, const split_context& context)
{
    const std::uint64_t min_piece = std::max<std::uint64_t>(context.min_piece, 1);
    const std::uint64_t t = std::min<std::uint64_t>(context.executor.concurrency(), len / min_piece);
    if (t <= 1) {
        return Inner::reduce_node(first, len, op);
    }
    // Cuts on multiples of a power of two (at most 1/16 of a piece), so the pieces' frontiers
    // hold few, large nodes; any cuts would give the same bits.
    const std::uint64_t grain = std::bit_floor(std::max<std::uint64_t>(len / (16 * t), 1));
    const auto cut = [&](std::uint64_t i) {
        const std::uint64_t at = len / t * i + len % t * i / t; // floor(len * i / t) without overflow
        return i == t ? len : at / grain * grain;
    };
    // A reference, not the thread_local itself: a lambda naming a thread_local would reach
    // each worker's own (empty) copy.
    thread_local detail::split_scratch<T> mine;
    detail::split_scratch<T>& scratch = mine;
    if (scratch.pieces.size() < t) {
        scratch.pieces.resize(t);
        scratch.errors.resize(t);
    }
    auto body = [&](std::size_t i) {
        frontier<T>& piece = scratch.pieces[i];
        try {
            piece.reset(len);
            index_tree::for_each_maximal_node(cut(i), cut(i + 1), len, [&](index_tree::node v) {
                piece.push(v, Inner::reduce_node(first + v.x, index_tree::cover_size(v, len), op), op);
            });
            scratch.errors[i] = nullptr;
        } catch (...) {
            scratch.errors[i] = std::current_exception();
        }
    };
    {
        const detail::split_pause pause;
        context.executor.run(static_cast<std::size_t>(t), task_ref(body));
    }
    for (std::size_t i = 0; i < t; ++i) {
        if (scratch.errors[i]) {
            std::exception_ptr e = std::move(scratch.errors[i]);
            for (std::size_t j = i; j < t; ++j) {
                scratch.errors[j] = nullptr;
            }
            std::rethrow_exception(e);
        }
    }
    frontier<T>& whole = scratch.pieces[0];
    for (std::size_t i = 1; i < t; ++i) {
        whole.merge(scratch.pieces[i], op);
    }
    return whole.pop_back(); // [0, len) is one node: the frontier holds exactly it
}

/// Kernel policy: Inner's nodes computed by several threads (reduce_node_split) while a
/// split_scope is open on the calling thread, Inner itself otherwise. Same bits as Inner.
template <class Inner>
struct split {
    /// Same contract as kernel::scalar::reduce_node.
    template <class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op)
    {
        const split_context* context = detail::current_split;
        if (context == nullptr) {
            return Inner::reduce_node(first, len, op);
        }
        return reduce_node_split<Inner>(first, len, op, *context);
    }
};

} // namespace treefold::kernel
