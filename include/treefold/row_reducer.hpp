#pragma once
/// Reproducible reduction of vector elements: each of the N global elements is a row of k
/// values (k chosen at run time, rows stored row-major), and all k columns go through the
/// same fixed tree in one pass. Column c of the result has exactly the bits a
/// treefold::reducer gives for column c alone, for every process count and layout.
///
/// For a width known at compile time, treefold::reducer<std::array<T, k>,
/// ops::columnwise<Op>> does the same with rows that travel as raw bytes.

#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reduction_core.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
    using value_type = T;
    using operator_type = Op;
    using exchange_type = Exchange;

    /// Plans the reduction of rows of `k` values (collective over `comm`); k must be > 0.
    row_reducer(comm_view comm, layout::block_layout layout, std::size_t k, Op op = Op{})
        : core_(comm, std::move(layout), k), k_(k), op_(std::move(op)), anchors_(core_.local_count())
    {
    }

    /// The k column results on every rank (the same bits everywhere). `local` holds this
    /// rank's rows, row-major: local_count() * k values. Failures behave as in
    /// treefold::reducer::all_reduce (N = 0 throws std::domain_error on every rank).
    std::vector<T> all_reduce(std::span<const T> local)
    {
        row_op ro{&op_, k_, local.data(), anchors_.data()};
        return core_.template all_reduce<row_kernel>(anchors_.data(), local.size(), ro).values;
    }

    /// all_reduce(local) written to `result`, which must hold width() values (checked after
    /// the collective call, so a wrong size throws std::invalid_argument on this rank alone
    /// and leaves no rank waiting).
    void all_reduce(std::span<const T> local, std::span<T> result)
    {
        std::vector<T> values = all_reduce(local);
        if (result.size() != k_) {
            throw std::invalid_argument("treefold: row_reducer result buffer holds " + std::to_string(result.size()) +
                                        " values, the row width is " + std::to_string(k_));
        }
        std::copy(values.begin(), values.end(), result.begin());
    }

    /// The k column results on `root` only (nullopt elsewhere). Collective.
    std::optional<std::vector<T>> reduce(std::span<const T> local, int root)
    {
        row_op ro{&op_, k_, local.data(), anchors_.data()};
        auto out = core_.template reduce<row_kernel>(anchors_.data(), local.size(), ro, root);
        if (!out) {
            return std::nullopt;
        }
        return std::move(out->values);
    }

    /// Row width k.
    std::size_t width() const { return k_; }
    /// Number of rows this rank must pass (it passes local_count() * width() values).
    std::uint64_t local_count() const { return core_.local_count(); }
    /// The layout (of rows) this reducer was planned for.
    const layout::block_layout& layout() const { return core_.layout(); }
    /// Messages and bytes this rank sent during the last call.
    const net::counters& last_counters() const { return core_.last_counters(); }

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
            R out{std::vector<T>(ro.k)};
            kernel::reduce_rows<xsimd::default_arch>(ro.data + index * ro.k, len, ro.k, *ro.op,
                                                             out.values.data());
            return out;
        }
    };

    detail::reduction_core<row<T>, Exchange> core_;
    std::size_t k_;
    Op op_;
    std::vector<row<T>> anchors_;
};

} // namespace treefold
