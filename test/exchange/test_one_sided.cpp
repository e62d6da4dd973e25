// The reducer with the one-sided exchange beyond the same-bits matrix (test/conformance):
// reduce calls that do not synchronise, and failures reported everywhere with the plan
// surviving them.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <random>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

using testing::mat2;
using testing::mat_mul;

} // namespace

BOOST_AUTO_TEST_CASE(non_commutative_product_and_many_reduce_calls)
{
    const auto& w = testing::world();
    const std::uint64_t n = 333;
    std::vector<mat2> xs(n);
    std::mt19937_64 rng(5);
    for (auto& m : xs) {
        m = mat2{rng() % 5, rng() % 5, rng() % 5, rng() % 5};
    }
    const auto l = testing::random_layout(77, n, w.size());
    const auto b = l.block_of(w.rank());
    const std::span<const mat2> local(xs.data() + b.start, b.count);
    reducer<mat2, decltype(&mat_mul), kernel::scalar, rma::one_sided> r(w, l, &mat_mul);
    const mat2 want = testing::oracle_reduce(xs, &mat_mul);
    // Calls do not synchronise: pieces of later calls can arrive early and must wait.
    for (int call = 0; call < 20; ++call) {
        const auto got = r.reduce(local, call % w.size());
        if (w.rank() == call % w.size()) {
            BOOST_CHECK(got && testing::bytes_of(*got) == testing::bytes_of(want));
        }
    }
    BOOST_CHECK(testing::bytes_of(r.all_reduce(local)) == testing::bytes_of(want));
}

BOOST_AUTO_TEST_CASE(wrong_size_is_reported_everywhere_and_the_plan_survives)
{
    const auto& w = testing::world();
    const std::uint64_t n = 50 + static_cast<std::uint64_t>(w.size());
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = testing::mixed_values(9, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    reducer<double, std::plus<double>, kernel::scalar, rma::one_sided> r(w, l);
    for (int bad = 0; bad < w.size(); ++bad) {
        bool threw = false;
        try {
            r.all_reduce(w.rank() == bad ? good.first(b.count - 1) : good);
        } catch (const std::invalid_argument&) {
            threw = true;
        }
        BOOST_CHECK(threw);
        BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(good)),
                          testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    }
}
