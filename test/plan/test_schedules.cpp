// Same bits as a property of schedules: for every exchange that runs a schedule, every p up
// to 64 and virtual ranks up to 4096, several layouts with empty and permuted blocks, the
// schedules of all ranks run in one process (plan::verify) compute each maximal node once,
// merge in index order, pair every send with its receive and leave the root where the
// exchange promises it. No MPI: the ranks are virtual.
#include <boost/test/unit_test.hpp>

#include "treefold/all_exchanges.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/plan/schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tf = treefold;
namespace layout = treefold::layout;
namespace plan = treefold::plan;

namespace {

/// Blocks in a random rank order, about a third of them empty.
layout::block_layout scattered(std::uint64_t seed, std::uint64_t n, int p)
{
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> cuts;
    for (int r = 0; r + 1 < p; ++r) {
        cuts.push_back(rng() % 3 == 0 || n == 0 ? 0 : rng() % (n + 1));
    }
    std::vector<std::uint64_t> sorted = cuts;
    sorted.push_back(0);
    sorted.push_back(n);
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint64_t> counts;
    for (std::size_t i = 1; i < sorted.size(); ++i) {
        counts.push_back(sorted[i] - sorted[i - 1]);
    }
    std::vector<int> ranks(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        ranks[static_cast<std::size_t>(r)] = r;
    }
    std::shuffle(ranks.begin(), ranks.end(), rng);
    std::vector<layout::block> blocks(static_cast<std::size_t>(p));
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        blocks[static_cast<std::size_t>(ranks[i])] = {counts[i] == 0 ? 0 : at, counts[i]};
        at += counts[i];
    }
    return layout::block_layout::from_blocks(blocks);
}

std::vector<std::pair<std::string, layout::block_layout>> layouts_for(std::uint64_t n, int p, std::uint64_t seed)
{
    return {{"even_lower", layout::block_layout::from_counts(layout::even_lower(n, p))},
            {"power_of_two", layout::block_layout::from_counts(layout::power_of_two(n, p))},
            {"scattered", scattered(seed, n, p)}};
}

template <class E>
std::vector<plan::rank_schedule> schedules(const layout::block_layout& l)
{
    return plan::all_ranks(l, [](const layout::block_layout& ll, int r) { return E::schedule(ll, r); });
}

/// Checks every scheduled exchange of the registry on `l`.
void check_all(const layout::block_layout& l, const std::string& what)
{
    tf::exchange::for_each_exchange<tf::all_exchanges>([&]<class E>(std::type_identity<E>) {
        if constexpr (plan::scheduled_exchange<E>) {
            const auto all = schedules<E>(l);
            const plan::verdict v = plan::verify(all);
            if (!v.ok) {
                BOOST_ERROR(std::string(E::name) + " on " + what + ": " + v.reason);
            }
        }
    });
}

} // namespace

BOOST_AUTO_TEST_CASE(every_schedule_is_the_fixed_tree_for_p_up_to_64)
{
    for (int p = 1; p <= 64; ++p) {
        for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{5}, std::uint64_t{1000}, std::uint64_t{4099}}) {
            for (const auto& [name, l] : layouts_for(n, p, static_cast<std::uint64_t>(p) * 7919 + n)) {
                check_all(l, name + " N=" + std::to_string(n) + " p=" + std::to_string(p));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(every_schedule_is_the_fixed_tree_on_4096_virtual_ranks)
{
    for (const int p : {1000, 2049, 4096}) {
        for (const std::uint64_t n : {std::uint64_t{3000}, std::uint64_t{1} << 20}) {
            for (const auto& [name, l] : layouts_for(n, p, static_cast<std::uint64_t>(p) + n)) {
                check_all(l, name + " N=" + std::to_string(n) + " p=" + std::to_string(p));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(verify_refuses_broken_schedules)
{
    const auto l = layout::block_layout::from_counts(layout::even_lower(1000, 6));
    using tree = tf::exchange::tree<>;
    BOOST_TEST(plan::verify(schedules<tree>(l)).ok);
    {
        auto all = schedules<tree>(l); // a child never sends
        auto& steps = all[1].steps;
        steps.erase(std::remove_if(steps.begin(), steps.end(), [](const plan::step& s) { return s.what == plan::op::send; }),
                    steps.end());
        const auto v = plan::verify(all);
        BOOST_TEST(!v.ok);
        BOOST_TEST(v.reason.find("never sent") != std::string::npos, v.reason);
    }
    {
        auto all = schedules<tree>(l); // the root merges its children before its own nodes
        auto& steps = all[0].steps;
        const auto first_take = std::find_if(steps.begin(), steps.end(), [](const plan::step& s) { return s.what == plan::op::take; });
        const auto first_push = std::find_if(steps.begin(), steps.end(), [](const plan::step& s) { return s.what == plan::op::push_local; });
        std::iter_swap(first_take, first_push);
        const auto v = plan::verify(all);
        BOOST_TEST(!v.ok);
        BOOST_TEST(v.reason.find("index order") != std::string::npos, v.reason);
    }
    {
        auto all = schedules<tf::exchange::direct>(l); // a local node computed twice
        all[2].steps.push_back({plan::op::compute, 0});
        BOOST_TEST(!plan::verify(all).ok);
    }
    {
        auto all = schedules<tf::exchange::scheduled<>>(l); // a rank waits for a message never sent
        all[3].receives.push_back({4, 0, 0});
        all[3].steps.push_back({plan::op::take, static_cast<std::uint32_t>(all[3].receives.size() - 1)});
        const auto v = plan::verify(all);
        BOOST_TEST(!v.ok);
        BOOST_TEST(v.reason.find("waits") != std::string::npos, v.reason);
    }
}

BOOST_AUTO_TEST_CASE(schedules_are_values)
{
    const auto l = layout::block_layout::from_counts(layout::even_lower(1000, 5));
    const auto a = tf::exchange::direct::schedule(l, 2);
    const auto b = tf::exchange::direct::schedule(l, 2);
    BOOST_TEST((a == b));
    BOOST_TEST(!(a == tf::exchange::direct::schedule(l, 3)));
    const std::string text = a.to_string();
    BOOST_TEST(text.find("exchange direct, p 5, rank 2, N 1000") == 0, text);
    // Rank 2 holds [400, 600): its outbound roots 400:4 and 416:5 ... go to lower ranks.
    BOOST_TEST(text.find("flush to rank") != std::string::npos, text);
    const auto rd = tf::exchange::scheduled<>::schedule(l, 0);
    BOOST_TEST(rd.parameters == "collapse(2,2) 2 2 expand");
    BOOST_TEST(plan::broadcast_messages(rd) == 0u);
    BOOST_TEST(plan::broadcast_messages(a) == 4u);
}
