// The built-in executor's workers (thread_pool.hpp): compiled once here, so a program that
// includes the header does not compile <thread>, <mutex> and their kin.
#include "treefold/thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <thread>
#include <vector>

namespace treefold {

struct thread_pool::state {
    void take_tasks()
    {
        for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
            (*task)(i);
        }
    }

    void work(std::stop_token stop)
    {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock held(lock);
                if (!wake.wait(held, stop, [&] { return generation != seen; })) {
                    return; // stop requested
                }
                seen = generation;
            }
            take_tasks();
            const std::lock_guard held(lock);
            if (--busy == 0) {
                done.notify_one();
            }
        }
    }

    std::mutex run_lock; // one run at a time
    std::mutex lock;     // guards the fields below (next is claimed without it)
    std::condition_variable_any wake;
    std::condition_variable done;
    const task_ref* task = nullptr;
    std::size_t n = 0;
    std::atomic<std::size_t> next{0};
    std::size_t busy = 0;          // workers still taking tasks in this generation
    std::uint64_t generation = 0; // one per run: wakes every worker exactly once
    std::vector<std::jthread> workers; // last: joined before the members above go
};

thread_pool::thread_pool(std::size_t threads) : state_(std::make_unique<state>())
{
    if (threads == 0) {
        throw std::invalid_argument("treefold: a thread_pool needs at least 1 thread, got 0");
    }
    state_->workers.reserve(threads - 1);
    for (std::size_t i = 1; i < threads; ++i) {
        state_->workers.emplace_back([s = state_.get()](std::stop_token stop) { s->work(stop); });
    }
}

thread_pool::~thread_pool()
{
    for (auto& w : state_->workers) {
        w.request_stop();
    }
    state_->wake.notify_all();
    state_->workers.clear();
}

std::size_t thread_pool::concurrency() const noexcept { return state_->workers.size() + 1; }

void thread_pool::run(std::size_t n, const task_ref& task)
{
    state& s = *state_;
    const std::lock_guard one_run(s.run_lock);
    if (s.workers.empty() || n <= 1) {
        for (std::size_t i = 0; i < n; ++i) {
            task(i);
        }
        return;
    }
    {
        const std::lock_guard held(s.lock);
        s.task = &task;
        s.n = n;
        s.next.store(0, std::memory_order_relaxed);
        s.busy = s.workers.size();
        ++s.generation;
    }
    s.wake.notify_all();
    s.take_tasks();
    std::unique_lock held(s.lock);
    s.done.wait(held, [&s] { return s.busy == 0; });
    s.task = nullptr;
}

} // namespace treefold
