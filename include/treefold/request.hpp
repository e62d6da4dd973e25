#pragma once
/// A reduction in flight: what reducer::iall_reduce and reducer::ireduce return.

#include "treefold/config.hpp"

#include <optional>
#include <stdexcept>
#include <utility>

namespace treefold {

namespace detail {

template <class T>
class pending_call;

/// Where a request keeps its call: the reducer clears it (and marks it orphaned) when it is
/// destroyed with the call in flight, so the request never reaches a destroyed reducer.
template <class T>
struct call_slot {
    pending_call<T>* call = nullptr;
    bool orphaned = false;
};

/// The reducer side of a nonblocking call.
template <class T>
class pending_call {
public:
    /// True once the call has completed.
    virtual bool test() = 0;
    /// Completes the call; its result (nullopt off the root of a reduce) or the exception the
    /// blocking call would throw.
    virtual std::optional<T> finish() = 0;
    /// The request now holding this call (nullptr: none; a request moves, and says so).
    void attach(call_slot<T>* slot) noexcept { slot_ = slot; }

protected:
    ~pending_call() = default;
    /// The reducer goes first, with its call completed: the request's wait() throws.
    void orphan() noexcept
    {
        if (slot_ != nullptr) {
            slot_->call = nullptr;
            slot_->orphaned = true;
            slot_ = nullptr;
        }
    }

private:
    call_slot<T>* slot_ = nullptr;
};

} // namespace detail

/// A nonblocking reduction: test() polls, wait() completes it and returns what the blocking
/// call returns (R = T for iall_reduce, std::optional<T> for ireduce) or throws what it
/// throws. Until then the input span must stay valid and unmodified; the reducer takes no
/// other call meanwhile. Destroying an unfinished request waits for it and drops its result
/// and errors; destroying the reducer first completes the call there (dropping its result),
/// and wait() then throws std::logic_error. Movable, not copyable.
template <class T, class R>
class request {
public:
    /// A call in flight; `settle` (if any) is applied to its result (the canonical NaN).
    explicit request(detail::pending_call<T>* call, void (*settle)(std::optional<T>&) = nullptr)
        : settle_(settle)
    {
        take(call, false);
    }
    /// A call that completed when it started (N = 0): wait() returns `result`.
    explicit request(std::optional<T> result) : ready_(std::move(result)), has_ready_(true) {}
    /// Takes over `other`'s call (or ready result); `other` is left holding nothing.
    request(request&& other) noexcept
        : settle_(other.settle_), ready_(std::move(other.ready_)), has_ready_(std::exchange(other.has_ready_, false))
    {
        take(std::exchange(other.slot_.call, nullptr), std::exchange(other.slot_.orphaned, false));
    }
    /// Completes this request's own unfinished call first (dropping its result and errors, as
    /// the destructor does), then takes over `other`'s.
    request& operator=(request&& other) noexcept
    {
        if (this != &other) {
            drop();
            settle_ = other.settle_;
            ready_ = std::move(other.ready_);
            has_ready_ = std::exchange(other.has_ready_, false);
            take(std::exchange(other.slot_.call, nullptr), std::exchange(other.slot_.orphaned, false));
        }
        return *this;
    }
    request(const request&) = delete;
    request& operator=(const request&) = delete;
    /// Completes an unfinished call, dropping its result and errors.
    ~request() { drop(); }

    /// True when wait() would not block (also after wait()).
    bool test() { return slot_.call == nullptr || slot_.call->test(); }

    /// Completes the call and returns its result; std::logic_error if already waited for.
    R wait()
    {
        std::optional<T> result;
        if (has_ready_) {
            has_ready_ = false;
            result = std::move(ready_);
        } else if (slot_.orphaned) {
            throw std::logic_error("treefold: wait() on a request whose reducer was destroyed first (the reducer "
                                   "completed the call and dropped its result; wait before destroying it)");
        } else if (slot_.call == nullptr) {
            throw std::logic_error("treefold: wait() on a request that was already completed");
        } else {
            result = release()->finish();
            if (settle_ != nullptr) {
                settle_(result);
            }
        }
        if constexpr (std::is_same_v<R, T>) {
            return std::move(*result);
        } else {
            return result;
        }
    }

private:
    void drop() noexcept
    {
        if (slot_.call != nullptr) {
            try {
                (void)release()->finish();
            } catch (...) {
            }
        }
    }

    /// Holds `call` (telling it where) in place of nothing.
    void take(detail::pending_call<T>* call, bool orphaned) noexcept
    {
        slot_ = {call, orphaned};
        if (call != nullptr) {
            call->attach(&slot_);
        }
    }

    /// The call, no longer attached to this request.
    detail::pending_call<T>* release() noexcept
    {
        detail::pending_call<T>* call = std::exchange(slot_.call, nullptr);
        call->attach(nullptr);
        return call;
    }

    detail::call_slot<T> slot_;
    void (*settle_)(std::optional<T>&) = nullptr;
    std::optional<T> ready_;
    bool has_ready_ = false;
};

} // namespace treefold
