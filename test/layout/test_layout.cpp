// Block layouts, distribution policies, message counts and the layout score.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/message_count.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using namespace treefold::layout;
using namespace treefold::model; // the direct exchange's counts and score

namespace {
using treefold::testing::random_layout;

index_t total(const std::vector<index_t>& c) { return std::accumulate(c.begin(), c.end(), index_t{0}); }

} // namespace

BOOST_AUTO_TEST_CASE(even_policies)
{
    BOOST_CHECK((even_lower(10, 4) == std::vector<index_t>{3, 3, 2, 2}));
    BOOST_CHECK((even_upper(10, 4) == std::vector<index_t>{2, 2, 3, 3}));
    BOOST_CHECK((even_lower(2, 4) == std::vector<index_t>{1, 1, 0, 0}));
    BOOST_CHECK((power_of_two(100, 3) == std::vector<index_t>{32, 32, 36}));
    BOOST_CHECK((power_of_two(2, 3) == std::vector<index_t>{0, 0, 2}));
    BOOST_CHECK_THROW(even_lower(5, 0), std::invalid_argument);
    for (index_t n : {0ULL, 1ULL, 7ULL, 1000ULL, 123457ULL}) {
        for (int p : {1, 2, 3, 7, 8, 64}) {
            for (const auto& c : {even_lower(n, p), even_upper(n, p), power_of_two(n, p), aligned(n, p, 0.25)}) {
                BOOST_CHECK_EQUAL(total(c), n);
                BOOST_CHECK_EQUAL(c.size(), static_cast<std::size_t>(p));
            }
            const auto lo = even_lower(n, p);
            BOOST_CHECK(std::is_sorted(lo.rbegin(), lo.rend()));
            const auto hi = even_upper(n, p);
            BOOST_CHECK(std::is_sorted(hi.begin(), hi.end()));
        }
    }
}

BOOST_AUTO_TEST_CASE(aligned_policy_moves_starts_to_aligned_indices)
{
    for (index_t n : {1000ULL, 4096ULL, 99991ULL, 21410970ULL}) {
        for (int p : {2, 3, 7, 16}) {
            for (double alpha : {0.0, 0.1, 0.5}) {
                const auto even = even_upper(n, p);
                const auto al = aligned(n, p, alpha);
                index_t es = 0, as = 0;
                for (int r = 0; r < p; ++r) {
                    // within alpha * N / p of the even start, never above it, at least as aligned
                    BOOST_CHECK_LE(as, es);
                    BOOST_CHECK_LE(static_cast<double>(es - as), alpha * static_cast<double>(n) / p + 1e-9);
                    if (as > 0 && es > 0) {
                        BOOST_CHECK_GE(std::countr_zero(as), std::countr_zero(es));
                    }
                    es += even[static_cast<std::size_t>(r)];
                    as += al[static_cast<std::size_t>(r)];
                }
                if (alpha == 0.0) {
                    BOOST_CHECK(al == even);
                }
            }
        }
    }
    // 1000 over 4 with alpha 0.5: even starts 250, 500, 750 -> 128, 384(?), ... check one by hand:
    // start 250 may move down to 128 (250 - 128 = 122 <= 125), 500 -> 384 (116 <= 125), 750 -> 640.
    BOOST_CHECK((aligned(1000, 4, 0.5) == std::vector<index_t>{128, 256, 256, 360}));
    BOOST_CHECK_THROW(aligned(10, 2, -1.0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(distribution_names_round_trip)
{
    for (const char* name : {"even-lower", "even-upper", "power-of-two", "aligned:0.25"}) {
        BOOST_CHECK_EQUAL(distribution::parse(name).name(), name);
    }
    BOOST_CHECK_THROW(distribution::parse("even"), std::invalid_argument);
    BOOST_CHECK_THROW(distribution::parse("aligned:"), std::invalid_argument);
    BOOST_CHECK_THROW(distribution::parse("aligned:x"), std::invalid_argument);
    BOOST_CHECK_THROW(distribution::parse("aligned:-1"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(layouts_owner_lookup_and_errors)
{
    const auto l = block_layout::from_blocks({{5, 3}, {0, 5}, {0, 0}, {8, 2}});
    BOOST_CHECK_EQUAL(l.size(), 10u);
    BOOST_CHECK_EQUAL(l.owner(0), 1);
    BOOST_CHECK_EQUAL(l.owner(4), 1);
    BOOST_CHECK_EQUAL(l.owner(5), 0);
    BOOST_CHECK_EQUAL(l.owner(9), 3);
    BOOST_CHECK((std::vector<int>(l.index_order().begin(), l.index_order().end()) == std::vector<int>{1, 0, 3, 2}));
    BOOST_CHECK_THROW(l.owner(10), std::out_of_range);
    BOOST_CHECK_THROW(block_layout::from_blocks({{0, 5}, {6, 2}}), std::invalid_argument); // gap
    BOOST_CHECK_THROW(block_layout::from_blocks({{0, 5}, {4, 2}}), std::invalid_argument); // overlap
    BOOST_CHECK_THROW(block_layout::from_blocks({{1, 5}}), std::invalid_argument);         // gap at 0
    const std::vector<index_t> huge{treefold::index_tree::max_size, 1};
    BOOST_CHECK_THROW(block_layout::from_counts(huge), std::invalid_argument);
    // An empty block's start means nothing, so none is too large (the audit's defect 6).
    const auto empty_far = block_layout::from_blocks({{0, 4}, {index_t{1} << 63, 0}, {~index_t{0}, 0}});
    BOOST_CHECK_EQUAL(empty_far.size(), 4u);
    BOOST_CHECK_EQUAL(empty_far.block_of(2).count, 0u);
    BOOST_CHECK_THROW(block_layout::from_blocks({{0, 4}, {index_t{1} << 63, 1}}), std::invalid_argument);
    BOOST_CHECK(block_layout::from_counts(std::vector<index_t>{3, 0, 4}).fingerprint() !=
                block_layout::from_counts(std::vector<index_t>{3, 4, 0}).fingerprint());
}

BOOST_AUTO_TEST_CASE(message_count_fast_equals_brute_force)
{
    std::mt19937_64 rng(2024);
    int cases = 0;
    for (; cases < 3000; ++cases) {
        const index_t n = 1 + rng() % 3000;
        const int p = 1 + static_cast<int>(rng() % 48);
        block_layout l;
        switch (cases % 5) {
        case 0: l = block_layout::from_counts(even_lower(n, p)); break;
        case 1: l = block_layout::from_counts(even_upper(n, p)); break;
        case 2: l = block_layout::from_counts(power_of_two(n, p)); break;
        case 3: l = block_layout::from_counts(aligned(n, p, 0.3)); break;
        default: l = random_layout(rng(), n, p); break;
        }
        const auto fast = direct_messages(l);
        const auto slow = direct_messages_brute_force(l);
        if (fast != slow) {
            BOOST_ERROR("message count " << fast << " != brute force " << slow << " for N = " << n << " p = " << p
                                         << " case " << cases % 5);
            break;
        }
    }
    // Known figures: one block sends nothing; two halves of a power of two send one message.
    BOOST_CHECK_EQUAL(direct_messages(block_layout::from_counts(std::vector<index_t>{1024})), 0u);
    BOOST_CHECK_EQUAL(direct_messages(block_layout::from_counts(std::vector<index_t>{512, 512})), 1u);
    BOOST_CHECK_EQUAL(direct_messages(block_layout::from_counts(std::vector<index_t>{3, 5})), 2u);
    BOOST_CHECK_EQUAL(outbound_roots(0, 100), 0u);
    BOOST_CHECK_EQUAL(outbound_roots(4, 5), 1u);
}

BOOST_AUTO_TEST_CASE(score_uses_messages_and_largest_block)
{
    const auto l = block_layout::from_counts(std::vector<index_t>{3, 5});
    BOOST_CHECK_CLOSE(score(l), 281.0 * 2 + 4.15 * 5, 1e-12);
    BOOST_CHECK_CLOSE(score(l, {100.0, 1.0}), 205.0, 1e-12);
}

namespace {

/// The binary-tree-reduction thesis's Algorithm 3 (seed 000, §3.1.2.4) written out directly,
/// not through layout::aligned: each start j of the base distribution is replaced by repeated
/// parent(x) = x & (x - 1) while j - x <= alpha * N / p. `from_lower` starts from even_lower
/// instead of even_upper; `one_past` returns the first index that breaks the bound (the
/// listing's proposedIndex) instead of the last that keeps it (its currentIndex). The thesis
/// does not say what happens when a start passes below the previous one: here it is raised to
/// it (an empty block), where layout::aligned stops clearing bits one step earlier.
std::vector<index_t> thesis_algorithm3(index_t n, int p, double alpha, bool from_lower, bool one_past)
{
    const auto base = from_lower ? even_lower(n, p) : even_upper(n, p);
    const double bound = alpha * static_cast<double>(n) / static_cast<double>(p);
    std::vector<index_t> starts{0};
    index_t j = 0;
    for (int r = 1; r < p; ++r) {
        j += base[static_cast<std::size_t>(r - 1)];
        index_t current = j;
        index_t proposed = j;
        while (proposed > 0 && static_cast<double>(j - proposed) <= bound) {
            current = proposed;
            proposed &= proposed - 1;
        }
        starts.push_back(std::max(one_past ? proposed : current, starts.back()));
    }
    std::vector<index_t> counts;
    for (std::size_t r = 0; r + 1 < starts.size(); ++r) {
        counts.push_back(starts[r + 1] - starts[r]);
    }
    counts.push_back(n - starts.back());
    return counts;
}

struct table_row {
    std::uint64_t messages;
    index_t max_count;
    double score_us;
};

table_row row_of(const std::vector<index_t>& counts)
{
    const auto l = block_layout::from_counts(counts);
    return {direct_messages(l), l.max_count(), score(l) / 1000.0};
}

} // namespace

// Table 3.3 of the thesis (N = 504,850, p = 256, alpha = 0.2) prints 621 messages and a score
// of 184.5 us; treefold's aligned gives 557 and 165.1 us. doc/design.md ("Table 3.3") has the
// search; these are the figures it rests on.
BOOST_AUTO_TEST_CASE(thesis_table_3_3_aligned_distribution)
{
    constexpr index_t n = 504850;
    constexpr int p = 256;
    // Tables 3.1 and 3.2 (even and power-of-two) agree with treefold to the message.
    BOOST_CHECK_EQUAL(row_of(even_lower(n, p)).messages, 1640u);
    BOOST_CHECK_EQUAL(row_of(even_upper(n, p)).messages, 1401u);
    BOOST_CHECK_EQUAL(row_of(power_of_two(n, p)).messages, 256u);
    BOOST_CHECK_CLOSE(row_of(even_lower(n, p)).score_us, 469.0, 0.02);
    BOOST_CHECK_CLOSE(row_of(even_upper(n, p)).score_us, 401.9, 0.02);
    BOOST_CHECK_CLOSE(row_of(power_of_two(n, p)).score_us, 1083.4, 0.01);

    // treefold's aligned:0.2 and the thesis's Algorithm 3 as specified give the same layout.
    const auto ours = aligned(n, p, 0.2);
    BOOST_CHECK(thesis_algorithm3(n, p, 0.2, false, false) == ours);
    const auto t = row_of(ours);
    BOOST_CHECK_EQUAL(t.messages, 557u);
    BOOST_CHECK_EQUAL(t.max_count, 2066u);
    BOOST_CHECK_CLOSE(t.score_us, 165.1, 0.05);

    // Starting from even_lower: 553 messages, 164.0 us.
    const auto lower = row_of(thesis_algorithm3(n, p, 0.2, true, false));
    BOOST_CHECK_EQUAL(lower.messages, 553u);
    BOOST_CHECK_CLOSE(lower.score_us, 164.0, 0.05);
    // One step past the bound: far fewer messages, far larger blocks.
    const auto past = row_of(thesis_algorithm3(n, p, 0.2, false, true));
    BOOST_CHECK_EQUAL(past.messages, 315u);
    BOOST_CHECK_EQUAL(past.max_count, 4096u);

    // The nearest figures to the table, from a smaller alpha: 621 messages from even_lower with
    // alpha = 0.135 (but 183.1 us), 184.5 us from even_upper with alpha = 0.132 (but 626
    // messages). No variant gives both.
    const auto count_match = row_of(thesis_algorithm3(n, p, 0.135, true, false));
    BOOST_CHECK_EQUAL(count_match.messages, 621u);
    BOOST_CHECK_CLOSE(count_match.score_us, 183.07, 0.01);
    const auto score_match = row_of(thesis_algorithm3(n, p, 0.132, false, false));
    BOOST_CHECK_EQUAL(score_match.messages, 626u);
    BOOST_CHECK_CLOSE(score_match.score_us, 184.48, 0.01);

    // Why none can: 184.5 us with 621 messages leaves (184,500 - 281 * 621) / 4.15 = 2,398 ..
    // 2,421 elements on the largest rank (the score printed to 0.1 us), but starts that move
    // down by at most 0.2 * N / p give no block above ceil(N / p) + 0.2 * N / p = 2,367.
    const auto cap = static_cast<index_t>((n + p - 1) / p + 0.2 * n / p);
    for (bool from_lower : {false, true}) {
        BOOST_CHECK_LE(row_of(thesis_algorithm3(n, p, 0.2, from_lower, false)).max_count, cap);
    }
}
