// Exchanges chosen by name: every listed name reaches the exchange of that name, and the
// reducer built from it reproduces the oracle's bits; an unknown name is refused by name.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/exchange/by_name.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/reducer.hpp"

#include <string>

using namespace treefold;

BOOST_AUTO_TEST_CASE(every_name_reaches_its_exchange_and_the_same_bits)
{
    const auto& world = testing::world();
    const std::uint64_t n = 1237;
    const auto xs = testing::mixed_values(11, n, false);
    const auto want = testing::bits_of(testing::oracle_reduce(xs, std::plus<double>()));
    const auto l = testing::random_layout(5, n, world.size());
    const auto b = l.block_of(world.rank());
    const std::vector<double> local(xs.begin() + static_cast<std::ptrdiff_t>(b.count > 0 ? b.start : 0),
                                    xs.begin() + static_cast<std::ptrdiff_t>(b.count > 0 ? b.start + b.count : 0));
    for (const auto name : exchange::exchange_names) {
        const std::string seen = exchange::visit_by_name(name, [](auto type) {
            return std::string(decltype(type)::type::name);
        });
        // The type's own name is the listed name, less the schedule_ prefix; maryM is "M-ary",
        // dualM "M-ary+bcast".
        const std::string expected = name == "schedule_rd"             ? "recursive_doubling"
                                     : name.starts_with("schedule_") ? std::string(name.substr(9))
                                     : name.starts_with("mary")      ? std::string(name.substr(4)) + "-ary"
                                     : name.starts_with("dual")      ? std::string(name.substr(4)) + "-ary+bcast"
                                                                     : std::string(name);
        BOOST_TEST(seen == expected);
        const double got = exchange::visit_by_name(name, [&](auto type) {
            reducer<double, std::plus<double>, kernel::best, typename decltype(type)::type> r(world, l);
            return r.all_reduce(local);
        });
        BOOST_TEST(testing::all_ranks(world, testing::bits_of(got) == want), "exchange " << name);
    }
    BOOST_TEST(exchange::visit_by_name("tree", [](auto type) { return std::string(decltype(type)::type::name); }) ==
               "binomial");
}

BOOST_AUTO_TEST_CASE(unknown_name_is_refused_with_the_list)
{
    try {
        exchange::visit_by_name("ring", [](auto) {});
        BOOST_FAIL("no exception for an unknown exchange");
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("'ring'") != std::string::npos);
        BOOST_TEST(what.find("schedule_best") != std::string::npos);
    }
}
