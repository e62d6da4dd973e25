// No MPI handle leaks: 10,000 reducers of every exchange created, used once and destroyed.
// Open MPI hands out the lowest free index of each handle table, MPICH the handle freed last;
// either way a probe handle made and freed after each reducer gets the same handle again
// unless the reducers leak communicators, windows, datatypes or operations (treefold frees
// what a reducer made in the reverse order of making it). A control loop that leaks on
// purpose, then frees in reverse order, shows the probe sees leaks on this MPI (so the test
// can fail).
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <vector>

using namespace treefold;

namespace {

/// The Fortran indices of a fresh communicator, window, datatype and operation (each freed
/// again at once): they grow only if handles of that kind are held.
std::array<int, 4> probe(MPI_Comm comm)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &c);
    MPI_Win win = MPI_WIN_NULL;
    MPI_Win_create(nullptr, 0, 1, MPI_INFO_NULL, comm, &win);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(3, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create([](void*, void*, int*, MPI_Datatype*) {}, 0, &op);
    const std::array<int, 4> idx{static_cast<int>(MPI_Comm_c2f(c)), static_cast<int>(MPI_Win_c2f(win)),
                                 static_cast<int>(MPI_Type_c2f(t)), static_cast<int>(MPI_Op_c2f(op))};
    MPI_Op_free(&op);
    MPI_Type_free(&t);
    MPI_Win_free(&win);
    MPI_Comm_free(&c);
    return idx;
}

std::vector<std::string_view> registry_names()
{
    return {treefold::all_exchanges::names.begin(), treefold::all_exchanges::names.end()};
}

} // namespace

BOOST_AUTO_TEST_CASE(probe_sees_a_leak)
{
    const auto& w = testing::world();
    const auto before = probe(w);
    std::vector<MPI_Comm> leaked(20);
    for (auto& c : leaked) {
        MPI_Comm_dup(w, &c);
    }
    const auto during = probe(w);
    BOOST_CHECK_GE(during[0], before[0] + 20);
    for (auto c = leaked.rbegin(); c != leaked.rend(); ++c) {
        MPI_Comm_free(&*c);
    }
    BOOST_CHECK_EQUAL(probe(w)[0], before[0]);
}

BOOST_AUTO_TEST_CASE(ten_thousand_reducers_hold_no_handles)
{
    const auto& w = testing::world();
    const auto names = registry_names();
    const auto l = layout::block_layout::from_counts(layout::even_lower(40, w.size()));
    const std::vector<double> xs(l.block_of(w.rank()).count, 1.0);
    // Warm up: every exchange once (caches such as the private communicator of net/transport.hpp
    // are made on first use and kept on purpose).
    for (const auto name : names) {
        exchange::visit_by_name<treefold::all_exchanges>(name, [&]<class E>(std::type_identity<E>) {
            reducer<double, std::plus<double>, kernel::best, E> r(w, l);
            (void)r.all_reduce(xs);
            (void)r.iall_reduce(xs).wait();
        });
    }
    const auto base = probe(w);
    std::array<int, 4> most = base;
    const int total = 10000;
    for (int i = 0; i < total; ++i) {
        exchange::visit_by_name<treefold::all_exchanges>(names[static_cast<std::size_t>(i) % names.size()], [&]<class E>(std::type_identity<E>) {
            reducer<double, std::plus<double>, kernel::best, E> r(w, l);
            if (i % 10 == 0) {
                (void)r.all_reduce(xs);
            }
        });
        if (i % 100 == 99) {
            const auto now = probe(w);
            for (std::size_t k = 0; k < 4; ++k) {
                most[k] = std::max(most[k], now[k]);
            }
        }
    }
    const char* kinds[] = {"communicator", "window", "datatype", "operation"};
    for (std::size_t k = 0; k < 4; ++k) {
        BOOST_CHECK_MESSAGE(most[k] <= base[k], kinds[k] << " handles grew from index " << base[k] << " to " << most[k]);
    }
}
