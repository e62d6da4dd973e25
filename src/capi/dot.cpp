// The C API's reproducible dot products (treefold_dot, treefold_dots in treefold.h): a
// treefold::dots_reducer<K> per call shape, cached on the communicator like the one-call
// treefold_allreduce. Its own translation unit: the dot kernels stay out of the typed units.

#include "treefold/treefold.h"

#include "errors.hpp"

#include "treefold/dot_reducer.hpp"
#include "treefold/layouts.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/collectives/all_gather.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace treefold::capi::detail {

namespace {

/// A dots_reducer<K> behind one interface, so one cache slot holds any k.
class dot_plan : public net::cached_plan {
public:
    std::int64_t count = -1; ///< this rank's local count when planned
    int k = 0;               ///< columns when planned
    /// The k results into `results`; `ok` false: this rank's arguments differ from the plan's
    /// or its pointers are unusable, and it takes part with a wrong size, so every rank throws.
    virtual void run(const double* const* x, const double* const* y, bool ok, double* results) = 0;
};

template <std::size_t K>
class dot_plan_of final : public dot_plan {
public:
    dot_plan_of(const boost::mpi::communicator& comm, layout::block_layout layout) : reducer_(comm, std::move(layout))
    {
    }

    void run(const double* const* x, const double* const* y, bool ok, double* results) override
    {
        const std::size_t n = static_cast<std::size_t>(reducer_.local_count());
        std::array<dot_term, K> terms{make(std::make_index_sequence<K>{})};
        if (ok) {
            for (std::size_t c = 0; c < K; ++c) {
                const std::span<const double> xs(x[c], n);
                terms[c] = y != nullptr && y[c] != nullptr ? dot_term(xs, std::span<const double>(y[c], n)) : dot_term(xs);
            }
        } else if (n == 0) {
            terms[0] = dot_term(std::span<const double>(&wrong_, 1)); // never read: the call fails
        }
        const std::array<double, K> v = reducer_.all_reduce(terms);
        for (std::size_t c = 0; c < K; ++c) {
            results[c] = v[c];
        }
    }

private:
    template <std::size_t... I>
    static std::array<dot_term, K> make(std::index_sequence<I...>)
    {
        return {((void)I, dot_term(std::span<const double>{}))...};
    }

    dots_reducer<K> reducer_;
    double wrong_ = 0.0;
};

std::unique_ptr<dot_plan> make_plan(int k, const boost::mpi::communicator& comm, layout::block_layout layout)
{
    switch (k) {
    case 1:
        return std::make_unique<dot_plan_of<1>>(comm, std::move(layout));
    case 2:
        return std::make_unique<dot_plan_of<2>>(comm, std::move(layout));
    case 3:
        return std::make_unique<dot_plan_of<3>>(comm, std::move(layout));
    default:
        return std::make_unique<dot_plan_of<TREEFOLD_DOTS_MAX>>(comm, std::move(layout));
    }
}

/// What is wrong with this rank's arguments (MPI_SUCCESS: nothing), with its message.
std::pair<int, std::string> check(int k, const double* const* x, const double* const* y, std::int64_t count,
                                  const double* results, bool y_required)
{
    if (k < 1 || k > TREEFOLD_DOTS_MAX) {
        return {MPI_ERR_ARG, "treefold: dots k = " + std::to_string(k) + " is outside [1, " +
                                 std::to_string(TREEFOLD_DOTS_MAX) + "]"};
    }
    if (count < 0) {
        return {MPI_ERR_COUNT, "treefold: negative local_count " + std::to_string(count)};
    }
    if (results == nullptr) {
        return {MPI_ERR_BUFFER, "treefold: NULL result"};
    }
    if (x == nullptr) {
        return {MPI_ERR_BUFFER, "treefold: NULL x (the array of k pointers)"};
    }
    if (count > 0) {
        for (int c = 0; c < k; ++c) {
            if (x[c] == nullptr) {
                return {MPI_ERR_BUFFER, "treefold: NULL x[" + std::to_string(c) + "] with a positive local_count"};
            }
            if (y_required && (y == nullptr || y[c] == nullptr)) {
                return {MPI_ERR_BUFFER, "treefold: NULL y with a positive local_count"};
            }
        }
    }
    return {MPI_SUCCESS, {}};
}

/// Collective: every rank learns of the first error anywhere (its own message where it is the
/// culprit) and that every rank passed the same k.
void agree_on(const boost::mpi::communicator& comm, int k, const std::pair<int, std::string>& mine)
{
    const std::array<int, 2> row{mine.first, k};
    std::vector<int> all;
    boost::mpi::all_gather(comm, row.data(), 2, all);
    for (std::size_t r = 0; r < all.size() / 2; ++r) {
        if (all[2 * r] != MPI_SUCCESS) {
            if (mine.first != MPI_SUCCESS) {
                throw api_error(mine.first, mine.second);
            }
            throw api_error(all[2 * r], "treefold: rank " + std::to_string(r) + " passed an invalid argument to treefold_dots");
        }
    }
    for (std::size_t r = 1; r < all.size() / 2; ++r) {
        if (all[2 * r + 1] != all[1]) {
            throw api_error(MPI_ERR_ARG, "treefold: the ranks passed different k to treefold_dots (rank " +
                                             std::to_string(r) + "'s differs from rank 0's)");
        }
    }
}

int one_call_dots(int k, const double* const* x, const double* const* y, std::int64_t count, double* results,
                  MPI_Comm comm, bool y_required)
{
    if (const int rc = check_comm(comm); rc != MPI_SUCCESS) {
        return rc;
    }
    try {
        const boost::mpi::communicator c(comm, boost::mpi::comm_attach);
        const std::pair<int, std::string> mine = check(k, x, y, count, results, y_required);
        std::unique_ptr<net::cached_plan>& slot = net::cached_plan_slot(comm, typeid(dot_plan));
        if (slot) {
            // As treefold_allreduce: the kept plan runs with no agreement; a rank whose k or
            // count changed, or whose pointers are unusable, makes it fail everywhere, and all
            // ranks plan again together.
            auto& kept = static_cast<dot_plan&>(*slot);
            const bool same = kept.k == k && kept.count == count && mine.first == MPI_SUCCESS;
            try {
                kept.run(x, y, same, same ? results : nullptr);
                return succeed();
            } catch (const local_size_error&) {
                slot.reset();
            }
        }
        agree_on(net::private_communicator(c), k, mine);
        std::unique_ptr<dot_plan> plan = make_plan(k, c, layout_from_local_size(c, static_cast<std::uint64_t>(count)));
        plan->k = k;
        plan->count = count;
        plan->run(x, y, true, results);
        slot = std::move(plan);
        return succeed();
    } catch (...) {
        return fail_current_exception(false);
    }
}

} // namespace

} // namespace treefold::capi::detail

extern "C" {

int treefold_dot(const double* x, const double* y, int64_t local_count, double* result, MPI_Comm comm)
{
    const double* const xs[1] = {x};
    const double* const ys[1] = {y};
    return treefold::capi::detail::one_call_dots(1, xs, ys, local_count, result, comm, true);
}

int treefold_dots(int k, const double* const* x, const double* const* y, int64_t local_count, double* results,
                  MPI_Comm comm)
{
    return treefold::capi::detail::one_call_dots(k, x, y, local_count, results, comm, false);
}

} // extern "C"
