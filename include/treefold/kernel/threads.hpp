#pragma once
/// Threads inside a rank: one tree node computed by several threads with the bits of one.
///
/// kernel::split<Inner> cuts a node's cover into t contiguous pieces, has each piece's
/// maximal nodes computed by `Inner` on some thread (the pieces' frontiers), and merges the
/// frontiers in index order on the calling thread. Every value is a node of the same fixed
/// tree, combined as op(left, right) exactly once, so the result has the bits of
/// Inner::reduce_node for every t and every way the pieces are cut (doc/design.md, "Threads
/// inside a rank"). The threads come from an executor: anything that runs n tasks and waits
/// (task_executor), such as the built-in thread_pool or an OpenMP adapter (doc/guide.md).
/// Nothing here calls MPI.

#include "treefold/config.hpp"
#include "treefold/frontier.hpp"
#include "treefold/tree/decompose.hpp"
#include "treefold/tree/node.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace treefold {

/// A non-owning reference to a task body: `task(i)` calls the referenced callable with the
/// task's index. The callable must outlive the reference; treefold's own task bodies never
/// throw.
class task_ref {
public:
    /// Refers to `f`, any callable as `f(std::size_t)`.
    template <class F>
        requires(!std::same_as<std::remove_cvref_t<F>, task_ref>) && std::invocable<F&, std::size_t>
    task_ref(F& f) noexcept // NOLINT: implicit, like a function reference
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* object, std::size_t i) { (*static_cast<F*>(object))(i); })
    {
    }

    /// Runs task `i`.
    void operator()(std::size_t i) const { call_(object_, i); }

private:
    void* object_;
    void (*call_)(void*, std::size_t);
};

/// Something that runs tasks on threads: `e.concurrency()` is how many threads it runs them
/// on (at least 1; the number of pieces a node is cut into), and `e.run(n, task)` calls
/// `task(i)` once for every i in [0, n), on any of its threads (the calling thread included,
/// if it likes) in any order, and returns when all n calls have returned. treefold's task
/// bodies catch their own exceptions, so `run` never has to handle one.
template <class E>
concept task_executor = requires(E& e, std::size_t n, const task_ref& task) {
    { e.concurrency() } -> std::convertible_to<std::size_t>;
    e.run(n, task);
};

/// The built-in executor: a fixed set of std::jthread workers, created once, and the calling
/// thread, which takes tasks too. Tasks are handed out one index at a time. One run at a
/// time: a second thread calling run waits for the first run to end (so a pool may be
/// shared by several reducers, even on several threads).
class thread_pool {
public:
    /// A pool running tasks on `threads` threads: the caller and threads - 1 workers.
    /// `threads` = 0 throws std::invalid_argument.
    explicit thread_pool(std::size_t threads)
    {
        if (threads == 0) {
            throw std::invalid_argument("treefold: a thread_pool needs at least 1 thread, got 0");
        }
        workers_.reserve(threads - 1);
        for (std::size_t i = 1; i < threads; ++i) {
            workers_.emplace_back([this](std::stop_token stop) { work(stop); });
        }
    }
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;
    /// Stops and joins the workers (no run may be in progress).
    ~thread_pool()
    {
        for (auto& w : workers_) {
            w.request_stop();
        }
        wake_.notify_all();
        workers_.clear();
    }

    /// Threads tasks run on (workers + the caller).
    std::size_t concurrency() const noexcept { return workers_.size() + 1; }

    /// Calls task(i) for every i in [0, n) and returns when all have returned. `task` must not
    /// throw (an exception escaping a worker ends the program, as for any std::thread), nor
    /// call run on the same pool (it would wait for itself).
    void run(std::size_t n, const task_ref& task)
    {
        const std::lock_guard one_run(run_lock_);
        if (workers_.empty() || n <= 1) {
            for (std::size_t i = 0; i < n; ++i) {
                task(i);
            }
            return;
        }
        {
            const std::lock_guard lock(lock_);
            task_ = &task;
            n_ = n;
            next_.store(0, std::memory_order_relaxed);
            busy_ = workers_.size();
            ++generation_;
        }
        wake_.notify_all();
        take_tasks();
        std::unique_lock lock(lock_);
        done_.wait(lock, [this] { return busy_ == 0; });
        task_ = nullptr;
    }

private:
    void take_tasks()
    {
        for (std::size_t i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) {
            (*task_)(i);
        }
    }

    void work(std::stop_token stop)
    {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock lock(lock_);
                if (!wake_.wait(lock, stop, [&] { return generation_ != seen; })) {
                    return; // stop requested
                }
                seen = generation_;
            }
            take_tasks();
            const std::lock_guard lock(lock_);
            if (--busy_ == 0) {
                done_.notify_one();
            }
        }
    }

    std::mutex run_lock_; // one run at a time
    std::mutex lock_;     // guards the fields below (next_ is claimed without it)
    std::condition_variable_any wake_;
    std::condition_variable done_;
    const task_ref* task_ = nullptr;
    std::size_t n_ = 0;
    std::atomic<std::size_t> next_{0};
    std::size_t busy_ = 0;          // workers still taking tasks in this generation
    std::uint64_t generation_ = 0; // one per run: wakes every worker exactly once
    std::vector<std::jthread> workers_; // last: joined before the members above go
};

/// Any task_executor, by reference and without its type (the executor must outlive it).
class executor_ref {
public:
    /// Refers to `e`.
    template <task_executor E>
        requires(!std::same_as<std::remove_cvref_t<E>, executor_ref>)
    executor_ref(E& e) noexcept // NOLINT: implicit, like a reference
        : object_(std::addressof(e)),
          run_([](void* o, std::size_t n, const task_ref& task) { static_cast<E*>(o)->run(n, task); }),
          concurrency_([](void* o) { return static_cast<std::size_t>(static_cast<E*>(o)->concurrency()); })
    {
    }
    /// The executor's concurrency().
    std::size_t concurrency() const { return concurrency_(object_); }
    /// The executor's run(n, task).
    void run(std::size_t n, const task_ref& task) const { run_(object_, n, task); }

private:
    void* object_;
    void (*run_)(void*, std::size_t, const task_ref&);
    std::size_t (*concurrency_)(void*);
};

} // namespace treefold

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
            tree::for_each_maximal_node(cut(i), cut(i + 1), len, [&](tree::node v) {
                piece.push(v, Inner::reduce_node(first + v.x, tree::cover_size(v, len), op), op);
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
