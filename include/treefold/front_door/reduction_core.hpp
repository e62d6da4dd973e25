#pragma once
/// What treefold::reducer and treefold::row_reducer share: the private communicator, the
/// checked layout, the exchange plan, and the steps after the exchange (the result or the
/// failure shared with every rank, for all_reduce and reduce alike; the one mapping of
/// failures to exceptions).

#include "treefold/config.hpp"
#include "treefold/layouts.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/error.hpp"
#include "treefold/exchange/executor.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/request.hpp"

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace treefold::detail {

/// One reduction of elements of type T along `Exchange` (see treefold::reducer for the
/// contract). `width` values of the caller's span make one element (row_reducer's rows).
/// Nonblocking calls run on `Nonblocking`'s plan (start / test / finish for trivially
/// copyable T): the front doors pass exchange::native, so the funnel names no exchange.
template <class T, class Exchange, class Nonblocking>
class reduction_core : private pending_call<T> {
public:
    using plan_type = typename Exchange::template plan<T>;
    using nonblocking_type = typename Nonblocking::template plan<T>;

    /// Collective: duplicates `comm`, checks that every rank holds the same layout (and a
    /// positive width), then plans the exchange.
    reduction_core(comm_view comm, layout::block_layout layout, std::size_t width = 1,
                   checking checks = checking::from_environment)
        : comm_(comm.get(), boost::mpi::comm_duplicate),
          layout_(verified(comm_, std::move(layout), width)),
          rank_(comm_.rank()),
          width_(width),
          check_(checks_on(comm_, checks)),
          plan_(comm_, layout_),
          alone_(alone(plan_))
    {
    }

    reduction_core(reduction_core&&) = default;
    reduction_core& operator=(reduction_core&&) = default;
    reduction_core(const reduction_core&) = delete;
    reduction_core& operator=(const reduction_core&) = delete;

    /// A nonblocking call still in flight is completed here (this rank's part of the
    /// collective; the other ranks complete theirs as usual) and its request told, so that the
    /// MPI progress engine never runs into a destroyed plan and the request's wait() throws
    /// instead of reading freed memory.
    ~reduction_core()
    {
        if (in_flight_.on) {
            try {
                (void)finish();
            } catch (...) { // (the result and its errors are dropped, as request's destructor does)
            }
            this->orphan();
        }
    }

    /// The reduction on every rank. `local` is what the plan indexes by element; `values` is
    /// the length of the caller's span (checked against the block).
    template <class Kernel, class Op>
    T all_reduce(const T* local, std::size_t values, Op& op)
    {
        return std::move(*run_everywhere<Kernel>(local, values, op, std::nullopt));
    }

    /// The reduction on `root` only (nullopt elsewhere). It runs as all_reduce does (the
    /// result, or the failure, reaches every rank) and drops the result off the root, so a
    /// failure throws on every rank and the messages do not depend on the root: a root out
    /// of range on some rank is a failure every rank throws, and roots that differ between
    /// ranks leave no message behind.
    template <class Kernel, class Op>
    std::optional<T> reduce(const T* local, std::size_t values, Op& op, int root)
    {
        std::optional<T> out = run_everywhere<Kernel>(local, values, op, root);
        if (rank_ != root) {
            out.reset();
        }
        return out;
    }

    /// Starts the reduction to every rank (no root) or to `root` without waiting for it
    /// (through the native exchange's nonblocking MPI reduction to every rank; for elements
    /// that are not trivially copyable the call completes before start returns). Complete it
    /// with the returned call's test() / finish().
    template <class Kernel, class Op>
    pending_call<T>* start(const T* local, std::size_t values, Op& op, std::optional<int> root)
    {
        // Busy for the whole start (the in-flight check follows, with its own message); for
        // serialised T the eager all_reduce / reduce below marks the reducer busy itself.
        std::optional<in_use> busy;
        if constexpr (std::is_trivially_copyable_v<T>) {
            busy.emplace(busy_, false, check_);
            ++calls_; // (the eager path counts in all_reduce / reduce)
            check_call<Op>(values, root.value_or(-1), true);
        }
        if (in_flight_.on) {
            throw std::logic_error("treefold: this reducer already has a nonblocking call in flight");
        }
        eager_.reset();
        eager_error_ = nullptr;
        if constexpr (std::is_trivially_copyable_v<T>) {
            // As reduce: the reduction to every rank (a failure reaches every rank), the result
            // dropped off the root in finish().
            auto& plan = nonblocking_plan();
            maybe_failure failed = prepare(values, root);
            root_ = root;
            plan.template start<Kernel>(local, op, failed, last_, own_error_, true);
        } else {
            try {
                eager_ = root ? reduce<Kernel>(local, values, op, *root)
                              : std::optional<T>(all_reduce<Kernel>(local, values, op));
            } catch (...) {
                eager_error_ = std::current_exception();
            }
        }
        in_flight_.on = true;
        return this;
    }

    /// The exchange this reducer runs: the plan's choice where it makes one (automatic).
    std::string_view exchange_used() const
    {
        if constexpr (requires { plan_.choice(); }) {
            return plan_.choice();
        } else {
            return Exchange::name;
        }
    }

    /// Elements this rank holds.
    std::uint64_t local_count() const { return layout_.block_of(rank_).count; }
    const layout::block_layout& layout() const { return layout_; }
    const boost::mpi::communicator& communicator() const { return comm_; }
    const net::counters& last_counters() const { return last_; }
    const plan_type& plan() const { return plan_; }

private:
    static layout::block_layout verified(const boost::mpi::communicator& comm, layout::block_layout l,
                                         std::size_t width)
    {
        verify_same_layout(comm, l, width); // every rank throws, or none
        return l;
    }

    /// Whether `plan` computes one rank's one node and sends nothing (exchange::executor::alone):
    /// a call then computes that node itself.
    static bool alone(const plan_type& plan)
    {
        if constexpr (requires { plan.alone(); }) {
            return plan.alone();
        } else {
            return false;
        }
    }

    /// The checking level, the same on every rank (on if any rank asks for it).
    static bool checks_on(const boost::mpi::communicator& comm, checking checks)
    {
        bool on = checks == checking::on;
        if (checks == checking::from_environment) {
            const char* env = std::getenv("TREEFOLD_CHECK");
            on = env != nullptr && *env != '\0' && std::string_view(env) != "0";
        }
        // As an int: Boost.MPI makes bool an MPI datatype it never frees (MPICH reports it
        // as a leak at MPI_Finalize).
        return boost::mpi::all_reduce(comm, on ? 1 : 0, boost::mpi::maximum<int>()) != 0;
    }

    /// One blocking call (a reduce when `root` is given): the plan's run and the result or the
    /// failure shared with every rank. Throws on every rank if the call failed anywhere
    /// (this rank's own exception where it has one).
    template <class Kernel, class Op>
    std::optional<T> run_everywhere(const T* local, std::size_t values, Op& op, std::optional<int> root)
    {
        const in_use busy(busy_, in_flight_.on, check_);
        // First: every rank counts the call, even one that throws here.
        const net::call_scope call(++calls_, !net::codec<T>::raw);
        check_call<Op>(values, root.value_or(-1));
        maybe_failure failed = prepare(values, root);
        if constexpr (!exchange::may_throw<Op, T>) {
            if (alone_ && !failed) { // one rank: its block is the whole tree, its one node the root
                return local_node<Kernel>(local, 0, layout_.size(), op);
            }
        }
        exchange::outcome<T> out = plan_.template run<Kernel>(local, op, failed, last_, own_error_);
        exchange::share_result(plan_, comm_, out, last_);
        if constexpr (!net::codec<T>::raw) {
            if (net::codec_error() && !own_error_) {
                own_error_ = net::codec_error(); // this rank's encoding or decoding threw; the peers know
            }
        }
        throw_if_failed(out.failed, own_error_);
        return std::move(out.value);
    }

    /// Starts a call's counters; with checks on, verifies collectively that every rank makes
    /// this call (root < 0: all_reduce; blocking or nonblocking) with the same element and
    /// operator types and its right size.
    template <class Op>
    void check_call(std::size_t values, int root, bool nonblocking = false)
    {
        last_ = {};
        if (check_) {
            net::check_same_call(comm_,
                                 {root, static_cast<std::int64_t>(values),
                                  static_cast<std::int64_t>(local_count() * width_), type_hash<Op>(),
                                  type_hash<T>() ^ (sizeof(T) * width_), nonblocking},
                                 last_);
        }
    }

    /// FNV-1a of a type's name: the same for the same type in every process of a build.
    template <class U>
    static std::uint64_t type_hash()
    {
        std::uint64_t h = 1469598103934665603ULL;
        for (const char* c = typeid(U).name(); *c != '\0'; ++c) {
            h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ULL;
        }
        return h;
    }

    /// Resets the call's state; a wrong local size, or a reduce root that is not a rank,
    /// becomes this rank's failure (which every rank then throws).
    maybe_failure prepare(std::size_t values, std::optional<int> root = std::nullopt)
    {
        own_error_ = nullptr;
        if (layout_.size() == 0) {
            throw std::domain_error("treefold: reduction of N = 0 values has no result (the operator has no treefold::ops::identity)");
        }
        if (values != local_count() * width_) {
            return failure::local_size(rank_, values, local_count() * width_);
        }
        if (root && (*root < 0 || *root >= comm_.size())) {
            return failure::bad_root(rank_, *root, comm_.size());
        }
        return std::nullopt;
    }

    /// The native plan nonblocking calls run on: the reducer's own when it is one, else one
    /// made on the first nonblocking call (collective, like the call).
    auto& nonblocking_plan()
    {
        if constexpr (std::is_same_v<plan_type, nonblocking_type>) {
            return plan_;
        } else {
            if (!nonblocking_plan_) {
                nonblocking_plan_ = std::make_unique<nonblocking_type>(comm_, layout_);
            }
            return *nonblocking_plan_;
        }
    }

    bool test() override
    {
        if constexpr (std::is_trivially_copyable_v<T>) {
            return nonblocking_plan().test();
        } else {
            return true;
        }
    }

    std::optional<T> finish() override
    {
        in_flight_.on = false;
        if constexpr (std::is_trivially_copyable_v<T>) {
            exchange::outcome<T> out = nonblocking_plan().finish();
            throw_if_failed(out.failed, own_error_);
            if (root_ && rank_ != *root_) {
                out.value.reset();
            }
            return std::move(out.value);
        } else {
            if (eager_error_) {
                std::rethrow_exception(eager_error_);
            }
            return std::move(eager_);
        }
    }

    /// A reducer's busy mark; moving a reducer (never while a call runs) leaves it clear.
    struct busy_flag {
        std::atomic<bool> value{false};
        busy_flag() = default;
        busy_flag(busy_flag&&) noexcept {}
        busy_flag& operator=(busy_flag&&) noexcept { return *this; }
    };

    /// Marks the reducer busy for one call. A reducer serves one thread at a time, and a
    /// blocking call may not overlap its own nonblocking one: either is a std::logic_error
    /// (on the rank that does it) instead of a hang or a mixed-up message. `exact` (the
    /// checking level) takes the mark with an atomic exchange, which also catches two calls
    /// begun in the same instant; otherwise a load and a store catch a call made while
    /// another runs, without a locked instruction on every call.
    struct in_use {
        in_use(busy_flag& flag, bool in_flight, bool exact) : busy(flag.value)
        {
            const bool taken = exact ? busy.exchange(true, std::memory_order_acquire)
                                     : busy.load(std::memory_order_relaxed);
            if (!exact && !taken) {
                busy.store(true, std::memory_order_relaxed);
            }
            if (taken) {
                throw std::logic_error("treefold: a reducer was called from two threads at once (use one reducer "
                                       "per thread)");
            }
            if (in_flight) {
                busy.store(false, std::memory_order_release);
                throw std::logic_error("treefold: a blocking call on a reducer whose nonblocking call is in "
                                       "flight (finish the request first)");
            }
        }
        ~in_use() { busy.store(false, std::memory_order_release); }
        in_use(const in_use&) = delete;
        in_use& operator=(const in_use&) = delete;
        std::atomic<bool>& busy;
    };

    boost::mpi::communicator comm_;
    layout::block_layout layout_;
    int rank_; // comm_.rank(), asked once: a call makes no MPI call it need not
    std::size_t width_;
    bool check_; // the opt-in per-call checks (checking::on or TREEFOLD_CHECK)
    plan_type plan_;
    bool alone_; // alone(plan_): a call on one rank computes the root without the plan's steps
    net::counters last_;
    std::exception_ptr own_error_;
    std::uint32_t calls_ = 0; // calls made: the number in the tags of this call's messages (net/transport.hpp)
    // Nonblocking calls.
    std::unique_ptr<nonblocking_type> nonblocking_plan_; // never made for serialised T
    /// A nonblocking call has started and not finished; a moved-from core has none (its
    /// destructor must not complete the call the new owner holds).
    struct flight_flag {
        bool on = false;
        flight_flag() = default;
        flight_flag(flight_flag&& other) noexcept : on(std::exchange(other.on, false)) {}
        flight_flag& operator=(flight_flag&& other) noexcept
        {
            on = std::exchange(other.on, false);
            return *this;
        }
    };
    flight_flag in_flight_;
    std::optional<int> root_; // the nonblocking call's root (none: all_reduce)
    busy_flag busy_; // a blocking call or a start is running (in_use)
    std::optional<T> eager_; // serialised T: the result of a call that completed at once
    std::exception_ptr eager_error_;
};

} // namespace treefold::detail
