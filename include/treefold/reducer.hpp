#pragma once
/// The policy-based front door: a reproducible reduction of a distributed array.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/threads.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/reducer_base.hpp"
#include "treefold/request.hpp"

#include <boost/mpi/communicator.hpp>

#include <array>
#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

namespace treefold {

/// Reduces N values spread over the ranks of a communicator in blocks (a layout) with a
/// binary operator, along the tree fixed by the global index: the result has the same bits
/// for every process count, block layout, exchange and kernel.
///
/// - T: any default-constructible, copyable type. Trivially copyable types travel as raw
///   bytes, any other type through Boost.Serialization.
/// - Op: any callable T(const T& left, const T& right): functors, function pointers, lambdas
///   with captured state (kept in the reducer and called on this rank). Neither associativity
///   nor commutativity is assumed; the left operand always covers lower indices. The
///   default, ops::plus, is `a + b` (signed integers wrap), as for row_reducer.
/// - Kernel: the local kernel computing a node from its elements (kernel::best: the SIMD
///   kernel of the best architecture the CPU supports, chosen at run time, for treefold's
///   operators and those opted in by kernel::allow_simd (with kernel/simd_ops.hpp included),
///   the scalar tree for any other;
///   kernel::scalar is the reference).
/// - Exchange: how frontiers meet across ranks (exchange::automatic, the default, picks the
///   fastest here; exchange::native, exchange::direct, exchange::tree<Shape>,
///   rma::one_sided, exchange::scheduled<Generator>).
///
/// - The distribution policy (dist::even_upper by default, dist::even_lower,
///   dist::power_of_two, dist::aligned, or layout::distribution chosen at run time) is the
///   constructor's: from the global size N it decides every rank's block (local_block()).
///   A layout passed instead gives any blocks, in any rank order.
///
/// Construction is collective: the communicator (a boost::mpi::communicator or a raw
/// MPI_Comm) is duplicated, so the reducer's messages never meet the user's or another
/// reducer's, and the duplicate is freed with the reducer; the caller's communicator need
/// only be valid during construction. All ranks must pass the same layout with one block per
/// rank, else every rank throws the same std::invalid_argument. The plan is then reused by
/// every call; calls do not modify the input and, for trivially copyable T, allocate nothing
/// after the first. make_reducer() names any subset of the axes by tag arguments.
///
/// Threads: set_threads() has this rank's local nodes computed by several threads (a pool the
/// reducer owns, or any task_executor), with the same bits for every thread count
/// (kernel::split). The exchange stays on the calling thread. A reducer takes one call at a
/// time (a call from a second thread while one runs throws std::logic_error there; with
/// checking::on also one begun in the same instant): call it
/// from one thread (per reducer) while other threads compute; several reducers
/// may run calls on several threads at once (MPI_THREAD_MULTIPLE).
template <transportable T, reduction_operator<T> Op = ops::plus, kernel_policy<T, Op> Kernel = kernel::best,
          exchange_policy<T> Exchange = exchange::automatic>
    requires std::is_default_constructible_v<T> && std::is_copy_constructible_v<T>
class reducer : public reducer_base<T, Exchange> {
    using base = reducer_base<T, Exchange>;

public:
    using value_type = T;             ///< The element type reduced.
    using operator_type = Op;         ///< The reduction operator.
    using kernel_type = Kernel;       ///< The local kernel policy (reduces this rank's block).
    using exchange_type = Exchange;   ///< The exchange policy (combines the ranks' partial results).

    /// Plans the reduction (collective over `comm`); see the class comment for the checks.
    /// `checks` sets the opt-in per-call checks (treefold::checking; by default
    /// TREEFOLD_CHECK=1 in the environment). MPI_COMM_NULL throws std::invalid_argument.
    /// A translation unit compiled with floating-point contraction (treefold::detail::
    /// refuse_fp_contraction: -ffp-contract=fast or on with FMA) throws std::logic_error naming
    /// -ffp-contract=off on every rank, before any message, for an operator outside
    /// treefold::ops on a non-integral T.
    reducer(comm_view comm, layout::block_layout layout, Op op = Op{}, checking checks = checking::from_environment)
        : base((detail::refuse_fp_contraction<Op, T>(), comm.get()), std::move(layout), 1, checks), op_(std::move(op))
    {
    }

    /// Plans the reduction of N values in blocks in rank order, the blocks decided by the
    /// distribution policy (collective; every rank must pass the same N, else every rank
    /// throws std::invalid_argument). Each rank then passes local_block().count values.
    template <layout::distribution_policy Distribution = dist::even_upper>
    reducer(comm_view comm, std::uint64_t n, Distribution distribution = {}, Op op = Op{})
        : reducer(comm, layout::block_layout::from_counts(distribution.counts(n, comm.get().size())), std::move(op))
    {
    }

    /// As above with the default distribution (dist::even_upper) and the operator `op`.
    reducer(comm_view comm, std::uint64_t n, Op op) : reducer(comm, n, dist::even_upper{}, std::move(op)) {}

    /// The reduction of all N values, returned on every rank (the same bits everywhere).
    ///
    /// Collective. If this rank's span does not hold exactly its block's count, or the
    /// operator (or the serialization of a value) throws on some rank, the exchange still
    /// completes (failures travel in place of values, so nobody waits) and then every rank
    /// throws: std::invalid_argument for a wrong size, the exception itself on the rank
    /// where it was thrown and remote_failure (error.hpp, naming the rank, the exception's
    /// type and text) on the others. A rank with an empty block reports its size too. N = 0 throws
    /// std::domain_error on every rank: there is no value and no identity is invented.
    ///
    /// N = 0 returns the operator's identity (ops::identity: 0 for plus, 1 for multiplies,
    /// +inf / -inf or the type's limits for min / max, or one the user specialises) on every
    /// rank; for an operator without one it throws std::domain_error on every rank. A NaN
    /// result under treefold's own operators (ops::is_treefold_op) is the canonical quiet NaN
    /// std::numeric_limits<T>::quiet_NaN() (per column for rows, per part for std::complex),
    /// whatever the NaNs' signs and payloads in the input; other operators' NaNs are NaN for
    /// every p, their sign and payload may differ.
    T all_reduce(std::span<const T> local)
    {
        return detail::settled<Op>(with_kernel([&]<class K>(std::type_identity<K>) {
            return this->template all_reduce_call<K>(local.data(), local.size(), op_, empty_result());
        }));
    }

    /// all_reduce(local) written to `result` (for T with expensive copies; the same checks).
    void all_reduce(std::span<const T> local, T& result) { result = all_reduce(local); }

    /// The reduction on `root` only (nullopt on the other ranks). Collective; `root` must be
    /// the same on every rank and in [0, p). It runs as all_reduce (the same messages, the
    /// result kept on the root), so failures throw on every rank as in all_reduce, and a
    /// root outside [0, p) on any rank throws call_mismatch (a std::invalid_argument) on
    /// every rank. A root that differs between ranks is an erroneous program (as in MPI),
    /// yet every rank completes the call (a rank naming itself the root gets the result)
    /// and no later call sees its messages; with checking::on (or TREEFOLD_CHECK=1) every
    /// rank throws call_mismatch instead.
    /// N = 0 and NaN results as in all_reduce.
    std::optional<T> reduce(std::span<const T> local, int root)
    {
        return detail::settled<Op>(with_kernel([&]<class K>(std::type_identity<K>) {
            return this->template reduce_call<K>(local.data(), local.size(), op_, root, empty_result());
        }));
    }

    /// Starts all_reduce(local) and returns at once; the request's wait() returns what
    /// all_reduce returns, or throws what it throws. Collective (every rank starts it, in the
    /// same order as its other calls on this reducer). The local kernel runs before this
    /// returns; the exchange then progresses in the MPI library (the native exchange's
    /// MPI_Iallreduce, whatever `Exchange` is: the same bits). `local` must stay valid and
    /// unmodified until wait() returns, and the reducer takes no other call meanwhile
    /// (std::logic_error). For T that is not trivially copyable the call completes before
    /// iall_reduce returns.
    request<T, T> iall_reduce(std::span<const T> local)
    {
        return with_kernel([&]<class K>(std::type_identity<K>) {
            return this->template start_call<T, K>(local.data(), local.size(), op_, std::nullopt, empty_result(),
                                                   settle_result);
        });
    }

    /// Starts reduce(local, root) (as reduce: the MPI_Iallreduce of iall_reduce, the value
    /// kept on the root); as iall_reduce, and wait() returns what reduce returns or throws
    /// what it throws, on every rank.
    request<T, std::optional<T>> ireduce(std::span<const T> local, int root)
    {
        return with_kernel([&]<class K>(std::type_identity<K>) {
            return this->template start_call<std::optional<T>, K>(local.data(), local.size(), op_, root, empty_result(),
                                                                  settle_result);
        });
    }

    /// Computes this rank's local nodes on `threads` threads from now on: the calling thread
    /// and threads - 1 workers of a thread_pool the reducer makes here, once, and owns. Nodes
    /// are cut into pieces of at least `min_piece` elements (only speed depends on it). The
    /// operator is then called on several threads at once, so it must allow that. Results keep
    /// their bits for every thread count; an operator that throws on any thread is reported as
    /// it is without threads. threads <= 1 goes back to the single-thread kernel, untouched.
    /// Local, not collective: ranks may use different thread counts.
    void set_threads(std::size_t threads, std::uint64_t min_piece = kernel::default_min_piece)
    {
        threads_.reset();
        if (threads > 1) {
            auto pool = std::make_unique<thread_pool>(threads);
            threads_ = std::make_unique<threads_option>(threads_option{nullptr, {*pool, min_piece}});
            threads_->pool = std::move(pool);
        }
    }

    /// As set_threads(threads), on the threads of `executor` (a thread_pool shared by several
    /// reducers, an OpenMP adapter: doc/guide.md), which the reducer does not own: it must
    /// outlive the calls made until the next set_threads.
    template <task_executor E>
    void set_threads(E& executor, std::uint64_t min_piece = kernel::default_min_piece)
    {
        threads_ = std::make_unique<threads_option>(threads_option{nullptr, {executor, min_piece}});
    }

    /// The threads this rank's local nodes are computed on (1: the single-thread kernel).
    std::size_t threads() const { return threads_ ? threads_->context.executor.concurrency() : 1; }

    /// The operator (with whatever state it holds).
    const Op& op() const { return op_; }

private:
    /// What a nonblocking call's result becomes (the canonical NaN, as in all_reduce).
    static void settle_result(std::optional<T>& result) { result = detail::settled<Op>(std::move(result)); }

    /// N = 0's result: the operator's identity, where it has one.
    static auto empty_result()
    {
        if constexpr (ops::has_identity<Op, T>) {
            return [] { return ops::identity<Op, T>::value(); };
        } else {
            return detail::no_empty_result{};
        }
    }

    /// The threads option: the split kernel's context and the pool the reducer owns, if any.
    struct threads_option {
        std::unique_ptr<thread_pool> pool;
        kernel::split_context context;
    };

    /// `call(std::type_identity<kernel::split<Kernel>>{})`, in the scope of this reducer's
    /// threads, or with no split context at all (split<Kernel> then runs Kernel itself, and an
    /// operator's own reducer call inside another reducer's threaded call does not split on that
    /// reducer's pool). One kernel type either way, so a program compiles each exchange's run
    /// once instead of twice.
    template <class Call>
    decltype(auto) with_kernel(Call&& call)
    {
        if (!threads_) {
            const kernel::detail::split_pause one_thread;
            return call(std::type_identity<kernel::split<Kernel>>{});
        }
        const kernel::split_scope scope(threads_->context);
        return call(std::type_identity<kernel::split<Kernel>>{});
    }

    Op op_;
    std::unique_ptr<threads_option> threads_; // null: one thread
};

namespace detail {

// The element type an operator takes, for deduction: the first parameter of a function
// pointer or of a class's (non-template) operator().
template <class R, class A, class B>
A first_operand(R (*)(A, B));
template <class C, class R, class A, class B>
A first_operand(R (C::*)(A, B));
template <class C, class R, class A, class B>
A first_operand(R (C::*)(A, B) const);
template <class R, class A, class B>
A first_operand(R (*)(A, B) noexcept);
template <class C, class R, class A, class B>
A first_operand(R (C::*)(A, B) noexcept);
template <class C, class R, class A, class B>
A first_operand(R (C::*)(A, B) const noexcept);

template <class Op>
auto operand_of(int) -> decltype(first_operand(&Op::operator()));
template <class Op>
auto operand_of(long) -> decltype(first_operand(std::declval<Op>()));

template <class Op>
using operand_t = std::remove_cvref_t<decltype(operand_of<std::decay_t<Op>>(0))>;

} // namespace detail

/// Deduces T from the operator's parameter (a lambda or functor with one non-template
/// operator(), or a function pointer): `treefold::reducer r(comm, layout, op);`.
template <class Op>
reducer(comm_view, layout::block_layout, Op) -> reducer<detail::operand_t<Op>, Op>;
/// As above, for the constructor that takes N (blocks by dist::even_upper) and the operator.
template <class Op>
reducer(comm_view, std::uint64_t, Op) -> reducer<detail::operand_t<Op>, Op>;
/// As above, for the constructor that takes N, a distribution policy D and the operator.
template <layout::distribution_policy D, class Op>
reducer(comm_view, std::uint64_t, D, Op) -> reducer<detail::operand_t<Op>, Op>;

namespace detail {

// Sorting make_reducer's tag arguments into the axes they name.
template <class T, class A>
constexpr bool is_exchange_tag = exchange_policy<std::remove_cvref_t<A>, T>;
template <class T, class A>
constexpr bool is_distribution_tag = layout::distribution_policy<std::remove_cvref_t<A>>;
template <class T, class A>
constexpr bool is_operator_arg =
    reduction_operator<std::remove_cvref_t<A>, T> && !is_exchange_tag<T, A> && !is_distribution_tag<T, A>;
template <class T, class Op, class A>
constexpr bool is_kernel_tag = kernel_policy<std::remove_cvref_t<A>, T, Op> && !is_operator_arg<T, A>;

/// Index of the first of `flags` that is set (flags.size() - 1 when none is).
template <std::size_t N>
consteval std::size_t first_set(const std::array<bool, N>& flags)
{
    for (std::size_t i = 0; i + 1 < N; ++i) {
        if (flags[i]) {
            return i;
        }
    }
    return N - 1;
}

template <class Default, std::size_t I, class Tuple>
decltype(auto) pick(Tuple& args)
{
    if constexpr (I < std::tuple_size_v<Tuple>) {
        return std::get<I>(std::move(args));
    } else {
        return Default{};
    }
}

template <std::size_t I, class Default, class... A>
struct picked {
    using type = Default;
};
template <std::size_t I, class Default, class... A>
    requires(I < sizeof...(A))
struct picked<I, Default, A...> {
    using type = std::tuple_element_t<I, std::tuple<std::remove_cvref_t<A>...>>;
};
template <std::size_t I, class Default, class... A>
using picked_t = typename picked<I, Default, A...>::type;

} // namespace detail

/// A reducer for elements T whose axes are named by arguments in any order, each at most
/// once and every one optional: an operator (ops::plus by default), a kernel tag
/// (`kernel::scalar{}`; kernel::best by default), an exchange tag (`exchange::tree<>{}`;
/// exchange::automatic by default) and, when `where` is the global size N, a distribution
/// tag (`dist::aligned{0.1}`; dist::even_upper by default). `where` is a layout or N.
/// Collective, as the reducer's constructor:
///
///     auto r = treefold::make_reducer<double>(comm, n, [](double a, double b) { return a + b; },
///                                             treefold::exchange::tree<>{});
template <transportable T, class Where, class... Args>
    requires std::same_as<std::remove_cvref_t<Where>, layout::block_layout> || std::integral<std::remove_cvref_t<Where>>
auto make_reducer(comm_view comm, Where&& where, Args&&... args)
{
    constexpr std::size_t op_at = detail::first_set(std::array<bool, sizeof...(Args) + 1>{detail::is_operator_arg<T, Args>..., false});
    using Op = detail::picked_t<op_at, ops::plus, Args...>;
    constexpr std::size_t kernel_at = detail::first_set(std::array<bool, sizeof...(Args) + 1>{detail::is_kernel_tag<T, Op, Args>..., false});
    constexpr std::size_t exchange_at = detail::first_set(std::array<bool, sizeof...(Args) + 1>{detail::is_exchange_tag<T, Args>..., false});
    constexpr std::size_t dist_at = detail::first_set(std::array<bool, sizeof...(Args) + 1>{detail::is_distribution_tag<T, Args>..., false});
    constexpr std::size_t named = (op_at < sizeof...(Args)) + (kernel_at < sizeof...(Args)) +
                                  (exchange_at < sizeof...(Args)) + (dist_at < sizeof...(Args));
    static_assert(named == sizeof...(Args),
                  "treefold::make_reducer: every argument after `where` must be one operator on T, one kernel policy, "
                  "one exchange policy or one distribution policy, each at most once");
    static_assert(std::integral<std::remove_cvref_t<Where>> || dist_at == sizeof...(Args),
                  "treefold::make_reducer: a distribution policy applies only when `where` is the global size N");
    using Kernel = detail::picked_t<kernel_at, kernel::best, Args...>;
    using Exchange = detail::picked_t<exchange_at, exchange::automatic, Args...>;
    auto tuple = std::forward_as_tuple(std::forward<Args>(args)...);
    Op op = detail::pick<ops::plus, op_at>(tuple);
    if constexpr (std::integral<std::remove_cvref_t<Where>>) {
        using Dist = detail::picked_t<dist_at, dist::even_upper, Args...>;
        return reducer<T, Op, Kernel, Exchange>(comm, static_cast<std::uint64_t>(where),
                                                Dist(detail::pick<dist::even_upper, dist_at>(tuple)), std::move(op));
    } else {
        return reducer<T, Op, Kernel, Exchange>(comm, std::forward<Where>(where), std::move(op));
    }
}

} // namespace treefold
