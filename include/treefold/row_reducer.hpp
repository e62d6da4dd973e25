#pragma once
/// Reproducible reduction of vector elements: each of the N global elements is a row of k
/// values (k chosen at run time, rows stored row-major), and all k columns go through the
/// same fixed tree in one pass. Column c of the result has exactly the bits a
/// treefold::reducer gives for column c alone, for every process count and layout.
///
/// After its first call a row_reducer allocates nothing per call (result-buffer forms): the
/// rows the exchanges move are handles into the reducer's row arena, and they travel as k raw
/// values each through their own net::codec. For a width known at compile time,
/// treefold::reducer<std::array<T, k>, ops::columnwise<Op>> does the same without handles.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/reducer_base.hpp"

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <string_view>
#include <vector>

namespace treefold {

/// One row of k values, the value type of the frontiers a row_reducer exchanges: a handle
/// (pointer and width) to values that live in a row_reducer's row arena, valid until that
/// reducer's next call. Copies share the values; nothing writes a row once it is made.
template <class T>
class row {
public:
    /// An empty handle (no values).
    row() = default;
    /// The k values at `values`.
    row(T* values, std::size_t k) noexcept : values_(values), k_(k) {}
    /// A plain copy of the handle, but user-provided: a row is not trivially copyable, so no
    /// raw-bytes path (they test std::is_trivially_copyable_v) ever sends the pointer; rows
    /// travel through their own net::codec.
    row(const row& other) noexcept : values_(other.values_), k_(other.k_) {}
    /// See the copy constructor.
    row& operator=(const row& other) noexcept
    {
        values_ = other.values_;
        k_ = other.k_;
        return *this;
    }

    /// The values.
    std::span<T> values() const noexcept { return {values_, k_}; }
    /// The first value (null for an empty handle).
    T* data() const noexcept { return values_; }
    /// The width k.
    std::size_t size() const noexcept { return k_; }

private:
    T* values_ = nullptr;
    std::size_t k_ = 0;
};

/// Rows travel through their own codec (net::codec<row<T>>, below).
template <class T>
struct has_own_codec<row<T>> : std::true_type {};

namespace detail {

/// Room for the rows of a row_reducer's calls: chunks of rows of k values that never move
/// (the first of 64 rows, each next one twice the last), handed out in order from the start
/// of every call. A call allocates only when it needs more rows than every earlier call.
template <class T>
class row_arena {
public:
    explicit row_arena(std::size_t k) : k_(k) {}

    /// Makes every row free again (the rows of the previous call are dead).
    void reset() noexcept
    {
        chunk_ = 0;
        used_ = 0;
    }

    /// A fresh row of k values.
    row<T> take()
    {
        if (chunk_ < chunks_.size() && used_ == rows_in(chunk_)) {
            ++chunk_;
            used_ = 0;
        }
        if (chunk_ == chunks_.size()) {
            chunks_.push_back(std::make_unique<T[]>(rows_in(chunk_) * k_));
        }
        return row<T>(chunks_[chunk_].get() + used_++ * k_, k_);
    }

    /// Values per row.
    std::size_t width() const noexcept { return k_; }

private:
    static std::size_t rows_in(std::size_t chunk) noexcept { return std::size_t{64} << chunk; }

    std::size_t k_;
    std::vector<std::unique_ptr<T[]>> chunks_;
    std::size_t chunk_ = 0; // the chunk rows are taken from
    std::size_t used_ = 0;  // rows taken from it
};

/// The arena this thread's row_reducer call of rows of T takes received rows from (null
/// outside a call): net::codec<row<T>> reads rows into it, and a codec sees no reducer.
template <class T>
row_arena<T>*& current_row_arena() noexcept
{
    thread_local row_arena<T>* arena = nullptr;
    return arena;
}

/// Makes `arena` the thread's current one for a call, emptied first; restores the previous
/// one after (so a row_reducer called from another's operator keeps each call's arena).
template <class T>
class row_arena_scope {
public:
    explicit row_arena_scope(row_arena<T>& arena) noexcept : saved_(current_row_arena<T>())
    {
        arena.reset();
        current_row_arena<T>() = &arena;
    }
    ~row_arena_scope() { current_row_arena<T>() = saved_; }
    row_arena_scope(const row_arena_scope&) = delete;
    row_arena_scope& operator=(const row_arena_scope&) = delete;

private:
    row_arena<T>* saved_;
};

} // namespace detail

namespace net {

/// Rows as bytes: the row count (8 bytes), then each row's k values as raw T. Read into rows
/// of the thread's current row arena, whose width the message must match.
template <class T>
struct codec<row<T>> {
    static_assert(std::is_trivially_copyable_v<T>, "treefold: row values travel as raw bytes");
    /// Never raw: the handle's pointer must not travel.
    static constexpr bool raw = false;

    /// Appends the encoding of rows[0, n) to `out`.
    static void append(const boost::mpi::communicator& /*comm*/, const row<T>* rows, std::size_t n,
                       std::vector<char>& out)
    {
        const auto count = static_cast<std::uint64_t>(n);
        std::size_t at = out.size();
        std::size_t size = sizeof count;
        for (std::size_t i = 0; i < n; ++i) {
            size += rows[i].size() * sizeof(T);
        }
        out.resize(at + size);
        std::memcpy(out.data() + at, &count, sizeof count);
        at += sizeof count;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t bytes = rows[i].size() * sizeof(T);
            if (bytes > 0) {
                std::memcpy(out.data() + at, static_cast<const void*>(rows[i].data()), bytes);
            }
            at += bytes;
        }
    }

    /// Decodes bytes [data, data + size) into fresh rows of the current arena at out[0, max);
    /// returns the count. A count above `max` or a size that does not fit the arena's width
    /// is an internal error.
    static std::size_t read(const boost::mpi::communicator& /*comm*/, const char* data, std::size_t size,
                            row<T>* out, std::size_t max)
    {
        detail::row_arena<T>* arena = detail::current_row_arena<T>();
        if (arena == nullptr) {
            throw std::logic_error("treefold: rows received outside a row_reducer call (internal error)");
        }
        std::uint64_t count = 0;
        if (size < sizeof count) {
            unexpected_size();
        }
        std::memcpy(&count, data, sizeof count);
        const std::size_t bytes = arena->width() * sizeof(T);
        if (count > max || size - sizeof count != count * bytes) {
            unexpected_size();
        }
        for (std::uint64_t i = 0; i < count; ++i) {
            out[i] = arena->take();
            std::memcpy(static_cast<void*>(out[i].data()), data + sizeof count + i * bytes, bytes);
        }
        return static_cast<std::size_t>(count);
    }
};

} // namespace net

/// Reduces N rows of k values spread over the ranks of a communicator (see the file
/// comment). Op is a binary operator on T applied column by column (ops::plus by default;
/// an operator opted in by kernel::allow_simd takes the SIMD row kernel, other operators,
/// generic lambdas included, a scalar one). Exchange is
/// exchange::automatic (the default, as for every reducer: it takes the direct exchange for
/// rows, which cannot be timed outside a call), exchange::direct or exchange::tree<Shape>.
///
/// Construction is collective and checks the layout like treefold::reducer, and that every
/// rank passes the same k > 0. The exchange plans find a node's rows by their offset in the
/// local block (an offset kernel). The rows a call makes live in the reducer's
/// arena (a few per tree level and message, kept for later calls); a reducer is not meant
/// to be called from its own operator.
template <class T, reduction_operator<T> Op = ops::plus, exchange_policy<row<T>> Exchange = exchange::automatic>
class row_reducer : public reducer_base<row<T>, Exchange> {
    static_assert(transportable<row<T>>);
    using base = reducer_base<row<T>, Exchange>;

public:
    using value_type = T;           ///< The type of one value of a row.
    using operator_type = Op;       ///< The operator, applied column by column.
    using exchange_type = Exchange; ///< The exchange policy (combines the ranks' partial rows).

    /// Plans the reduction of rows of `k` values (collective over `comm`); k must be > 0.
    row_reducer(comm_view comm, layout::block_layout layout, std::size_t k, Op op = Op{})
        : base((detail::refuse_fp_contraction<Op, T>(), comm), std::move(layout), k), k_(k), op_(std::move(op)),
          arena_(k)
    {
    }

    /// The k column results on every rank (the same bits everywhere). `local` holds this
    /// rank's rows, row-major: local_count() * k values. Failures, N = 0 (a row of the
    /// identity per column), NaN results (per column) and floating-point contraction behave as
    /// in treefold::reducer. The returned vector is this form's one allocation per call.
    std::vector<T> all_reduce(std::span<const T> local)
    {
        const detail::row_arena_scope<T> scope(arena_);
        const row<T> out = all_reduce_row(local);
        return std::vector<T>(out.data(), out.data() + k_);
    }

    /// all_reduce(local) written to `result`, which must hold width() values (checked after
    /// the collective call, so a wrong size throws std::invalid_argument on this rank alone
    /// and leaves no rank waiting). Allocates nothing after the first call.
    void all_reduce(std::span<const T> local, std::span<T> result)
    {
        const detail::row_arena_scope<T> scope(arena_);
        copy_out(all_reduce_row(local), result);
    }

    /// The k column results on `root` only (nullopt elsewhere). Collective. Failures are
    /// thrown as in treefold::reducer::reduce: on every rank.
    std::optional<std::vector<T>> reduce(std::span<const T> local, int root)
    {
        const detail::row_arena_scope<T> scope(arena_);
        const std::optional<row<T>> out = reduce_row(local, root);
        if (!out) {
            return std::nullopt;
        }
        return std::vector<T>(out->data(), out->data() + k_);
    }

    /// reduce(local, root) written to `result` on `root`, which must hold width() values there
    /// (checked after the collective call, on root alone, like all_reduce's). Other ranks'
    /// `result` is neither checked nor touched (it may be empty). Collective; allocates nothing
    /// after the first call.
    void reduce(std::span<const T> local, int root, std::span<T> result)
    {
        const detail::row_arena_scope<T> scope(arena_);
        if (const std::optional<row<T>> out = reduce_row(local, root)) {
            copy_out(*out, result);
        }
    }

    /// Row width k (a rank passes local_count() * width() values).
    std::size_t width() const { return k_; }

private:
    /// What the exchange sees as "the operator": combines whole rows into fresh arena rows,
    /// and carries what the row kernel needs to find a node's rows in the caller's span.
    struct row_op {
        Op* op;
        std::size_t k;
        const T* data;            // this call's local rows
        detail::row_arena<T>* arena; // the scope's current arena, kept so combines skip a thread_local lookup

        row<T> operator()(const row<T>& a, const row<T>& b) const
        {
            const row<T> out = arena->take();
            for (std::size_t c = 0; c < k; ++c) {
                out.data()[c] = (*op)(a.data()[c], b.data()[c]);
            }
            return out;
        }
    };

    /// Kernel policy for the exchange plans, in offset form: a node's rows (local rows
    /// [offset, offset + len)) through the row kernels.
    struct row_kernel {
        static row<T> reduce_at(std::uint64_t offset, std::uint64_t len, row_op& ro)
        {
            const row<T> out = ro.arena->take();
            kernel::reduce_rows<xsimd::default_arch>(ro.data + offset * ro.k, len, ro.k, *ro.op, out.data());
            return out;
        }
    };

    // The call on rows; the result is an arena row, valid until the next call.
    row<T> all_reduce_row(std::span<const T> local)
    {
        row_op ro{&op_, k_, local.data(), &arena_};
        return settled(this->template all_reduce_call<row_kernel>(nullptr, local.size(), ro, empty_result()));
    }

    std::optional<row<T>> reduce_row(std::span<const T> local, int root)
    {
        row_op ro{&op_, k_, local.data(), &arena_};
        std::optional<row<T>> out = this->template reduce_call<row_kernel>(nullptr, local.size(), ro, root, empty_result());
        if (out) {
            settled(*out);
        }
        return out;
    }

    /// N = 0's result: the operator's identity in every column, where it has one.
    auto empty_result()
    {
        if constexpr (ops::has_identity<Op, T>) {
            return [this] { return identity_row(); };
        } else {
            return detail::no_empty_result{};
        }
    }

    /// The canonical NaN in every column, under treefold's operators (see reducer::all_reduce).
    const row<T>& settled(const row<T>& out) const
    {
        if constexpr (ops::is_treefold_op<Op> && detail::nan_carrier<T>) {
            for (std::size_t c = 0; c < k_; ++c) {
                detail::canonicalize_nan(out.data()[c]);
            }
        }
        return out;
    }

    /// N = 0: the operator's identity in every column (an arena row).
    row<T> identity_row()
    {
        const row<T> out = arena_.take();
        std::fill(out.data(), out.data() + k_, ops::identity<Op, T>::value());
        return out;
    }

    void copy_out(const row<T>& out, std::span<T> result) const
    {
        if (result.size() != k_) {
            throw std::invalid_argument("treefold: row_reducer result buffer holds " + std::to_string(result.size()) +
                                        " values, the row width is " + std::to_string(k_));
        }
        std::copy(out.data(), out.data() + k_, result.begin());
    }

    std::size_t k_;
    Op op_;
    detail::row_arena<T> arena_;
};

} // namespace treefold
