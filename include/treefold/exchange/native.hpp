#pragma once
/// The native exchange: the MPI library's own MPI_Allreduce (and MPI_Iallreduce) combine
/// the ranks' frontiers, as fixed-size records (detail/records.hpp) under a
/// non-commutative user-defined operation that runs treefold's exact merge.
///
/// MPI combines the operands of a non-commutative operation in rank order (with any
/// bracketing); the plan runs on a communicator whose ranks are the blocks' positions in
/// index order, and the merge is bitwise associative, so whatever algorithm the MPI library
/// picks gives the same bits. The merge checks that its operands' ranges meet and turns a
/// broken order into a failure instead of a wrong result. The operator reaches the merge
/// through the plan's state, attached to the record datatype MPI hands the operation.
/// Elements that are not trivially copyable use the binomial tree exchange instead.
///
/// An order-free operator (`Op::order_free`, detail/records.hpp; ops::binned_plus) takes
/// the commutative path: each rank folds its nodes into one value, and the values travel
/// alone (no ranges, no frontier) under a commutative operation, so the MPI library may use
/// its fastest allreduce algorithms; the operator's bits make the order irrelevant.

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/executor.hpp"
#include "treefold/index_tree/node.hpp"
#include "treefold/exchange/detail/records.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace treefold::exchange {

/// The native exchange's plan for trivially copyable T (see the file comment).
template <class T>
class native_plan {
public:
    /// The result is on every rank after run(): the reducer skips its broadcast.
    static constexpr bool result_everywhere = true;

    /// Collective over `comm` (splits it when the blocks are not in rank order).
    native_plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        : comm_(in_index_order(comm, layout)), rank_(comm.rank()), n_(layout.size()),
          block_(layout.block_of(comm.rank())), local_nodes_(index_tree::maximal_nodes(layout.block_of(comm.rank()).start, layout.block_of(comm.rank()).end(), layout.size())),
          state_(std::make_unique<state>(layout.size(), comm.rank(), record_capacity(layout))),
          type_(std::make_unique<net::bound_datatype>(state_->record.bytes(), state_.get())),
          send_(state_->record.bytes()), recv_(state_->record.bytes())
    {
        const auto order = layout.index_order();
        finisher_ = order[0];
        local_values_.reserve(local_nodes_.size());
        state_->types[0] = type_->get();
    }

    /// The rank at position 0 (every rank ends with the result).
    int finisher() const { return finisher_; }
    /// Bytes of one frontier record (the MPI reduction's message size).
    std::size_t record_bytes() const { return state_->record.bytes(); }

    /// The result (or failure) on every rank, through MPI_Allreduce.
    template <class Kernel, class Op>
    outcome<T> run(const T* local, Op& op, maybe_failure failed, net::counters& count,
                   std::exception_ptr& own_error)
    {
        start<Kernel>(local, op, failed, count, own_error, false);
        outcome<T> out = finish();
        if constexpr (may_throw<Op, T>) {
            // Each rank's MPI library may make its own last merge: a throw there reaches no one
            // else. The record cut the operator's text to its room: the rank where it threw
            // holds the whole failure and is the one the others take it from.
            bool complete = !out.failed || out.failed->what != failure::code::op_threw;
            if (out.failed && !complete && own_error && out.failed->rank == rank_) {
                out.failed = failure::op_threw(rank_, own_error);
                complete = true;
            }
            net::agree_on_failure(comm_, out.failed, count, complete);
            if (out.failed) {
                out.value.reset();
            }
        }
        return out;
    }

    /// Computes this rank's record and starts the reduction to every rank (a reduce keeps
    /// the root's value); blocking unless `nonblocking` (then complete it with test() or
    /// finish()). One call at a time per plan.
    template <class Kernel, class Op>
    void start(const T* local, Op& op, maybe_failure failed, net::counters& count,
               std::exception_ptr& own_error, bool nonblocking)
    {
        if (active_) {
            throw std::logic_error("treefold: a nonblocking call on this reducer is still outstanding");
        }
        if constexpr (order_free_op<Op>) {
            start_order_free<Kernel>(local, op, failed, count, own_error, nonblocking);
            return;
        }
        order_free_call_ = false;
        bind<Op>();
        state_->op = &op;
        state_->own_error = &own_error;
        local_values_.clear();
        for (std::size_t i = 0; i < local_nodes_.size() && !failed; ++i) {
            const index_tree::node v = local_nodes_[i];
            guarded(rank_, failed, own_error, [&] {
                local_values_.push_back(treefold::detail::local_node<Kernel>(local, v.x - block_.start, index_tree::cover_size(v, n_), op));
            });
        }
        if (failed) {
            state_->record.write_failure(send_.data(), *failed);
        } else {
            state_->record.write(send_.data(), block_.start, block_.start + block_.count, local_values_.data());
        }
        ++count.collectives;
        count.collective_bytes += send_.size();
        {
            const calling guard(state_.get());
            net::reduce_one(send_.data(), recv_.data(), type_->get(), op_->get(), comm_,
                            nonblocking ? &request_ : nullptr);
        }
        active_ = nonblocking;
    }

    /// True when the outstanding nonblocking call (if any) has completed.
    bool test()
    {
        if (!active_) {
            return true;
        }
        const calling guard(state_.get());
        active_ = !net::test_request(request_);
        return !active_;
    }

    /// Completes the call (waiting for a nonblocking one) and reads its outcome.
    outcome<T> finish()
    {
        if (active_) {
            active_ = false;
            const calling guard(state_.get());
            net::wait_request(request_);
        }
        if (std::exchange(merge_lost, false)) {
            throw std::logic_error("treefold: the MPI library called the native exchange's merge with a datatype "
                                   "other than the exchange's own; this call's result is unusable");
        }
        outcome<T> out;
        T value{};
        out.failed = order_free_call_ ? order_free_record<T>::read_result(free_recv_.data(), value)
                                      : state_->record.read_result(recv_.data(), value);
        if (!out.failed) {
            out.value = value;
        }
        return out;
    }

    /// Values a record needs room for. MPI applies a non-commutative operation to runs of
    /// consecutive ranks only, here runs of consecutive blocks in index order, so the largest
    /// frontier of such a run is enough (the merge turns any other pair into an out_of_order
    /// failure first). Exact up to 64 blocks; beyond, 0: the bound for any range.
    static std::size_t record_capacity(const layout::block_layout& layout)
    {
        const auto order = layout.index_order();
        if (order.size() > 64) {
            return 0;
        }
        // the blocks in index order tile [0, N): run i..j covers [edge[i], edge[j + 1])
        std::vector<index_tree::index_t> edge(order.size() + 1, 0);
        for (std::size_t i = 0; i < order.size(); ++i) {
            edge[i + 1] = edge[i] + layout.block_of(order[i]).count;
        }
        std::size_t most = 1;
        for (std::size_t i = 0; i < order.size(); ++i) {
            for (std::size_t j = i + 1; j <= order.size(); ++j) {
                most = std::max(most, index_tree::maximal_node_count(edge[i], edge[j], layout.size()));
            }
        }
        return most;
    }

private:
    struct state {
        state(index_tree::index_t n, int r, std::size_t capacity) : record(n, capacity), rank(r) {}
        frontier_record<T> record;
        int rank;
        void* op = nullptr; // the call's operator, of the type the MPI operation was made for
        std::exception_ptr* own_error = nullptr;
        MPI_Datatype types[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL}; // the record types this state is attached to
    };

    /// The state of the call this thread is in (MPI runs user operations inside the calls
    /// that start, test or wait for the reduction): merge's second way to its state.
    static inline thread_local state* calling_state = nullptr;
    /// Set when a merge on this thread found no state (see merge).
    static inline thread_local bool merge_lost = false;
    struct calling {
        explicit calling(state* s) : saved(calling_state) { calling_state = s; }
        ~calling() { calling_state = saved; }
        calling(const calling&) = delete;
        calling& operator=(const calling&) = delete;
        state* saved;
    };

    /// The state for a merge MPI runs with `type`: the datatype's attribute, or, when a library
    /// hands a datatype of its own, the state of the call this thread runs. With neither,
    /// nothing can be merged: nullptr, and the call's finish() throws (a C callback must not
    /// throw, and no process is ended).
    static state* state_for(MPI_Datatype type)
    {
        // The usual case first: the merge runs inside this thread's own call, with its own
        // datatype (a thread-local read instead of MPI_Type_get_attr). A call of another plan
        // may progress this one's nonblocking reduction: the types then differ.
        state* const current = calling_state;
        if (current != nullptr && type != MPI_DATATYPE_NULL && (type == current->types[0] || type == current->types[1])) {
            return current;
        }
        auto* s = static_cast<state*>(net::bound_datatype::state_of(type));
        if (s == nullptr) {
            s = calling_state;
        }
        if (s == nullptr) {
            merge_lost = true;
        }
        return s;
    }

    /// MPI's user function: inoutvec[i] = invec[i] merged with inoutvec[i], lower ranks left.
    template <class Op>
    static void merge(void* in, void* inout, int* len, MPI_Datatype* type)
    {
        state* s = state_for(*type);
        if (s == nullptr) {
            return;
        }
        const std::size_t bytes = s->record.bytes();
        for (int i = 0; i < *len; ++i) {
            s->record.merge(static_cast<const char*>(in) + static_cast<std::size_t>(i) * bytes,
                            static_cast<char*>(inout) + static_cast<std::size_t>(i) * bytes,
                            *static_cast<Op*>(s->op), s->rank, *s->own_error);
        }
    }

    /// start() for an order-free operator: this rank's nodes folded into one value (any
    /// order gives the same bits), reduced under a commutative operation.
    template <class Kernel, class Op>
    void start_order_free(const T* local, Op& op, maybe_failure failed, net::counters& count,
                          std::exception_ptr& own_error, bool nonblocking)
    {
        using record = order_free_record<T>;
        bind_order_free<Op>();
        state_->op = &op;
        state_->own_error = &own_error;
        std::optional<T> folded;
        for (std::size_t i = 0; i < local_nodes_.size() && !failed; ++i) {
            const index_tree::node v = local_nodes_[i];
            guarded(rank_, failed, own_error, [&] {
                const T value = treefold::detail::local_node<Kernel>(local, v.x - block_.start,
                                                                     index_tree::cover_size(v, n_), op);
                folded = folded ? T(op(std::as_const(*folded), value)) : value;
            });
        }
        if (failed) {
            record::write_failure(free_send_.data(), *failed);
        } else if (folded) {
            record::write(free_send_.data(), *folded);
        } else {
            record::write_empty(free_send_.data());
        }
        ++count.collectives;
        count.collective_bytes += record::bytes;
        {
            const calling guard(state_.get());
            net::reduce_one(free_send_.data(), free_recv_.data(), free_type_->get(), free_op_->get(), comm_,
                            nonblocking ? &request_ : nullptr);
        }
        order_free_call_ = true;
        active_ = nonblocking;
    }

    /// MPI's commutative user function for order-free operators: inoutvec[i] = invec[i]
    /// merged with inoutvec[i] (state found as in merge).
    template <class Op>
    static void merge_order_free(void* in, void* inout, int* len, MPI_Datatype* type)
    {
        state* s = state_for(*type);
        if (s == nullptr) {
            return;
        }
        constexpr std::size_t bytes = order_free_record<T>::bytes;
        for (int i = 0; i < *len; ++i) {
            order_free_record<T>::merge(static_cast<const char*>(in) + static_cast<std::size_t>(i) * bytes,
                                        static_cast<char*>(inout) + static_cast<std::size_t>(i) * bytes,
                                        *static_cast<Op*>(s->op), s->rank, *s->own_error);
        }
    }

    /// The commutative operation and the record datatype of the order-free path (made on its first call).
    template <class Op>
    void bind_order_free()
    {
        MPI_User_function* f = &merge_order_free<Op>;
        if (free_fn_ != f) {
            if (!free_type_) {
                free_type_ = std::make_unique<net::bound_datatype>(order_free_record<T>::bytes, state_.get());
                state_->types[1] = free_type_->get();
                free_send_.resize(order_free_record<T>::bytes);
                free_recv_.resize(order_free_record<T>::bytes);
            }
            free_op_ = std::make_unique<net::user_op>(f, true);
            free_fn_ = f;
        }
    }

    /// The MPI operation for operator type Op (made on the first call; a reducer keeps one Op type).
    template <class Op>
    void bind()
    {
        MPI_User_function* f = &merge<Op>;
        if (op_fn_ != f) {
            op_ = std::make_unique<net::user_op>(f);
            op_fn_ = f;
        }
    }

    static boost::mpi::communicator in_index_order(const boost::mpi::communicator& comm,
                                                   const layout::block_layout& layout)
    {
        const auto order = layout.index_order();
        if (std::is_sorted(order.begin(), order.end())) {
            return comm;
        }
        const auto me = static_cast<int>(std::find(order.begin(), order.end(), comm.rank()) - order.begin());
        return comm.split(0, me);
    }

    boost::mpi::communicator comm_;
    int rank_;
    index_tree::index_t n_;
    layout::block block_;
    std::vector<index_tree::node> local_nodes_;
    int finisher_ = 0;
    std::unique_ptr<state> state_; // its address is the datatype's attribute
    std::unique_ptr<net::bound_datatype> type_;
    std::unique_ptr<net::user_op> op_;
    MPI_User_function* op_fn_ = nullptr;
    std::vector<char> send_;
    std::vector<char> recv_;
    std::vector<T> local_values_; // capacity kept
    // the order-free path's datatype, commutative operation and records (made on first use)
    std::unique_ptr<net::bound_datatype> free_type_;
    std::unique_ptr<net::user_op> free_op_;
    MPI_User_function* free_fn_ = nullptr;
    std::vector<char> free_send_;
    std::vector<char> free_recv_;
    MPI_Request request_ = MPI_REQUEST_NULL;
    bool active_ = false;
    bool order_free_call_ = false; // the outstanding or last call took the order-free path
};

/// The native exchange's plan for T that is not trivially copyable: the binomial tree's
/// schedule (an MPI_Op sees raw bytes only).
template <class T>
class native_fallback : public executor<T> {
public:
    /// Plans the binomial tree from the layout alone (no communication).
    native_fallback(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        : executor<T>(comm, core_schedule("binomial", layout, comm.rank()))
    {
    }
};

/// Exchange policy: the MPI library's reductions over frontier records (see file comment).
struct native {
    /// The exchange's name (the C API's "exchange" option).
    static constexpr const char* name = "native";

    /// native_plan for trivially copyable T, else the binomial tree's schedule.
    template <class T>
    using plan = std::conditional_t<std::is_trivially_copyable_v<T>, native_plan<T>, native_fallback<T>>;
};

} // namespace treefold::exchange
