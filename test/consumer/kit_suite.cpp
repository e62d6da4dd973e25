// A user's Boost.Test suite on the installed MPI test kit (treefold::testing provides main).
// `passes` must pass at every p; the two others fail on the last rank only and are run by
// kit.cmake as tests that must fail: one with a BOOST_CHECK (the run goes on and every rank
// reports failure), one with a BOOST_REQUIRE while the other ranks wait in a collective (the
// kit must end the job within its grace period, long before the test's timeout).
#include <treefold/reducer.hpp>
#include <treefold/testing/mpi_test.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

namespace tt = treefold::testing;

namespace {

double harmonic_sum(const boost::mpi::communicator& comm, std::uint64_t n)
{
    const auto counts = treefold::layout::even_lower(n, comm.size());
    const auto layout = treefold::layout::block_layout::from_counts(counts);
    const auto start = layout.block_of(comm.rank()).start;
    std::vector<double> local(counts[static_cast<std::size_t>(comm.rank())]);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(start + i + 1);
    }
    treefold::reducer<double> sum(comm, layout);
    return sum.all_reduce(local);
}

} // namespace

BOOST_AUTO_TEST_CASE(passes)
{
    const auto results = tt::on_every_size([](const boost::mpi::communicator& sub) {
        return tt::bytes_of(harmonic_sum(sub, 1000));
    });
    tt::expect_same_across_sizes(results, "harmonic sum");
    const double total = harmonic_sum(tt::world(), 1000);
    BOOST_TEST(tt::same_on_every_rank(tt::world(), total));
    BOOST_TEST(!tt::same_bits(0.0, -0.0));
    BOOST_TEST(tt::same_bits(std::vector<double>{1.0, 2.0}, std::vector<double>{1.0, 2.0}));
}

BOOST_AUTO_TEST_CASE(check_fails_on_one_rank)
{
    const auto& w = tt::world();
    BOOST_CHECK_MESSAGE(w.rank() != w.size() - 1, "deliberate CHECK failure on rank " << w.rank());
    // Every rank still reaches this collective: a CHECK does not leave the test case.
    BOOST_TEST(boost::mpi::all_reduce(w, 1, std::plus<int>()) == w.size());
}

BOOST_AUTO_TEST_CASE(require_fails_on_one_rank)
{
    const auto& w = tt::world();
    BOOST_REQUIRE_MESSAGE(w.rank() != w.size() - 1, "deliberate REQUIRE failure on rank " << w.rank());
    // The failing rank never gets here, so the others would wait in this collective forever.
    int token = 7;
    boost::mpi::broadcast(w, token, w.size() - 1);
}
