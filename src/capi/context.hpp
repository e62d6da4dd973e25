#pragma once
// The C API's contexts (include/treefold/treefold.h): a treefold::reducer behind a
// type-erased interface, one instantiation per (element type, operation). Internal to
// src/capi and the language bindings built on it.

#include "treefold/all_reduce.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"
#include "treefold/thread_pool.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace treefold::capi::detail {

/// The element types the C API reduces.
enum class element : int { none = 0, f64, f32, i32, i64, c64 };
/// The operations: the four MPI built-ins treefold maps to its own operators, or a
/// user-created MPI_Op applied with MPI_Reduce_local.
enum class operation : int { none = 0, sum, prod, min, max, user };

/// The element type of an MPI datatype handle (element::none when unsupported).
element element_of(MPI_Datatype type);
/// The operation of an MPI_Op handle (operation::none for MPI_OP_NULL and the predefined
/// operations treefold does not map, such as MPI_BAND).
operation operation_of(MPI_Op op);

/// Thrown by user_op when MPI_Reduce_local fails (its message names the MPI error code).
class mpi_call_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A user-created MPI_Op as a treefold operator: left op right, the left operand covering
/// the lower indices (MPI_Reduce_local(in, inout) computes inout = in op inout).
template <class T>
struct user_op {
    MPI_Op op;
    MPI_Datatype type;
    T operator()(const T& left, const T& right) const
    {
        T out = right;
        const int rc = MPI_Reduce_local(&left, &out, 1, type, op);
        if (rc != MPI_SUCCESS) {
            throw mpi_call_error("MPI_Reduce_local failed (MPI error " + std::to_string(rc) + ")");
        }
        return out;
    }
};

/// A nonblocking call in flight (context::start): test() polls; finish() completes it,
/// writes its result and throws what the blocking call would.
class pending {
public:
    virtual ~pending() = default;
    virtual bool test() = 0;
    virtual void finish() = 0;
};

/// The local kernels a C context may name (option "kernel"): kernel::best (the default),
/// kernel::scalar, or one architecture's precompiled SIMD kernel (kernel::simd<Arch>). Every
/// one gives the same bits.
enum class kernel_choice : unsigned char { best, scalar, sse2, avx2, avx512f };

/// The option's name of each choice ("best", "scalar", "sse2", "avx2", "avx512f").
const char* kernel_name(kernel_choice k);

/// The choice of the context whose call runs on this thread (kernel_scope sets it; a
/// context's pool sets it on its workers). A thread-local rather than a template argument,
/// so one reducer instantiation per (type, operation) serves every kernel.
inline thread_local kernel_choice current_kernel = kernel_choice::best;

/// Sets current_kernel for its lifetime.
class kernel_scope {
public:
    explicit kernel_scope(kernel_choice k) noexcept : saved_(std::exchange(current_kernel, k)) {}
    kernel_scope(const kernel_scope&) = delete;
    kernel_scope& operator=(const kernel_scope&) = delete;
    ~kernel_scope() { current_kernel = saved_; }

private:
    kernel_choice saved_;
};

/// The C API's kernel policy: the kernel current_kernel names. The architecture kernels exist
/// for the built-in operators on real and integer types only (creation refuses them
/// elsewhere); for the others kernel::best runs, which is kernel::scalar there.
struct chosen_kernel {
    static constexpr const char* name = "chosen";

    template <class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op)
    {
        using O = std::remove_cv_t<Op>;
        if constexpr (ops::is_builtin_type<T> && ops::builtin_kind_of<O, T> != ops::builtin_kind::none) {
            switch (current_kernel) {
            case kernel_choice::scalar:
                return kernel::scalar::reduce_node(first, len, op);
            case kernel_choice::sse2:
                return kernel::simd<xsimd::sse2>::reduce_node(first, len, op);
            case kernel_choice::avx2:
                return kernel::simd<xsimd::avx2>::reduce_node(first, len, op);
            case kernel_choice::avx512f:
                return kernel::simd<xsimd::avx512f>::reduce_node(first, len, op);
            case kernel_choice::best:
                break;
            }
        }
        return kernel::best::reduce_node(first, len, op);
    }
};

/// A context's threads: a thread_pool whose tasks run under the context's kernel choice
/// (current_kernel is per thread, and the pool's workers are not the caller).
class kernel_pool {
public:
    kernel_pool(std::size_t threads, const kernel_choice& choice) : pool_(threads), choice_(choice) {}
    std::size_t concurrency() const noexcept { return pool_.concurrency(); }
    void run(std::size_t n, const task_ref& task)
    {
        const kernel_choice k = choice_;
        auto under_choice = [&task, k](std::size_t i) {
            const kernel_scope scope(k);
            task(i);
        };
        pool_.run(n, under_choice);
    }

private:
    thread_pool pool_;
    const kernel_choice& choice_;
};

/// What a context does, whatever its element type and operation.
class context {
public:
    virtual ~context() = default;
    /// The reduction of this rank's values at `local` into *result on every rank.
    /// `ok` false: this rank's buffers are unusable; the call still takes part (so no rank
    /// waits) and every rank throws.
    virtual void all_reduce(const void* local, bool ok, void* result) = 0;
    /// The reduction into *result on `root` (result untouched elsewhere).
    virtual void reduce(const void* local, bool ok, void* result, int root) = 0;
    /// Starts all_reduce (no root) or reduce to `root` (any int: one out of range fails on
    /// every rank) without waiting (reducer::iall_reduce, ireduce); `local` and `result` must
    /// stay valid until the call is finished.
    virtual std::unique_ptr<pending> start(const void* local, bool ok, void* result, std::optional<int> root) = 0;
    /// The context's own buffer of local_count elements (allocated on first use).
    virtual void* buffer() = 0;
    /// The reducer's threads option (reducer::set_threads) and its current value.
    virtual void set_threads(std::size_t threads) = 0;
    /// The local kernel of the calls from now on (set before the first call).
    kernel_choice kernel = kernel_choice::best;
    virtual std::size_t threads() const = 0;
    /// What this rank sent during the last call.
    virtual net::counters last_counters() const = 0;
    /// The exchange the reducer runs (automatic's choice, made when it was planned).
    std::string exchange;
    /// Values per global index: 1, or k for an element-wise context (rows of k values, k
    /// results).
    std::uint64_t width = 1;
    /// This rank's count and N.
    std::uint64_t local_count = 0;
    std::uint64_t global_count = 0;
    /// This rank and the size of the communicator.
    int rank = 0;
    int size = 0;
};

/// The context for element type T under `op` (user: `user` and `type` are the MPI handles).
/// Collective (builds a treefold::reducer); throws what the reducer's constructor throws.
template <class T>
std::unique_ptr<context> make_context(const boost::mpi::communicator& comm, layout::block_layout layout,
                                      operation op, MPI_Op user, MPI_Datatype type);

// The element types as X(element, T) (generated from the list in src/capi/sources.cmake, which
// also makes one translation unit per type).
#include "elements.hpp"

/// The element-wise context: rows of `width` values per global index, each column reduced over
/// the global index (a row_reducer). Collective.
template <class T>
std::unique_ptr<context> make_row_context(const boost::mpi::communicator& comm, layout::block_layout layout,
                                          std::uint64_t width, operation op, MPI_Op user, MPI_Datatype type);

#define TREEFOLD_CAPI_DECLARE(element, T)                                                            \
    extern template std::unique_ptr<context> make_context<T>(const boost::mpi::communicator&,        \
                                                             layout::block_layout, operation, MPI_Op, \
                                                             MPI_Datatype);                           \
    extern template std::unique_ptr<context> make_row_context<T>(                                    \
        const boost::mpi::communicator&, layout::block_layout, std::uint64_t, operation, MPI_Op, MPI_Datatype);
TREEFOLD_CAPI_ELEMENTS(TREEFOLD_CAPI_DECLARE)
#undef TREEFOLD_CAPI_DECLARE

/// What typed_context and row_context share: the fields their reducer fills in, and this rank's
/// local_count * width values of T (a span of them, or the context's own buffer).
template <class T>
class context_of : public context {
public:
    void* buffer() override
    {
        if (buffer_.size() != local_count * width) {
            buffer_.assign(local_count * width, T{});
        }
        return buffer_.empty() ? nullptr : buffer_.data();
    }

protected:
    /// Reads local_count, N and the exchange from reducer `r`, rank and size from `comm`.
    template <class Reducer>
    void describe(const Reducer& r, const boost::mpi::communicator& comm)
    {
        local_count = r.local_count();
        global_count = r.layout().size();
        rank = comm.rank();
        size = comm.size();
        exchange = std::string(r.exchange_used());
    }

    /// This rank's values at `local`; for an unusable buffer (`ok` false) a span of the wrong
    /// size (empty, or the one element wrong_size_), which the reducer turns into a failure every
    /// rank learns of (it never reads such a span).
    std::span<const T> span_of(const void* local, bool ok) const
    {
        const std::uint64_t values = local_count * width;
        if (ok) {
            return {static_cast<const T*>(local), values};
        }
        if (values > 0) {
            return {};
        }
        return {&wrong_size_, 1};
    }

private:
    std::vector<T> buffer_;
    T wrong_size_{};
};

/// A reducer<T, Op> behind the context interface.
template <class T, class Op>
class typed_context final : public context_of<T> {
public:
    typed_context(const boost::mpi::communicator& comm, layout::block_layout layout, Op op)
        : reducer_(comm, std::move(layout), std::move(op))
    {
        this->describe(reducer_, reducer_.communicator());
    }

    void all_reduce(const void* local, bool ok, void* result) override
    {
        const kernel_scope scope(this->kernel);
        const T value = reducer_.all_reduce(this->span_of(local, ok));
        if (result != nullptr) { // a NULL result on a rank with no values need not fail everywhere
            std::memcpy(result, &value, sizeof(T));
        }
    }

    void reduce(const void* local, bool ok, void* result, int root) override
    {
        const kernel_scope scope(this->kernel);
        const std::optional<T> value = reducer_.reduce(this->span_of(local, ok), root);
        if (value && result != nullptr) {
            std::memcpy(result, &*value, sizeof(T));
        }
    }

    std::unique_ptr<pending> start(const void* local, bool ok, void* result, std::optional<int> root) override
    {
        const kernel_scope scope(this->kernel); // (the local kernel runs before start returns)
        if (!root) {
            return std::make_unique<started<T>>(reducer_.iall_reduce(this->span_of(local, ok)), result);
        }
        return std::make_unique<started<std::optional<T>>>(reducer_.ireduce(this->span_of(local, ok), *root), result);
    }

    void set_threads(std::size_t threads) override
    {
        reducer_.set_threads(1);
        pool_.reset();
        if (threads > 1) {
            pool_ = std::make_unique<kernel_pool>(threads, this->kernel);
            reducer_.set_threads(*pool_);
        }
    }
    std::size_t threads() const override { return reducer_.threads(); }
    net::counters last_counters() const override { return reducer_.last_counters(); }

private:
    /// A request of the reducer (R: T, or std::optional<T> for a reduce) and where its result goes.
    template <class R>
    struct started final : pending {
        started(request<T, R> call, void* result) : call(std::move(call)), result(result) {}
        bool test() override { return call.test(); }
        void finish() override
        {
            const std::optional<T> value = call.wait();
            if (value && result != nullptr) {
                std::memcpy(result, &*value, sizeof(T));
            }
        }
        request<T, R> call;
        void* result;
    };

    std::unique_ptr<kernel_pool> pool_; // (before reducer_, which refers to it, so it outlives it)
    reducer<T, Op, chosen_kernel> reducer_;
};

/// A row_reducer<T, Op> behind the context interface: `local` holds local_count rows of
/// `width` values, row-major; `result` receives `width` values.
template <class T, class Op>
class row_context final : public context_of<T> {
public:
    row_context(const boost::mpi::communicator& comm, layout::block_layout layout, std::uint64_t k, Op op)
        : reducer_(comm, std::move(layout), k, std::move(op))
    {
        this->width = k;
        this->describe(reducer_, comm);
    }

    void all_reduce(const void* local, bool ok, void* result) override
    {
        if (result == nullptr) { // only where this rank already fails (ok false, or no values)
            (void)reducer_.all_reduce(this->span_of(local, ok));
            return;
        }
        reducer_.all_reduce(this->span_of(local, ok), std::span<T>(static_cast<T*>(result), this->width));
    }

    void reduce(const void* local, bool ok, void* result, int root) override
    {
        const std::size_t n = result == nullptr ? 0 : this->width;
        reducer_.reduce(this->span_of(local, ok), root, std::span<T>(static_cast<T*>(result), n));
    }

    std::unique_ptr<pending> start(const void*, bool, void*, std::optional<int>) override
    {
        throw std::logic_error("treefold: no nonblocking call on rows (internal error: the C API refuses it)");
    }

    /// Rows take no threads option (create refuses it).
    void set_threads(std::size_t) override {}
    std::size_t threads() const override { return 1; }
    net::counters last_counters() const override { return reducer_.last_counters(); }

private:
    row_reducer<T, Op> reducer_;
};

/// Calls f(functor) with the operator functor for `op` on T: treefold's own built-in
/// operators (so the precompiled kernels run, with the bits of reducer<T> under the same
/// operator), std::plus / std::multiplies for complex, user_op<T> for a user-created MPI_Op.
template <class T, class F>
decltype(auto) with_operator(operation op, MPI_Op user, MPI_Datatype type, F&& f)
{
    constexpr bool is_complex = std::is_same_v<T, std::complex<double>>;
    switch (op) {
    case operation::sum:
        if constexpr (is_complex) {
            return f(std::plus<T>{});
        } else {
            return f(ops::plus{});
        }
    case operation::prod:
        if constexpr (is_complex) {
            return f(std::multiplies<T>{});
        } else {
            return f(ops::multiplies{});
        }
    case operation::min:
        if constexpr (!is_complex) {
            return f(ops::min{});
        }
        break;
    case operation::max:
        if constexpr (!is_complex) {
            return f(ops::max{});
        }
        break;
    case operation::user:
        return f(user_op<T>{user, type});
    case operation::none:
        break;
    }
    throw std::logic_error("treefold: no operator for this element type (internal error)");
}

template <class T>
std::unique_ptr<context> make_context(const boost::mpi::communicator& comm, layout::block_layout layout,
                                      operation op, MPI_Op user, MPI_Datatype type)
{
    return with_operator<T>(op, user, type, [&]<class Op>(Op functor) -> std::unique_ptr<context> {
        return std::make_unique<typed_context<T, Op>>(comm, std::move(layout), std::move(functor));
    });
}

template <class T>
std::unique_ptr<context> make_row_context(const boost::mpi::communicator& comm, layout::block_layout layout,
                                          std::uint64_t width, operation op, MPI_Op user, MPI_Datatype type)
{
    return with_operator<T>(op, user, type, [&]<class Op>(Op functor) -> std::unique_ptr<context> {
        return std::make_unique<row_context<T, Op>>(comm, std::move(layout), width, std::move(functor));
    });
}

} // namespace treefold::capi::detail

namespace treefold::kernel {
/// MPI_Reduce_local takes one element at a time: never try the operator on SIMD batches.
template <class T>
struct allow_simd<capi::detail::user_op<T>> : std::false_type {};
} // namespace treefold::kernel
