// An independent fuzzer: random cases (N, a layout with empty and permuted blocks, exchange,
// kernel, operator and element type, all_reduce or reduce to a random root, nasty data)
// checked against its own oracle, the recursive definition of the tree written in
// fuzz_check.hpp from doc/design.md ("The tree and its index math"), not test/support/oracle.hpp.
//
// Every rank derives every case from (seed, case number) alone, so no case data travels.
// Knobs (after `--` on the command line): --cases K (default 2000 per run), --seed S
// (default 20261123; `--seed random` draws one from the clock). A failure prints the seed and
// the case number, which reproduce it: --seed S --first C --cases 1.
//
// This file makes the cases and reports; fuzz_case.hpp holds what they share and
// fuzz_check.hpp the oracle and the checks, compiled per group of exchanges in fuzz_<group>.cpp.
#include <boost/test/unit_test.hpp>

#include "fuzz_case.hpp"
#include "support/mpi_test.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/reducer.hpp"

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace treefold;

namespace {

using testing::fuzz::fuzz_case;
using testing::fuzz::groups;
using testing::fuzz::rng;
using testing::fuzz::run_group;

// ---- random cases -------------------------------------------------------------------------

fuzz_case make_case(std::uint64_t seed, std::uint64_t index, int p, std::size_t exchanges)
{
    rng r{seed ^ (index * 0xd1b54a32d192ed03ULL)};
    fuzz_case c;
    const auto size_class = r.below(10);
    c.n = size_class < 6 ? 1 + r.below(64) : size_class < 9 ? 65 + r.below(936) : 1001 + r.below(4000);
    // Weights with zeros (empty blocks), then the blocks in a random index order.
    std::vector<std::uint64_t> w(static_cast<std::size_t>(p));
    std::uint64_t total = 0;
    for (auto& x : w) {
        x = r.chance(25) ? 0 : 1 + r.below(100);
        total += x;
    }
    std::vector<std::uint64_t> counts(w.size(), 0);
    if (total == 0) {
        counts[r.below(w.size())] = c.n;
    } else {
        std::uint64_t given = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            counts[i] = c.n * w[i] / total;
            given += counts[i];
        }
        std::size_t k = r.below(w.size());
        while (w[k] == 0) {
            k = (k + 1) % w.size();
        }
        counts[k] += c.n - given;
    }
    std::vector<std::size_t> order(w.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    for (std::size_t i = order.size(); i > 1; --i) {
        std::swap(order[i - 1], order[r.below(i)]);
    }
    c.blocks.resize(w.size());
    std::uint64_t start = 0;
    for (const std::size_t rank : order) {
        c.blocks[rank] = {counts[rank] == 0 ? r.next() : start, counts[rank]}; // an empty block's start is noise
        start += counts[rank];
    }
    c.exchange = r.below(exchanges);
    c.group = static_cast<int>(r.below(groups));
    c.scalar_kernel = r.chance(30);
    c.root = r.chance(50) ? -1 : static_cast<int>(r.below(static_cast<std::uint64_t>(p)));
    c.special = r.chance(70) ? 0 : r.chance(50) ? 1 : 20;
    c.data_seed = r.next();
    return c;
}

/// Every exchange the library ships: the registry's names.
std::vector<std::string_view> exchange_list()
{
    return {treefold::all_exchanges::names.begin(), treefold::all_exchanges::names.end()};
}

bool run_case(const boost::mpi::communicator& w, const fuzz_case& c, std::string_view name, std::string& why)
{
    return exchange::visit_by_name<treefold::all_exchanges>(name, [&]<class E>(std::type_identity<E>) { return run_group<E>(w, c, why); });
}

/// The value after `flag` on the command line (after `--`), or `fallback`.
std::string option(const char* flag, const std::string& fallback)
{
    auto& suite = boost::unit_test::framework::master_test_suite();
    for (int i = 1; i + 1 < suite.argc; ++i) {
        if (std::string(suite.argv[i]) == flag) {
            return suite.argv[i + 1];
        }
    }
    return fallback;
}

} // namespace

BOOST_AUTO_TEST_CASE(random_cases_match_the_recursive_definition)
{
    const auto& w = testing::world();
    const std::uint64_t cases = std::stoull(option("--cases", "2000"));
    const std::uint64_t first = std::stoull(option("--first", "0"));
    const std::string seed_text = option("--seed", "20261123");
    std::uint64_t seed = seed_text == "random"
                             ? static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())
                             : std::stoull(seed_text);
    boost::mpi::broadcast(w, seed, 0);
    const auto names = exchange_list();
    if (w.rank() == 0) {
        BOOST_TEST_MESSAGE("fuzzer: seed " << seed << ", cases " << first << ".." << first + cases << ", p " << w.size());
    }
    std::uint64_t failures = 0;
    for (std::uint64_t k = first; k < first + cases; ++k) {
        const fuzz_case c = make_case(seed, k, w.size(), names.size());
        std::string why;
        bool ok = false;
        try {
            ok = run_case(w, c, names[c.exchange], why);
        } catch (const std::exception& e) {
            why = std::string("threw: ") + e.what();
        }
        if (!testing::all_ranks(w, ok)) {
            ++failures;
            BOOST_ERROR("fuzzer case failed: reproduce with -- --seed " << seed << " --first " << k << " --cases 1 at p "
                                                                     << w.size() << "; " << c.describe(names)
                                                                     << (ok ? "" : "; here: " + why));
            if (failures >= 5) {
                break; // enough to go on
            }
        }
    }
    BOOST_CHECK_EQUAL(failures, 0u);
}
