#pragma once
/// Executors for threads inside a rank: task_ref (a task body by reference), the
/// task_executor concept (anything that runs n tasks and waits), the built-in thread_pool and
/// executor_ref (any executor without its type). kernel::split (kernel/threads.hpp) runs a
/// node's pieces on one. Nothing here calls MPI or knows about reductions.

#include "treefold/config.hpp"

#include <concepts>
#include <cstddef>
#include <memory>
#include <type_traits>

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
    explicit thread_pool(std::size_t threads);
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;
    /// Stops and joins the workers (no run may be in progress).
    ~thread_pool();

    /// Threads tasks run on (workers + the caller).
    std::size_t concurrency() const noexcept;

    /// Calls task(i) for every i in [0, n) and returns when all have returned. `task` must not
    /// throw (an exception escaping a worker ends the program, as for any std::thread), nor
    /// call run on the same pool (it would wait for itself).
    void run(std::size_t n, const task_ref& task);

private:
    // The workers, locks and condition variables live in src/kernel/thread_pool.cpp, so a
    // program that includes this header does not compile <thread>, <mutex> and their kin.
    struct state;
    std::unique_ptr<state> state_;
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
