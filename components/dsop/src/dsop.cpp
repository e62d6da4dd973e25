#include "treefold/dsop/dsop.hpp"

#include "treefold/collective/all_gatherv.hpp"
#include "treefold/collective/allreduce.hpp"
#include "treefold/collective/async_allgather.hpp"
#include "treefold/dsop/row_kernels.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/collectives/all_gatherv.hpp>
#include <boost/mpi/collectives/all_reduce.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treefold::dsop {

namespace mpi = boost::mpi;

namespace {

/// An algorithm, its name and whether it sees every pair (sees_every_pair).
struct algorithm_entry {
    algorithm value;
    const char* name;
    bool sees_every_pair;
};

/// Every algorithm, in enum order (the order parse_algorithm lists them in).
constexpr algorithm_entry every_algorithm[] = {
    {algorithm::allgather, "allgather", true},
    {algorithm::allreduce, "allreduce", false},
    {algorithm::allreduce_ring, "allreduce_ring", false},
    {algorithm::butterfly, "butterfly", false},
    {algorithm::generalized_rabenseifner, "generalized_rabenseifner", true},
    {algorithm::allgather_async, "allgather_async", true},
    {algorithm::bruck_async, "bruck_async", true},
    {algorithm::allreduce_ring_pipelined, "allreduce_ring_pipelined", false},
    {algorithm::butterfly_pipelined, "butterfly_pipelined", false},
    {algorithm::generalized_rabenseifner_pipelined, "generalized_rabenseifner_pipelined", true},
};

/// The entry of `a`; nullptr for a value that names no algorithm.
const algorithm_entry* entry_of(algorithm a)
{
    for (const auto& e : every_algorithm) {
        if (e.value == a) {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

const char* name(algorithm a)
{
    const algorithm_entry* e = entry_of(a);
    return e != nullptr ? e->name : "?";
}

algorithm parse_algorithm(const char* text)
{
    std::string known;
    for (const auto& e : every_algorithm) {
        if (std::strcmp(text, e.name) == 0) {
            return e.value;
        }
        known += known.empty() ? "" : ", ";
        known += e.name;
    }
    throw std::invalid_argument(std::string("treefold: unknown DSOP algorithm '") + text + "' (want one of " + known +
                                ")");
}

bool sees_every_pair(algorithm a)
{
    const algorithm_entry* e = entry_of(a);
    return e != nullptr && e->sees_every_pair;
}

namespace {

/// What every rank learns about the call: sizes, pair counts, and whether the arguments agree.
struct call_shape {
    std::vector<int> pairs; // pairs per rank
    std::size_t total_pairs = 0;
};

call_shape validate(const mpi::communicator& comm, std::size_t a_size, std::size_t b_size, std::size_t n,
                    std::size_t m, std::size_t g_size, algorithm alg, summation order)
{
    const bool shapes_ok = n > 0 && m > 0 && a_size % n == 0 && b_size % m == 0 && a_size / n == b_size / m &&
                           g_size == n * m && a_size / n <= static_cast<std::size_t>(1) << 30;
    const std::array<std::uint64_t, 6> mine{n, m, shapes_ok ? a_size / (n == 0 ? 1 : n) : 0, shapes_ok ? 1U : 0U,
                                            static_cast<std::uint64_t>(alg), static_cast<std::uint64_t>(order)};
    std::vector<std::uint64_t> all;
    mpi::all_gather(comm, mine.data(), 6, all);
    call_shape shape;
    for (int r = 0; r < comm.size(); ++r) {
        const auto* v = &all[6 * static_cast<std::size_t>(r)];
        std::ostringstream msg;
        if (v[3] == 0) {
            msg << "treefold: rank " << r << " passed inconsistent DSOP buffers (need n, m > 0, a of k x n, b of k x m "
                << "and g of n x m values)";
        } else if (v[0] != all[0] || v[1] != all[1]) {
            msg << "treefold: ranks disagree on the DSOP size: rank 0 has " << all[0] << " x " << all[1] << ", rank "
                << r << " has " << v[0] << " x " << v[1];
        } else if (v[4] != all[4] || v[5] != all[5]) {
            msg << "treefold: ranks disagree on the DSOP algorithm or summation (rank " << r << " differs from rank 0)";
        } else {
            shape.pairs.push_back(static_cast<int>(v[2]));
            shape.total_pairs += v[2];
            continue;
        }
        throw std::invalid_argument(msg.str());
    }
    if (order == summation::reproducible && !sees_every_pair(alg)) {
        throw std::invalid_argument(std::string("treefold: reproducible DSOP needs every pair on the rank that sums "
                                                "it: use allgather, generalized_rabenseifner or their async and "
                                                "pipelined forms, not ") + name(alg));
    }
    return shape;
}

/// counts[r] * width for every rank r: the sizes of blocks of `width` values (MPI counts by default).
template <class Out = int, class Counts>
std::vector<Out> times(const Counts& counts, std::size_t width)
{
    std::vector<Out> sizes;
    for (const auto c : counts) {
        sizes.push_back(static_cast<Out>(static_cast<std::size_t>(c) * width));
    }
    return sizes;
}

/// All pairs of all ranks, in rank order (K x n and K x m).
template <class T>
void gather_pairs(const mpi::communicator& comm, const call_shape& shape, std::span<const T> a, std::span<const T> b,
                  std::size_t n, std::size_t m, std::vector<T>& all_a, std::vector<T>& all_b)
{
    all_a.resize(shape.total_pairs * n);
    all_b.resize(shape.total_pairs * m);
    mpi::all_gatherv(comm, a.data(), all_a.data(), times(shape.pairs, n));
    mpi::all_gatherv(comm, b.data(), all_b.data(), times(shape.pairs, m));
}

/// Rows [first, first + rows.size() / m) of G from all pairs, in the requested order.
template <class T>
void compute_rows(std::span<T> rows, std::size_t first, std::span<const T> all_a, std::span<const T> all_b,
                  std::size_t n, std::size_t m, std::size_t k_count, summation order)
{
    const std::size_t count = rows.size() / m;
    std::fill(rows.begin(), rows.end(), T{0}); // what stays with no pairs at all
    if (order == summation::reproducible) {
        std::vector<T> stack;
        for (std::size_t i = 0; i < count; ++i) {
            tree_row<T>(rows.subspan(i * m, m), first + i, all_a, n, all_b, m, k_count, stack);
        }
        return;
    }
    // Row by row, so one row of G stays in cache while every pair (in rank order, left to
    // right) is added to it; the order per entry is the same as pair-by-pair.
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t k = 0; k < k_count; ++k) {
            add_scaled_row<T>(rows.subspan(i * m, m), all_a[k * n + first + i], all_b.subspan(k * m, m));
        }
    }
}

/// The pairs of all ranks arriving through an async_allgatherv: rank r's block holds its a
/// (k_r x n) then its b (k_r x m).
template <class T>
class arriving_pairs {
public:
    /// One rank's pairs: a (k x n), b (k x m), k.
    struct block {
        std::span<const T> a, b;
        std::size_t k;
    };

    arriving_pairs(comm_view comm, const call_shape& shape, std::span<const T> a, std::span<const T> b, std::size_t n,
                   std::size_t m, collective::gather_pattern pattern)
        : n_(n), m_(m), shape_(shape), mine_(pack(a, b)), gather_(comm, mine_, times<std::size_t>(shape.pairs, n + m), pattern)
    {
    }

    /// Every rank's pairs in rank order, each rank's block as soon as it is here:
    /// `use(a_r, b_r, k_r)`.
    template <class Use>
    void in_rank_order(Use&& use)
    {
        for (int r = 0; r < static_cast<int>(shape_.pairs.size()); ++r) {
            const block c = cut(r);
            use(c.a, c.b, c.k);
        }
    }

    /// Every rank's pairs in rank order, in runs of consecutive ranks: each run starts with
    /// the first block not yet used (waited for) and takes the following ones that are here
    /// already. `use(run)` gets the run's blocks as (a_r, b_r, k_r).
    template <class Use>
    void in_rank_order_runs(Use&& use)
    {
        const int p = static_cast<int>(shape_.pairs.size());
        std::vector<block> run;
        for (int r = 0; r < p;) {
            run.clear();
            do {
                run.push_back(cut(r));
                ++r;
            } while (r < p && gather_.ready(r));
            use(std::as_const(run));
        }
    }

    /// All pairs as K x n and K x m (waits for every block).
    void all(std::vector<T>& all_a, std::vector<T>& all_b)
    {
        all_a.clear();
        all_b.clear();
        in_rank_order([&](std::span<const T> a, std::span<const T> b, std::size_t) {
            all_a.insert(all_a.end(), a.begin(), a.end());
            all_b.insert(all_b.end(), b.begin(), b.end());
        });
    }

private:
    /// Rank r's block (waited for) cut into its a, b and k.
    block cut(int r)
    {
        const std::span<const T> blk = gather_.block(r);
        const auto k = static_cast<std::size_t>(shape_.pairs[static_cast<std::size_t>(r)]);
        return {blk.first(k * n_), blk.subspan(k * n_), k};
    }

    static std::vector<T> pack(std::span<const T> a, std::span<const T> b)
    {
        std::vector<T> v(a.begin(), a.end());
        v.insert(v.end(), b.begin(), b.end());
        return v;
    }

    std::size_t n_, m_;
    const call_shape& shape_;
    std::vector<T> mine_;
    collective::async_allgatherv<T> gather_;
};

/// Rows [first, first + rows.size() / m) of G from the pairs as they arrive, in rank order:
/// each run of blocks that are here is added row by row (a row of G stays in cache while the
/// run's pairs go into it; each entry gets the same additions in the same order as
/// compute_rows' fast loop), or, for the reproducible order, the row trees once every pair is
/// here.
template <class T>
void compute_rows_arriving(std::span<T> rows, std::size_t first, arriving_pairs<T>& pairs, std::size_t n,
                           std::size_t m, std::size_t k_count, summation order)
{
    if (order == summation::reproducible) {
        std::vector<T> all_a, all_b;
        pairs.all(all_a, all_b);
        compute_rows<T>(rows, first, all_a, all_b, n, m, k_count, order);
        return;
    }
    std::fill(rows.begin(), rows.end(), T{0});
    const std::size_t count = rows.size() / m;
    pairs.in_rank_order_runs([&](const auto& run) {
        for (std::size_t i = 0; i < count; ++i) {
            for (const auto& blk : run) {
                for (std::size_t kk = 0; kk < blk.k; ++kk) {
                    add_scaled_row<T>(rows.subspan(i * m, m), blk.a[kk * n + first + i], blk.b.subspan(kk * m, m));
                }
            }
        }
    });
}

/// This rank's block of rows of G under generalized Rabenseifner: (first row, row counts).
inline std::pair<std::size_t, std::vector<layout::index_t>> row_block(int p, int me, std::size_t n)
{
    std::vector<layout::index_t> rows = layout::even_lower(n, p);
    const auto first = static_cast<std::size_t>(std::accumulate(rows.begin(), rows.begin() + me, layout::index_t{0}));
    return {first, std::move(rows)};
}

} // namespace

template <class T>
void sum_outer_products(comm_view comm, std::span<const T> a, std::span<const T> b, std::size_t n,
                        std::size_t m, std::span<T> g, algorithm alg, summation order)
{
    const call_shape shape = validate(comm, a.size(), b.size(), n, m, g.size(), alg, order);
    // What the allreduce algorithms start from: the sum of this rank's own pairs.
    const auto own_pairs = [&] { compute_rows<T>(g, 0, a, b, n, m, a.size() / n, summation::fast); };
    switch (alg) {
    case algorithm::allreduce:
        own_pairs();
        collective::sum_in_place(comm, g);
        return;
    case algorithm::allreduce_ring:
        own_pairs();
        collective::ring_allreduce(comm, g, std::plus<T>());
        return;
    case algorithm::butterfly:
        // The document's allreduce-butterfly: whole matrices exchanged and added in log2 p
        // rounds (p not a power of two folds the extra ranks in first). Every rank holds the
        // same bits; the grouping, and so the bits, depend on p.
        own_pairs();
        collective::butterfly_allreduce(comm, g, std::plus<T>());
        return;
    case algorithm::allgather: {
        std::vector<T> all_a, all_b;
        gather_pairs<T>(comm, shape, a, b, n, m, all_a, all_b);
        compute_rows<T>(g, 0, all_a, all_b, n, m, shape.total_pairs, order);
        return;
    }
    case algorithm::generalized_rabenseifner: {
        std::vector<T> all_a, all_b;
        gather_pairs<T>(comm, shape, a, b, n, m, all_a, all_b);
        const auto [first, rows] = row_block(comm.size(), comm.rank(), n);
        // This rank's rows go straight to their place in g; the gather then fills the rest.
        const auto mine = static_cast<std::size_t>(rows[static_cast<std::size_t>(comm.rank())]) * m;
        compute_rows<T>(g.subspan(first * m, mine), first, all_a, all_b, n, m, shape.total_pairs, order);
        collective::all_gatherv_in_place(comm, g, times(rows, m));
        return;
    }
    case algorithm::allgather_async:
    case algorithm::bruck_async: {
        arriving_pairs<T> pairs(comm, shape, a, b, n, m,
                                alg == algorithm::bruck_async ? collective::gather_pattern::bruck
                                                              : collective::gather_pattern::direct);
        compute_rows_arriving<T>(g, 0, pairs, n, m, shape.total_pairs, order);
        return;
    }
    case algorithm::allreduce_ring_pipelined:
        own_pairs();
        collective::pipelined_ring_allreduce(comm, g, std::plus<T>());
        return;
    case algorithm::butterfly_pipelined:
        own_pairs();
        collective::pipelined_butterfly_allreduce(comm, g, std::plus<T>());
        return;
    case algorithm::generalized_rabenseifner_pipelined: {
        // The first allgather pipelined with the products: this rank's rows take each rank's
        // pairs as soon as they are here.
        arriving_pairs<T> pairs(comm, shape, a, b, n, m, collective::gather_pattern::direct);
        const auto [first, rows] = row_block(comm.size(), comm.rank(), n);
        const auto mine = static_cast<std::size_t>(rows[static_cast<std::size_t>(comm.rank())]) * m;
        compute_rows_arriving<T>(g.subspan(first * m, mine), first, pairs, n, m, shape.total_pairs, order);
        collective::all_gatherv_in_place(comm, g, times(rows, m));
        return;
    }
    }
}

template void sum_outer_products<float>(comm_view, std::span<const float>, std::span<const float>,
                                        std::size_t, std::size_t, std::span<float>, algorithm, summation);
template void sum_outer_products<double>(comm_view, std::span<const double>, std::span<const double>,
                                         std::size_t, std::size_t, std::span<double>, algorithm, summation);

} // namespace treefold::dsop
