#pragma once
/// Reproducible dot products: the sum over the global index of x[i] * y[i] along treefold's
/// fixed tree, the products made in the kernel's registers and never stored, with exactly the
/// bits of treefold::reducer<double> summing the stored products (for every process count,
/// layout, exchange and kernel); and several such sums in one exchange.
///
///     treefold::dot_reducer<> dot(comm, n);
///     double rr = dot.all_reduce(r, r);   // r, p: this rank's dot.local_count() doubles
///
///     treefold::dots_reducer<2> two(comm, n);  // two columns, one message per step
///     auto [pq, rz] = two.all_reduce({treefold::dot_term(p, q), treefold::dot_term(r, z)});
///     auto pending = two.iall_reduce({treefold::dot_term(p, q), treefold::dot_term(x)}); // x: a plain sum
///     ... // overlap: the exchange runs in the MPI library
///     std::array<double, 2> v = pending.wait();

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/dot.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/reducer_base.hpp"
#include "treefold/request.hpp"

#include <boost/mpi/communicator.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

namespace treefold {

/// One column of a dots_reducer call: the dot product of this rank's x and y (both
/// local_count() doubles), or the plain sum of x. It only views the arrays, which must stay
/// valid (and, for a nonblocking call, unmodified) until the call completes.
class dot_term {
public:
    /// The dot product x . y.
    dot_term(std::span<const double> x, std::span<const double> y) noexcept : x_(x), y_(y), product_(true) {}
    /// The sum of x (the bits of treefold::reducer<double>).
    explicit dot_term(std::span<const double> x) noexcept : x_(x), product_(false) {}

    /// The first (or only) array.
    std::span<const double> x() const noexcept { return x_; }
    /// The second array (empty for a sum).
    std::span<const double> y() const noexcept { return y_; }
    /// True for a dot product, false for a sum.
    bool is_product() const noexcept { return product_; }

private:
    std::span<const double> x_;
    std::span<const double> y_;
    bool product_ = false;
};

namespace detail {

/// The columns of a dot reducer's value: one double, or K of them.
template <class Value>
struct dot_columns;
template <>
struct dot_columns<double> {
    static constexpr std::size_t k = 1;
    using merge = ops::plus;
    static double& at(double& v, std::size_t) noexcept { return v; }
};
template <std::size_t K>
struct dot_columns<std::array<double, K>> {
    static constexpr std::size_t k = K;
    using merge = ops::columnwise<ops::plus>;
    static double& at(std::array<double, K>& v, std::size_t c) noexcept { return v[c]; }
};

/// Stands for the products in the contraction check: the kernels multiply then add, which
/// a translation unit compiled with contraction could fuse.
struct products_then_plus {};

/// What dot_reducer and dots_reducer share: k columns (Value: double, or std::array<double,
/// k>) each reduced along the tree from its terms by offset (no array of Value, and no
/// products, stored), merged with ops::plus per column, exchanged as one Value per node.
/// The constructors and the local queries are the reducers' own (public); the calls are
/// wrapped by each reducer in its own form.
template <class Value, class Kernel, class Exchange>
class dot_core : public reducer_base<Value, Exchange> {
public:
    /// Plans the reductions over `layout` (collective; the checks of treefold::reducer).
    dot_core(comm_view comm, layout::block_layout layout, checking checks = checking::from_environment)
        : reducer_base<Value, Exchange>((refuse_fp_contraction<products_then_plus, double>(), comm.get()),
                                        std::move(layout), 1, checks)
    {
    }

    /// Plans the reductions of N values in blocks decided by `distribution`
    /// (dist::even_upper by default).
    template <layout::distribution_policy Distribution = dist::even_upper>
    dot_core(comm_view comm, std::uint64_t n, Distribution distribution = {})
        : dot_core(comm, layout::block_layout::from_counts(distribution.counts(n, comm.get().size())))
    {
    }

protected:
    static constexpr std::size_t k = dot_columns<Value>::k;
    using merge = typename dot_columns<Value>::merge;

    Value all_reduce_terms(std::span<const dot_term, k> terms)
    {
        const std::size_t values = take(terms);
        return settled<merge>(this->template all_reduce_call<node_kernel>(nullptr, values, op_, zero));
    }

    std::optional<Value> reduce_terms(std::span<const dot_term, k> terms, int root)
    {
        const std::size_t values = take(terms);
        return settled<merge>(this->template reduce_call<node_kernel>(nullptr, values, op_, root, zero));
    }

    template <class R>
    request<Value, R> start(std::span<const dot_term, k> terms, std::optional<int> root)
    {
        const std::size_t values = take(terms);
        return this->template start_call<R, node_kernel>(nullptr, values, op_, root, zero, settle);
    }

private:
    /// The operator the exchange sees: the merge, carrying where this call's terms are.
    struct node_op {
        const dot_term* terms;
        Value operator()(const Value& a, const Value& b) const noexcept { return merge{}(a, b); }
    };

    /// Kernel policy for the plans, in offset form: each column's node straight from its arrays.
    struct node_kernel {
        static Value reduce_at(std::uint64_t offset, std::uint64_t len, node_op& op)
        {
            Value v{};
            for (std::size_t c = 0; c < k; ++c) {
                const dot_term& t = op.terms[c];
                dot_columns<Value>::at(v, c) = t.is_product()
                                                   ? Kernel::template dot<double>(t.x().data() + offset, t.y().data() + offset, len)
                                                   : Kernel::template sum<double>(t.x().data() + offset, len);
            }
            return v;
        }
    };

    static void settle(std::optional<Value>& result) { result = settled<merge>(std::move(result)); }
    /// N = 0: every column's sum of no terms.
    static Value zero() { return Value{}; }

    /// Keeps the call's terms (the plans reach them through op_, also while a nonblocking call
    /// runs) and returns the size the core checks: the block's count when every array holds
    /// it, else the first array size that does not (so every rank throws, naming it).
    std::size_t take(std::span<const dot_term, k> terms)
    {
        const std::size_t want = static_cast<std::size_t>(this->local_count());
        std::size_t values = want;
        for (std::size_t c = 0; c < k; ++c) {
            terms_[c] = terms[c];
            const dot_term& t = terms[c];
            if (values == want && t.x().size() != want) {
                values = t.x().size();
            }
            if (values == want && t.is_product() && t.y().size() != want) {
                values = t.y().size();
            }
        }
        op_.terms = terms_.data();
        return values;
    }

    std::array<dot_term, k> terms_{make_terms(std::make_index_sequence<k>{})};
    node_op op_{terms_.data()};

    template <std::size_t... I>
    static std::array<dot_term, k> make_terms(std::index_sequence<I...>)
    {
        return {((void)I, dot_term(std::span<const double>{}))...};
    }
};

} // namespace detail

/// The dot product of two arrays of N doubles spread over the ranks in blocks: the sum of
/// x[i] * y[i] along treefold's tree (see the file comment), on every rank with the same bits.
///
/// - Kernel: a dot kernel (kernel::dot_best, the default: the SIMD kernel of the best
///   architecture the CPU supports; kernel::dot_scalar is the reference; kernel::dot_simd<Arch>).
///   All give the same bits.
/// - Exchange: as for treefold::reducer (exchange::automatic by default).
///
/// Construction is collective and checks the layout as treefold::reducer does; it throws
/// std::logic_error on every rank when the constructing translation unit is compiled with
/// floating-point contraction (a product fused into the sum would change the bits). Calls
/// check that x and y each hold local_count() doubles (std::invalid_argument on every rank
/// otherwise). N = 0 gives +0.0, a NaN result the canonical quiet NaN, as reducer<double>.
template <dot_kernel_policy<double> Kernel = kernel::dot_best, exchange_policy<double> Exchange = exchange::automatic>
class dot_reducer : public detail::dot_core<double, Kernel, Exchange> {
    using base = detail::dot_core<double, Kernel, Exchange>;

public:
    using kernel_type = Kernel;     ///< the dot kernel
    using exchange_type = Exchange; ///< the exchange policy
    /// The constructors: (comm, layout, checks) and (comm, n, distribution), collective.
    using base::base;

    /// x . y on every rank. Collective.
    double all_reduce(std::span<const double> x, std::span<const double> y)
    {
        const dot_term t(x, y);
        return base::all_reduce_terms(std::span<const dot_term, 1>(&t, 1));
    }

    /// x . y on `root` only (nullopt elsewhere); the checks of treefold::reducer::reduce.
    std::optional<double> reduce(std::span<const double> x, std::span<const double> y, int root)
    {
        const dot_term t(x, y);
        return base::reduce_terms(std::span<const dot_term, 1>(&t, 1), root);
    }

    /// Starts all_reduce(x, y): the products are summed before this returns, the exchange
    /// then progresses in the MPI library (as treefold::reducer::iall_reduce: the same bits).
    /// x and y must stay valid and unmodified until wait() returns.
    request<double, double> iall_reduce(std::span<const double> x, std::span<const double> y)
    {
        const dot_term t(x, y);
        return base::template start<double>(std::span<const dot_term, 1>(&t, 1), std::nullopt);
    }
};

/// K reductions over the same layout in one exchange: each column a dot product or a plain
/// sum (dot_term), the K columns' nodes travelling together, one message per step. Column c
/// has the bits of a dot_reducer (or, for a sum, a treefold::reducer<double>) call on its
/// term alone, for every process count, layout, exchange and kernel. Kernel, Exchange,
/// construction and checks as dot_reducer (every array of every term must hold
/// local_count() doubles).
template <std::size_t K, dot_kernel_policy<double> Kernel = kernel::dot_best,
          exchange_policy<std::array<double, K>> Exchange = exchange::automatic>
    requires(K > 0)
class dots_reducer : public detail::dot_core<std::array<double, K>, Kernel, Exchange> {
    using base = detail::dot_core<std::array<double, K>, Kernel, Exchange>;

public:
    using value_type = std::array<double, K>; ///< the K results
    using kernel_type = Kernel;               ///< the dot kernel
    using exchange_type = Exchange;           ///< the exchange policy
    /// The constructors: (comm, layout, checks) and (comm, n, distribution), collective.
    using base::base;

    /// The K results on every rank. Collective.
    value_type all_reduce(const std::array<dot_term, K>& terms) { return base::all_reduce_terms(terms); }

    /// The K results on `root` only (nullopt elsewhere).
    std::optional<value_type> reduce(const std::array<dot_term, K>& terms, int root)
    {
        return base::reduce_terms(terms, root);
    }

    /// Starts all_reduce(terms) (as dot_reducer::iall_reduce); the terms are copied, the
    /// arrays they view must stay valid and unmodified until wait() returns.
    request<value_type, value_type> iall_reduce(const std::array<dot_term, K>& terms)
    {
        return base::template start<value_type>(terms, std::nullopt);
    }

    /// Starts reduce(terms, root).
    request<value_type, std::optional<value_type>> ireduce(const std::array<dot_term, K>& terms, int root)
    {
        return base::template start<std::optional<value_type>>(terms, root);
    }
};

} // namespace treefold
