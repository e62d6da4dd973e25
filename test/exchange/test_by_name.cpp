// Exchanges chosen by name: every listed name reaches the exchange of that name, and the
// reducer built from it reproduces the oracle's bits; an unknown name is refused by name.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <algorithm>
#include <string>
#include <utility>

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
    for (const auto name : treefold::all_exchanges::names) {
        // One name per exchange: the registry's name is the type's name, and a reducer built
        // from it reports that name as the exchange it used (automatic reports its choice,
        // itself a registry name).
        const std::string seen = exchange::visit_by_name<treefold::all_exchanges>(name, [](auto type) {
            return std::string(decltype(type)::type::name);
        });
        BOOST_TEST(seen == std::string(name));
        const auto [got, used] = exchange::visit_by_name<treefold::all_exchanges>(name, [&](auto type) {
            reducer<double, std::plus<double>, kernel::best, typename decltype(type)::type> r(world, l);
            return std::pair<double, std::string>(r.all_reduce(local), std::string(r.exchange_used()));
        });
        BOOST_TEST(testing::all_ranks(world, testing::bits_of(got) == want), "exchange " << name);
        if (name == "automatic") {
            BOOST_TEST(exchange::automatic_candidates::names.size() == 5U);
            BOOST_TEST((std::find(exchange::automatic_candidates::names.begin(),
                                  exchange::automatic_candidates::names.end(), used) !=
                        exchange::automatic_candidates::names.end()),
                       "automatic chose " << used);
        } else {
            BOOST_TEST(used == std::string(name));
        }
    }
    // Every exchange type the library has, named once: the inorder tree is listed, the core's
    // list holds no component exchange, and every candidate of automatic is a core exchange.
    BOOST_TEST((treefold::all_exchanges::contains<exchange::tree<topology::inorder>>));
    BOOST_TEST(!exchange::core_exchanges::contains<rma::one_sided>);
    BOOST_TEST(!(exchange::core_exchanges::contains<exchange::scheduled<model::schedules::best_sized>>));
    exchange::for_each_exchange<exchange::automatic_candidate_types>([](auto type) {
        BOOST_TEST(exchange::core_exchanges::contains<typename decltype(type)::type>);
    });
    // Names built from the policies for exchanges outside the registry follow the same rule.
    BOOST_TEST(std::string(exchange::tree<topology::m_ary<3>>::name) == "mary3");
    BOOST_TEST(std::string(exchange::tree<topology::m_ary<16>, exchange::result_broadcast::mpi>::name) == "dual16");
    BOOST_TEST(std::string(exchange::tree<topology::binomial, exchange::result_broadcast::mpi>::name) == "binomial_dual");
    BOOST_TEST(treefold::all_exchanges::size ==
               exchange::core_exchanges::size + model_exchanges::size + rma_exchanges::size);
}

BOOST_AUTO_TEST_CASE(unknown_name_is_refused_with_the_list)
{
    try {
        exchange::visit_by_name<treefold::all_exchanges>("ring", [](auto) {});
        BOOST_FAIL("no exception for an unknown exchange");
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("'ring'") != std::string::npos);
        BOOST_TEST(what.find("schedule_best") != std::string::npos);
    }
}
