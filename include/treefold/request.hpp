#pragma once
/// A reduction in flight: what reducer::iall_reduce and reducer::ireduce return.

#include "treefold/config.hpp"

#include <optional>
#include <stdexcept>
#include <utility>

namespace treefold {

namespace detail {

/// The reducer side of a nonblocking call.
template <class T>
class pending_call {
public:
    /// True once the call has completed.
    virtual bool test() = 0;
    /// Completes the call; its result (nullopt off the root of a reduce) or the exception the
    /// blocking call would throw.
    virtual std::optional<T> finish() = 0;

protected:
    ~pending_call() = default;
};

} // namespace detail

/// A nonblocking reduction: test() polls, wait() completes it and returns what the blocking
/// call returns (R = T for iall_reduce, std::optional<T> for ireduce) or throws what it
/// throws. Until then the input span must stay valid and unmodified and the reducer alive;
/// the reducer takes no other call meanwhile. Destroying an unfinished request waits for it
/// and drops its result and errors. Movable, not copyable.
template <class T, class R>
class request {
public:
    /// A call in flight; `settle` (if any) is applied to its result (the canonical NaN).
    explicit request(detail::pending_call<T>* call, void (*settle)(std::optional<T>&) = nullptr)
        : call_(call), settle_(settle)
    {
    }
    /// A call that completed when it started (N = 0): wait() returns `result`.
    explicit request(std::optional<T> result) : ready_(std::move(result)), has_ready_(true) {}
    request(request&& other) noexcept
        : call_(std::exchange(other.call_, nullptr)), settle_(other.settle_), ready_(std::move(other.ready_)),
          has_ready_(std::exchange(other.has_ready_, false))
    {
    }
    request& operator=(request&& other) noexcept
    {
        if (this != &other) {
            drop();
            call_ = std::exchange(other.call_, nullptr);
            settle_ = other.settle_;
            ready_ = std::move(other.ready_);
            has_ready_ = std::exchange(other.has_ready_, false);
        }
        return *this;
    }
    request(const request&) = delete;
    request& operator=(const request&) = delete;
    ~request() { drop(); }

    /// True when wait() would not block (also after wait()).
    bool test() { return call_ == nullptr || call_->test(); }

    /// Completes the call and returns its result; std::logic_error if already waited for.
    R wait()
    {
        std::optional<T> result;
        if (has_ready_) {
            has_ready_ = false;
            result = std::move(ready_);
        } else if (call_ == nullptr) {
            throw std::logic_error("treefold: wait() on a request that was already completed");
        } else {
            result = std::exchange(call_, nullptr)->finish();
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
        if (call_ != nullptr) {
            try {
                (void)std::exchange(call_, nullptr)->finish();
            } catch (...) {
            }
        }
    }

    detail::pending_call<T>* call_ = nullptr;
    void (*settle_)(std::optional<T>&) = nullptr;
    std::optional<T> ready_;
    bool has_ready_ = false;
};

} // namespace treefold
