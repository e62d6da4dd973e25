#pragma once
/// Reproducible reduction of vector elements: each of the N global elements is a row of k
/// values (k chosen at run time, rows stored row-major), and all k columns go through the
/// same fixed tree in one pass. Column c of the result has exactly the bits a
/// treefold::reducer gives for column c alone, for every process count and layout.
///
/// For a width known at compile time, treefold::reducer<std::array<T, k>,
/// ops::columnwise<Op>> does the same with rows that travel as raw bytes.

#include "treefold/collective/layout_agreement.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/exchange/wire.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treefold {

/// One row of k values: the value type of the frontiers a row_reducer exchanges.
template <class T>
struct row {
    std::vector<T> values;

    template <class Archive>
    void serialize(Archive& ar, unsigned /*version*/)
    {
        ar & values;
    }
};

/// Reduces N rows of k values spread over the ranks of a communicator (see the file
/// comment). Op is a binary operator on T applied column by column (ops::plus by default;
/// a generic lambda takes the SIMD row kernel, other operators a scalar one). Exchange is
/// exchange::direct or exchange::tree<Shape>, as for treefold::reducer.
///
/// Construction is collective and checks the layout like treefold::reducer. The exchange
/// plans index the local block by element, so the reducer keeps one empty row object per
/// local row (sizeof(row<T>) bytes each, allocated once, never touched by a call): prefer
/// the std::array form for narrow rows.
template <class T, reduction_operator<T> Op = ops::plus, exchange_policy<row<T>> Exchange = exchange::direct>
class row_reducer {
public:
    /// Plans the reduction of rows of `k` values (collective over `comm`); k must be > 0.
    row_reducer(const boost::mpi::communicator& comm, layout::block_layout layout, std::size_t k, Op op = Op{})
        : comm_(comm, boost::mpi::comm_duplicate),
          layout_(checked(comm_, std::move(layout), k)),
          k_(k),
          op_(std::move(op)),
          anchors_(layout_.block_of(comm_.rank()).count),
          plan_(comm_, layout_)
    {
    }

    /// The k column results on every rank (the same bits everywhere). `local` holds this
    /// rank's rows, row-major: local_count() * k values. Failures behave as in
    /// treefold::reducer::all_reduce (N = 0 throws std::domain_error on every rank).
    std::vector<T> all_reduce(std::span<const T> local)
    {
        exchange::outcome<row<T>> out = exchange_step(local);
        exchange::broadcast_outcome(comm_, plan_.finisher(), out, last_);
        finish(out);
        return std::move(out.value->values);
    }

    /// The k column results on `root` only (nullopt elsewhere). Collective.
    std::optional<std::vector<T>> reduce(std::span<const T> local, int root)
    {
        if (root < 0 || root >= comm_.size()) {
            throw std::invalid_argument("treefold: reduce root " + std::to_string(root) +
                                        " is not a rank of a communicator of size " +
                                        std::to_string(comm_.size()));
        }
        exchange::outcome<row<T>> out = exchange_step(local);
        const int from = plan_.finisher();
        if (from != root) {
            if (comm_.rank() == from) {
                if (out.failed) {
                    exchange::wire<row<T>>::send_failure(comm_, root, *out.failed, last_);
                } else {
                    exchange::wire<row<T>>::send(comm_, root, &*out.value, 1, last_);
                }
                out.value.reset();
            } else if (comm_.rank() == root) {
                std::optional<exchange::failure> failed;
                row<T> v;
                if (exchange::wire<row<T>>::recv(comm_, from, &v, 1, failed) == 1) {
                    out.value = std::move(v);
                }
                out.failed = failed ? failed : out.failed;
            }
        }
        if (out.failed || own_error_) {
            finish(out);
        }
        if (comm_.rank() != root) {
            return std::nullopt;
        }
        finish(out);
        return std::move(out.value->values);
    }

    /// Row width k.
    std::size_t width() const { return k_; }
    /// Number of rows this rank must pass (it passes local_count() * width() values).
    std::uint64_t local_count() const { return layout_.block_of(comm_.rank()).count; }
    /// The layout (of rows) this reducer was planned for.
    const layout::block_layout& layout() const { return layout_; }
    /// Messages and bytes this rank sent during the last call.
    const exchange::counters& last_counters() const { return last_; }

private:
    /// What the exchange sees as "the operator": combines whole rows, and carries what the
    /// row kernel needs to find a node's rows in the caller's span.
    struct row_op {
        Op* op;
        std::size_t k;
        const T* data;            // this call's local rows
        const row<T>* anchors;    // anchors[i] stands for local row i

        row<T> operator()(const row<T>& a, const row<T>& b) const
        {
            row<T> out{std::vector<T>(k)};
            for (std::size_t c = 0; c < k; ++c) {
                out.values[c] = (*op)(a.values[c], b.values[c]);
            }
            return out;
        }
    };

    /// Kernel policy for the exchange plans: a node's rows through the row kernels.
    struct row_kernel {
        template <class R>
        static R reduce_node(const R* first, std::uint64_t len, row_op& ro)
        {
            const auto index = static_cast<std::size_t>(first - ro.anchors);
            const T* rows = ro.data + index * ro.k;
            R out{std::vector<T>(ro.k)};
            constexpr ops::builtin_kind kind = ops::builtin_kind_of<Op, T>;
            if constexpr (ops::is_builtin_type<T> && kind != ops::builtin_kind::none) {
                static const auto fn = kernel::dispatch_detail::builtin_row_kernel<T, kind>();
                fn(rows, len, ro.k, out.values.data(), kernel::dispatch_detail::row_scratch<T>(len, ro.k));
            } else if constexpr (kernel::dispatch_detail::batch_callable<Op, T, xsimd::default_arch>) {
                kernel::rows<xsimd::default_arch>::reduce(rows, len, ro.k, *ro.op, out.values.data(),
                                                          kernel::dispatch_detail::row_scratch<T>(len, ro.k));
            } else {
                scalar_rows(rows, len, ro, out.values.data());
            }
            return out;
        }

        /// The binary counter of kernel::scalar over whole rows.
        static void scalar_rows(const T* rows, std::uint64_t len, row_op& ro, T* out)
        {
            const std::size_t k = ro.k;
            std::vector<T> stack(static_cast<std::size_t>(std::bit_width(len) + 1) * k);
            std::size_t depth = 0;
            auto combine = [&](T* left, const T* right) {
                for (std::size_t c = 0; c < k; ++c) {
                    left[c] = (*ro.op)(std::as_const(left[c]), right[c]);
                }
            };
            for (std::uint64_t j = 0; j < len; ++j) {
                const T* r = rows + j * k;
                int pairs = std::countr_zero(j + 1);
                if (pairs == 0) {
                    std::copy(r, r + k, stack.data() + depth * k);
                    ++depth;
                    continue;
                }
                combine(stack.data() + (depth - 1) * k, r);
                for (--pairs; pairs > 0; --pairs, --depth) {
                    combine(stack.data() + (depth - 2) * k, stack.data() + (depth - 1) * k);
                }
            }
            for (; depth > 1; --depth) {
                combine(stack.data() + (depth - 2) * k, stack.data() + (depth - 1) * k);
            }
            std::copy(stack.data(), stack.data() + k, out);
        }
    };

    static layout::block_layout checked(const boost::mpi::communicator& comm, layout::block_layout l,
                                        std::size_t k)
    {
        verify_same_layout(comm, l);
        if (k == 0) {
            throw std::invalid_argument("treefold: row width must be positive");
        }
        return l;
    }

    exchange::outcome<row<T>> exchange_step(std::span<const T> local)
    {
        last_ = {};
        own_error_ = nullptr;
        if (layout_.size() == 0) {
            throw std::domain_error("treefold: reduction of N = 0 values has no result");
        }
        std::optional<exchange::failure> failed;
        if (local.size() != local_count() * k_) {
            failed = exchange::failure{exchange::failure::code::local_size, comm_.rank(), local.size(),
                                       local_count() * k_};
        }
        row_op ro{&op_, k_, local.data(), anchors_.data()};
        return plan_.template run<row_kernel>(anchors_.data(), ro, failed, last_, own_error_);
    }

    void finish(const exchange::outcome<row<T>>& out) const { exchange::throw_if_failed(out, own_error_); }

    boost::mpi::communicator comm_;
    layout::block_layout layout_;
    std::size_t k_;
    Op op_;
    std::vector<row<T>> anchors_;
    typename Exchange::template plan<row<T>> plan_;
    exchange::counters last_;
    std::exception_ptr own_error_;
};

} // namespace treefold
