// Schedules without communication: text form, validation, generators, the pipelining
// model's Lambert-W formulas against numerical minimisation, the exact search against
// brute force, and the simulator against the closed form.
#include <boost/test/unit_test.hpp>

#include "support/throws.hpp"

#include "treefold/topology/schedule.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/task_graph.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using treefold::topology::schedule;
namespace topology = treefold::topology;
namespace model = treefold::model;

namespace {

using treefold::testing::throws_with;

/// Runs `s` on position ranges: every position starts with [q, q+1). Checks that every
/// message is expected by its receiver in the same round with the range its sender holds,
/// that every combination joins adjacent ranges, that nothing is left unreceived, and that
/// every position ends with [0, p): every value combined once, in position order. Returns
/// what went wrong ("" if nothing) and counts the messages.
std::string runs_on_ranges(const schedule& s, int p, std::uint64_t& messages)
{
    using range = std::pair<int, int>;
    std::vector<std::vector<topology::round_plan>> plans;
    for (int q = 0; q < p; ++q) {
        plans.push_back(topology::rounds_of(s, p, q));
    }
    std::vector<range> held(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) {
        held[static_cast<std::size_t>(q)] = {q, q + 1};
    }
    messages = 0;
    const auto at = [](int q) { return static_cast<std::size_t>(q); };
    for (int round = 0; round < s.rounds(); ++round) {
        std::map<range, range> sent; // (from, to) -> what was sent
        for (int q = 0; q < p; ++q) {
            for (const auto& st : plans[at(q)]) {
                if (st.round != round) {
                    continue;
                }
                if (!st.to.empty() && range{st.lo, st.hi} != held[at(q)]) {
                    return "position " + std::to_string(q) + " sends a range it does not hold in round " +
                           std::to_string(round);
                }
                for (const int t : st.to) {
                    if (!sent.emplace(range{q, t}, held[at(q)]).second) {
                        return "two messages from " + std::to_string(q) + " to " + std::to_string(t);
                    }
                    ++messages;
                }
            }
        }
        std::vector<range> next = held;
        for (int q = 0; q < p; ++q) {
            for (const auto& st : plans[at(q)]) {
                if (st.round != round || st.from.empty()) {
                    continue;
                }
                std::vector<range> parts;
                for (const auto& src : st.from) {
                    const auto it = sent.find({src.position, q});
                    if (it == sent.end() || it->second != range{src.lo, src.hi}) {
                        return "position " + std::to_string(q) + " expects a message from " +
                               std::to_string(src.position) + " that does not come as described in round " +
                               std::to_string(round);
                    }
                    parts.push_back(it->second);
                    sent.erase(it);
                }
                if (st.own) {
                    parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(st.self_at), held[at(q)]);
                }
                for (std::size_t i = 1; i < parts.size(); ++i) {
                    if (parts[i].first != parts[i - 1].second) {
                        return "position " + std::to_string(q) + " combines ranges that do not join in round " +
                               std::to_string(round);
                    }
                }
                next[at(q)] = {parts.front().first, parts.back().second};
            }
        }
        if (!sent.empty()) {
            return "a message to " + std::to_string(sent.begin()->first.second) + " is never received in round " +
                   std::to_string(round);
        }
        held = std::move(next);
    }
    for (int q = 0; q < p; ++q) {
        if (held[at(q)] != range{0, p}) {
            return "position " + std::to_string(q) + " ends without every value";
        }
    }
    return "";
}

/// The model's time computed from the plan itself: each round costs α_p + n·α_r for the most
/// messages n one position sends (or, with receive conflicts, sends or receives) in it.
double time_from_rounds(const schedule& s, int p, const model::params& m)
{
    std::vector<std::vector<int>> sends(static_cast<std::size_t>(s.rounds()), std::vector<int>(static_cast<std::size_t>(p)));
    auto receives = sends;
    for (int q = 0; q < p; ++q) {
        for (const auto& st : topology::rounds_of(s, p, q)) {
            sends[static_cast<std::size_t>(st.round)][static_cast<std::size_t>(q)] += static_cast<int>(st.to.size());
            receives[static_cast<std::size_t>(st.round)][static_cast<std::size_t>(q)] += static_cast<int>(st.from.size());
        }
    }
    double t = 0;
    for (std::size_t r = 0; r < sends.size(); ++r) {
        int n = *std::max_element(sends[r].begin(), sends[r].end());
        if (m.receives == model::receive_cost::conflicts) {
            n = std::max(n, *std::max_element(receives[r].begin(), receives[r].end()));
        }
        t += m.alpha_p + n * m.alpha_r;
    }
    return t;
}

/// Schedules of every kind over p (generators, factorisations, folds, prime merging).
std::vector<schedule> every_kind(int p)
{
    std::vector<schedule> out{topology::recursive_doubling(p), model::heuristic(p, {}),
                              model::thesis_heuristic(p, {}, true), model::thesis_heuristic(p, {}, false),
                              model::best(p, {}), model::best(p, {}, model::search_space::thesis())};
    for (const auto& f : topology::factorisations(p, 4)) {
        out.push_back(f);
    }
    for (int r = 1; r < p; ++r) {
        for (const auto& f : topology::factorisations(p - r, 3)) {
            out.push_back(schedule::merged(r, f.factors()));
            if (f.factors().size() >= 2) {
                out.push_back(schedule::prime_merged(r, f.factors()));
            }
        }
    }
    for (int b = 2; b <= std::min(p, 4); ++b) {
        out.push_back(schedule::collapsed((p / b) * b, b, topology::factorisations((p / b) + p % b).back().factors()));
    }
    return out;
}

/// Efficiency (best time / time) in percent, rounded to one decimal as the thesis prints it.
double percent(double best, double t) { return std::round(1000.0 * best / t) / 10.0; }

} // namespace

BOOST_AUTO_TEST_CASE(text_form_round_trips)
{
    for (const char* text : {"-", "2", "2 2 2", "collapse(4,2) 2 2 expand", "merge(1) 4 3 invmerge", "16",
                             "collapse(9,3) 5 expand", "merge(7) 3 3 invmerge", "collapse(2,2) expand",
                             "pmerge(2) 3 3 psplit", "pmerge(3) 5 4 2 psplit"}) {
        const schedule s = schedule::parse(text);
        BOOST_CHECK_EQUAL(s.to_string(), text);
        BOOST_CHECK(schedule::parse(s.to_string()) == s);
    }
    BOOST_CHECK(schedule::parse("  2\t 3  ") == schedule({2, 3}));
    BOOST_CHECK(schedule::parse("") == schedule{});
    for (int p = 1; p <= 200; ++p) {
        for (const schedule& s : {topology::recursive_doubling(p), model::heuristic(p, {}), model::best(p, {}),
                                  model::thesis_heuristic(p, {}, true), model::thesis_heuristic(p, {}, false),
                                  model::best(p, {}, model::search_space::thesis())}) {
            BOOST_CHECK(schedule::parse(s.to_string()) == s);
            BOOST_CHECK_MESSAGE(s.fits(p), s.to_string() << " should fit p = " << p);
        }
    }
}

BOOST_AUTO_TEST_CASE(segments_and_counts)
{
    const schedule c = schedule::parse("collapse(4,2) 2 2 expand");
    BOOST_CHECK_EQUAL(c.active(6), 4);
    BOOST_CHECK((c.segment_starts(6) == std::vector<int>{0, 2, 4, 5, 6}));
    BOOST_CHECK_EQUAL(c.messages(6), 4U * 2 + 4);
    BOOST_CHECK_EQUAL(c.rounds(), 4);
    const schedule m = schedule::parse("merge(1) 4 3 invmerge");
    BOOST_CHECK_EQUAL(m.active(13), 12);
    const auto starts = m.segment_starts(13);
    BOOST_CHECK_EQUAL(starts.size(), 13U);
    BOOST_CHECK_EQUAL(starts.back(), 13);
    BOOST_CHECK_EQUAL(m.largest_segment(13), 2);
    BOOST_CHECK_EQUAL(m.messages(13), 12U * 3 + 12U * 2 + 2);
    // merge spreads: 10 extra ranks over 4 segments -> sizes 3,4,3,4 (largest ceil(10/4)+1)
    const schedule spread = schedule::merged(10, {2, 2});
    const auto s2 = spread.segment_starts(14);
    BOOST_CHECK((s2 == std::vector<int>{0, 3, 7, 10, 14}));
    BOOST_CHECK_EQUAL(spread.largest_segment(14), 4);
    // pmerge(2) 3 3 over 11: first-stage groups of 3 core ranks, remainder x after group x mod 3.
    const schedule pm = schedule::parse("pmerge(2) 3 3 psplit");
    BOOST_CHECK_EQUAL(pm.active(11), 9);
    BOOST_CHECK((pm.segment_starts(11) == std::vector<int>{0, 1, 2, 4, 5, 6, 8, 9, 10, 11}));
    BOOST_CHECK_EQUAL(pm.messages(11), 9U * 2 + 9U * 2 + 2U * (3 + 3));
    BOOST_CHECK_EQUAL(pm.rounds(), 2);
    BOOST_CHECK_EQUAL(pm.largest_segment(11), 1);
    // Remainder 0 (position 3) sends to its group in the first round and hears from the last
    // stage's group 0 (active 0, 3, 6 at positions 0, 4, 8) without a value of its own.
    const auto rem = topology::rounds_of(pm, 11, 3);
    BOOST_REQUIRE_EQUAL(rem.size(), 2U);
    BOOST_CHECK((rem[0].to == std::vector<int>{0, 1, 2}));
    BOOST_CHECK(!rem[1].own);
    BOOST_REQUIRE_EQUAL(rem[1].from.size(), 3U);
    BOOST_CHECK_EQUAL(rem[1].from[1].position, 4);
    BOOST_CHECK_EQUAL(rem[1].from[1].lo, 4);
    BOOST_CHECK_EQUAL(rem[1].from[1].hi, 8);
    // Core position 0 sends its last-stage partial to remainder 0 first, then to its peers.
    const auto core = topology::rounds_of(pm, 11, 0);
    BOOST_REQUIRE_EQUAL(core.size(), 2U);
    BOOST_CHECK((core[1].to == std::vector<int>{3, 4, 8}));
    BOOST_CHECK_EQUAL(core[0].from.size(), 3U); // two peers and remainder 0
}

BOOST_AUTO_TEST_CASE(every_schedule_combines_every_value_once_in_order)
{
    for (int p = 1; p <= 40; ++p) {
        for (const schedule& s : every_kind(p)) {
            std::uint64_t messages = 0;
            const std::string why = runs_on_ranges(s, p, messages);
            BOOST_CHECK_MESSAGE(why.empty(), s.to_string() << " over " << p << ": " << why);
            BOOST_CHECK_EQUAL(messages, s.messages(p));
        }
    }
    BOOST_CHECK(throws_with([] { topology::rounds_of(schedule({2}), 2, 2); }, "outside [0, 2)"));
}

BOOST_AUTO_TEST_CASE(modelled_time_is_the_plans_rounds)
{
    for (const auto receives : {model::receive_cost::free, model::receive_cost::conflicts}) {
        const model::params m{0.88, 0.38, receives};
        for (int p = 1; p <= 40; ++p) {
            for (const schedule& s : every_kind(p)) {
                BOOST_CHECK_MESSAGE(std::abs(model::modelled_time(s, p, m) - time_from_rounds(s, p, m)) < 1e-9,
                                    s.to_string() << " over " << p << ": " << model::modelled_time(s, p, m) << " vs "
                                                  << time_from_rounds(s, p, m));
            }
        }
    }
    // The collapse stage: α_p + α_r in the thesis's model, α_p + (B−1)α_r with conflicts.
    const schedule c = schedule::parse("collapse(9,3) 5 expand");
    BOOST_CHECK_CLOSE(model::modelled_time(c, 11, {1.0, 0.5}), 3 * 1.0 + (4 + 1 + 2) * 0.5, 1e-12);
    BOOST_CHECK_CLOSE(model::modelled_time(c, 11, {1.0, 0.5, model::receive_cost::conflicts}),
                      3 * 1.0 + (4 + 2 + 2) * 0.5, 1e-12);
    // Eq. 5.11's pieces: the first stage costs α_p + f1·α_r, the last α_p + (fk−1+⌈R/gk⌉)α_r.
    const schedule pm = schedule::prime_merged(7, {3, 4}); // gk = 3: ⌈7/3⌉ = 3
    BOOST_CHECK_CLOSE(model::modelled_time(pm, 19, {1.0, 0.5}), 2 * 1.0 + (3 + 3 + 3) * 0.5, 1e-12);
}


BOOST_AUTO_TEST_CASE(invalid_schedules_are_rejected_clearly)
{
    BOOST_CHECK(throws_with([] { schedule::parse("2 x 2"); }, "unknown stage 'x'"));
    BOOST_CHECK(throws_with([] { schedule::parse("2 1"); }, "factor 1 is less than 2"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(4,2) 2 2"); }, "final 'expand'"));
    BOOST_CHECK(throws_with([] { schedule::parse("merge(1) 4 3 expand"); }, "final 'invmerge'"));
    BOOST_CHECK(throws_with([] { schedule::parse("2 expand"); }, "out of place"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(4) 2 expand"); }, "collapse(T,B)"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(a,2) 2 expand"); }, "collapse(T,B)"));
    BOOST_CHECK(throws_with([] { schedule::parse("merge(1,2) 2 invmerge"); }, "merge(R)"));
    BOOST_CHECK(throws_with([] { schedule::parse("2 2").check(6); }, "multiply to 4 but 6 ranks"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(4,2) 2 2 expand").check(7); },
                            "multiply to 4 but 5 ranks take part in the factor stages (after the fold)"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(5,2) 2 2 expand").check(6); },
                            "T = 5 is not a multiple of the base B = 2"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(8,2) 2 2 expand").check(6); }, "must lie in [B, p]"));
    BOOST_CHECK(throws_with([] { schedule::parse("collapse(1,1) 6 expand").check(6); }, "base B = 1"));
    BOOST_CHECK(throws_with([] { schedule::parse("merge(6) invmerge").check(6); }, "must lie in [1, p-1]"));
    BOOST_CHECK(throws_with([] { schedule::parse("merge(0) 6 invmerge").check(6); }, "must lie in [1, p-1]"));
    BOOST_CHECK(throws_with([] { schedule::parse("pmerge(1) 6 psplit").check(7); }, "at least two factor stages"));
    BOOST_CHECK(throws_with([] { schedule::parse("pmerge(1) 2 3 invmerge"); }, "final 'psplit'"));
    BOOST_CHECK(throws_with([] { schedule::parse("pmerge(1,2) 2 3 psplit"); }, "pmerge(R)"));
    BOOST_CHECK(throws_with([] { schedule::parse("2 psplit"); }, "out of place"));
    BOOST_CHECK(throws_with([] { schedule::parse("pmerge(7) 2 3 psplit").check(7); }, "pmerge remainder R = 7"));
    BOOST_CHECK(throws_with([] { schedule{}.check(0); }, "p must be at least 1"));
    BOOST_CHECK(throws_with([] { topology::recursive_doubling(0); }, "p >= 1"));
    BOOST_CHECK(throws_with([] { model::best(5, {1.0, 0.0}); }, "alpha_r > 0"));
    BOOST_CHECK(throws_with([] { model::heuristic(5, {-1.0, 1.0}); }, "alpha_p >= 0"));
    BOOST_CHECK(!schedule::parse("2 2").fits(6));
    BOOST_CHECK(schedule{}.fits(1));
}

BOOST_AUTO_TEST_CASE(generators)
{
    BOOST_CHECK_EQUAL(topology::recursive_doubling(1).to_string(), "-");
    BOOST_CHECK_EQUAL(topology::recursive_doubling(8).to_string(), "2 2 2");
    BOOST_CHECK_EQUAL(topology::recursive_doubling(6).to_string(), "collapse(4,2) 2 2 expand");
    BOOST_CHECK_EQUAL(topology::recursive_doubling(7).to_string(), "collapse(6,2) 2 2 expand");
    // Ordered factorisations: 12 has 8 (12, 2 6, 6 2, 3 4, 4 3, 2 2 3, 2 3 2, 3 2 2).
    BOOST_CHECK_EQUAL(topology::factorisations(12).size(), 8U);
    BOOST_CHECK_EQUAL(topology::factorisations(1024).size(), 512U); // compositions of 10
    BOOST_CHECK_EQUAL(topology::factorisations(1).size(), 1U);
    BOOST_CHECK_EQUAL(topology::factorisations(720, 50).size(), 50U);
    std::set<std::string> seen;
    for (const auto& s : topology::factorisations(36)) {
        BOOST_CHECK(s.fits(36));
        BOOST_CHECK(seen.insert(s.to_string()).second);
    }
    // The heuristic merges a remainder when p has a large prime factor (prime merging: it
    // adds no rounds).
    const model::params m{0.88, 0.38};
    const schedule h = model::heuristic(1021, m); // prime
    BOOST_CHECK(h.fold() == schedule::fold_kind::pmerge);
    BOOST_CHECK(h.fits(1021));
    const double cap = model::b_upper(m.ratio()) + 1;
    for (int p = 2; p <= 1024; ++p) {
        const schedule s = model::heuristic(p, m);
        for (const int f : s.factors()) {
            BOOST_CHECK_LE(f, std::max(2.0, std::floor(cap)));
        }
    }
}

BOOST_AUTO_TEST_CASE(lambert_w_formulas_match_numerical_minimisation)
{
    for (const double c : {0.0, 0.1, 0.3, 0.5, 0.88 / 0.38, 1.0, 2.0, 5.0, 10.0, 50.0, 300.0}) {
        const double bo = model::b_opt(c);
        const double bn = model::b_opt_numeric(c);
        BOOST_CHECK_MESSAGE(std::abs(bo - bn) <= 1e-6 * std::max(1.0, bo), "b_opt(" << c << ") " << bo << " vs " << bn);
        // b_opt solves (b+1)ln(b+1) - b = c
        BOOST_CHECK_SMALL((bo + 1) * std::log1p(bo) - bo - c, 1e-9 * std::max(1.0, c));
        if (c > 0) {
            const double bu = model::b_upper(c);
            const double bun = model::b_upper_numeric(c);
            BOOST_CHECK_MESSAGE(std::abs(bu - bun) <= 1e-6 * std::max(1.0, bu),
                                "b_upper(" << c << ") " << bu << " vs " << bun);
            // (c+b) log_{b+1} 2 = c + 1, and b_upper lies on the other side of b_opt from 1
            BOOST_CHECK_CLOSE((c + bu) * std::log(2.0) / std::log1p(bu), c + 1, 1e-7);
            BOOST_CHECK((bu - bo) * (1 - bo) <= 1e-9);
        }
    }
    // A scan of the modelled cost per doubling agrees with b_opt for the default ratio 0.88/0.38.
    const double c = 0.88 / 0.38;
    double best_b = 0;
    double best_g = 1e300;
    for (double b = 0.001; b < 20; b += 0.0001) {
        const double g = (c + b) / std::log1p(b);
        if (g < best_g) {
            best_g = g;
            best_b = b;
        }
    }
    BOOST_CHECK_CLOSE(best_b, model::b_opt(c), 0.01);
}

BOOST_AUTO_TEST_CASE(modelled_time_and_simulator_agree_with_closed_form)
{
    const model::params m{0.88, 0.38};
    for (int b = 1; b <= 6; ++b) {
        int p = 1;
        for (int k = 1; p * (b + 1) <= 2000; ++k) {
            p *= b + 1;
            const schedule s(std::vector<int>(static_cast<std::size_t>(k), b + 1));
            const double closed = (m.alpha_p + b * m.alpha_r) * std::log(p) / std::log(b + 1);
            BOOST_CHECK_CLOSE(model::modelled_time(s, p, m), closed, 1e-9);
            const auto sim = model::simulate(s, p, m);
            BOOST_CHECK_CLOSE(sim.time, closed, 1e-9);
            BOOST_CHECK_EQUAL(sim.messages, s.messages(p));
        }
    }
    // Mixed factors, folds and prime merging: the simulator (which serialises receives) never
    // exceeds the model with receive conflicts (stages overlap at most) and counts its
    // messages like the schedule.
    const model::params conflicts{m.alpha_p, m.alpha_r, model::receive_cost::conflicts};
    for (int p = 1; p <= 64; ++p) {
        std::vector<schedule> all{topology::recursive_doubling(p), model::heuristic(p, m), model::best(p, m),
                                  model::thesis_heuristic(p, m, true), model::thesis_heuristic(p, m, false)};
        if (p <= 30) {
            all = every_kind(p);
        }
        for (const schedule& s : all) {
            const auto sim = model::simulate(s, p, m);
            BOOST_CHECK_MESSAGE(sim.time <= model::modelled_time(s, p, conflicts) * (1 + 1e-12),
                                s.to_string() << " over " << p << ": simulated " << sim.time << ", modelled "
                                              << model::modelled_time(s, p, conflicts));
            BOOST_CHECK_EQUAL(sim.messages, s.messages(p));
        }
    }
    const schedule c6 = schedule::parse("collapse(6,2) 3 expand");
    BOOST_CHECK_CLOSE(model::simulate(c6, 6, m).time, model::modelled_time(c6, 6, m), 1e-9);
    // Noise only delays, and the same seed repeats.
    const schedule s = model::best(100, m);
    const auto a = model::simulate(s, 100, m, {0.2, 7});
    const auto b2 = model::simulate(s, 100, m, {0.2, 7});
    BOOST_CHECK_EQUAL(a.time, b2.time);
    BOOST_CHECK_GT(a.time, model::simulate(s, 100, m).time);
    // Noisy times pinned (one draw per message by round, sender, issue order).
    BOOST_CHECK_EQUAL(s.to_string(), "5 5 4");
    BOOST_CHECK_CLOSE(a.time, 9.0932936107359108, 1e-10);
    BOOST_CHECK_CLOSE(model::simulate(schedule({2, 3, 5}), 30, m, {1.5, 9}).time, 22.100683373272997, 1e-10);
    BOOST_CHECK_CLOSE(model::simulate(schedule::parse("merge(4) 2 4 invmerge"), 12, m, {0.5, 3}).time,
                      7.3752703766434076, 1e-10);
    BOOST_CHECK(throws_with([&] { model::simulate(s, 100, m, {-1, 1}); }, "noise mean must be finite and >= 0"));
    BOOST_CHECK(throws_with([&] { model::simulate(schedule({2}), 3, m); }, "does not fit p = 3"));
}

BOOST_AUTO_TEST_CASE(best_is_exact_and_fast)
{
    // Brute force over every fold and every ordered factorisation of what remains.
    const auto conflicts = model::receive_cost::conflicts;
    for (const model::params m : {model::params{0.88, 0.38}, model::params{5.0, 0.1}, model::params{0.1, 1.0},
                                  model::params{0.88, 0.38, conflicts}, model::params{5.0, 0.1, conflicts}}) {
        for (int p = 1; p <= 40; ++p) {
            double brute = 1e300;
            double brute_thesis = 1e300; // factorisations, collapse, pmerge with R < f1
            auto consider = [&](const schedule& s, bool thesis) {
                BOOST_REQUIRE(s.fits(p));
                brute = std::min(brute, model::modelled_time(s, p, m));
                if (thesis) {
                    brute_thesis = std::min(brute_thesis, model::modelled_time(s, p, m));
                }
            };
            for (const auto& f : topology::factorisations(p)) {
                consider(f, true);
            }
            for (int b = 2; b <= p; ++b) {
                for (int t = b; t <= p; t += b) {
                    for (const auto& f : topology::factorisations(t / b + p - t)) {
                        consider(schedule::collapsed(t, b, f.factors()), true);
                    }
                }
            }
            for (int r = 1; r < p; ++r) {
                for (const auto& f : topology::factorisations(p - r)) {
                    consider(schedule::merged(r, f.factors()), false);
                    if (f.factors().size() >= 2) {
                        consider(schedule::prime_merged(r, f.factors()), r < f.factors().front());
                    }
                }
            }
            const schedule found = model::best(p, m);
            BOOST_CHECK_CLOSE(model::modelled_time(found, p, m), brute, 1e-9);
            const schedule found_thesis = model::best(p, m, model::search_space::thesis());
            BOOST_CHECK_CLOSE(model::modelled_time(found_thesis, p, m), brute_thesis, 1e-9);
            BOOST_CHECK(found_thesis.fold() != schedule::fold_kind::merge);
            BOOST_CHECK(found_thesis.fold() != schedule::fold_kind::pmerge ||
                        found_thesis.remainder() < found_thesis.factors().front());
            BOOST_CHECK_LE(model::modelled_time(found, p, m),
                           model::modelled_time(topology::recursive_doubling(p), p, m) * (1 + 1e-12));
            BOOST_CHECK_LE(model::modelled_time(found, p, m),
                           model::modelled_time(model::heuristic(p, m), p, m) * (1 + 1e-12));
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    const schedule big = model::best(1024, {0.88, 0.38});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST_MESSAGE("best(1024) = " << big.to_string() << " in " << seconds << " s");
    BOOST_CHECK_LT(seconds, 0.5);
    BOOST_CHECK(big.fits(1024));
}

BOOST_AUTO_TEST_CASE(constants_file_round_trips)
{
    const auto path = (std::filesystem::temp_directory_path() / "treefold_constants_test.txt").string();
    model::write_constants(path, {1.25, 0.5}, "test");
    const auto m = model::read_constants(path);
    BOOST_CHECK_EQUAL(m.alpha_p, 1.25);
    BOOST_CHECK_EQUAL(m.alpha_r, 0.5);
    {
        std::FILE* f = std::fopen(path.c_str(), "w");
        std::fputs("alpha_p 1\n", f);
        std::fclose(f);
    }
    BOOST_CHECK_THROW(model::read_constants(path), std::runtime_error);
    std::filesystem::remove(path);
    BOOST_CHECK_THROW(model::read_constants(path), std::runtime_error);
}

namespace {

/// The ratio α_p/α_r that puts b_opt where the thesis's Fig. 5.6 has its minimum, b = 3.258.
double fig_5_6_ratio() { return (3.258 + 1) * std::log(3.258 + 1) - 3.258; }

} // namespace

BOOST_AUTO_TEST_CASE(thesis_parameters_two_readings)
{
    // Table 4.1 (α_p = 0.88 us, α_r = 0.38 us): b_opt = 2.83, b_upper = 8.41, factors up to 9.
    const double c41 = 0.88 / 0.38;
    BOOST_CHECK_CLOSE(model::b_opt(c41), 2.8319, 0.01);
    BOOST_CHECK_CLOSE(model::b_upper(c41), 8.4062, 0.01);
    // Fig. 5.6's minimum b = 3.258 needs α_p/α_r = 2.911, which gives b_upper = 11.21 and the
    // factor bound ⌊b_upper⌋ + 1 = 12 the thesis's heuristic uses ("upper = 12").
    const double c56 = fig_5_6_ratio();
    BOOST_CHECK_CLOSE(c56, 2.9110, 0.01);
    BOOST_CHECK_CLOSE(model::b_opt(c56), 3.258, 1e-6);
    BOOST_CHECK_CLOSE(model::b_upper(c56), 11.2057, 0.01);
    // Algorithm 7 uses factors up to the bound: 11 only under the Fig. 5.6 reading.
    BOOST_CHECK((model::thesis_heuristic_factors(11, {c56, 1.0}, true).factors == std::vector<int>{11}));
    const auto t41 = model::thesis_heuristic_factors(11, {0.88, 0.38}, true);
    BOOST_CHECK((t41.factors == std::vector<int>{5, 2}));
    BOOST_CHECK_EQUAL(t41.merge, 1);
}

BOOST_AUTO_TEST_CASE(thesis_heuristic_as_written)
{
    const model::params m{fig_5_6_ratio(), 1.0};
    // Sorted by (α_p + (d−1)α_r)/ln d: 4, 5, 3, 6, ... so 12 = 4·3 and 13 merges one rank.
    auto f = model::thesis_heuristic_factors(12, m, true);
    BOOST_CHECK((f.factors == std::vector<int>{4, 3}));
    BOOST_CHECK_EQUAL(f.merge, 0);
    f = model::thesis_heuristic_factors(13, m, true);
    BOOST_CHECK((f.factors == std::vector<int>{4, 3}));
    BOOST_CHECK_EQUAL(f.merge, 1);
    BOOST_CHECK_EQUAL(model::thesis_heuristic(13, m, true).to_string(), "pmerge(1) 4 3 psplit");
    // Unsorted: the largest candidate first, so 13 becomes 12 + 1 with one factor: merge(R).
    f = model::thesis_heuristic_factors(13, m, false);
    BOOST_CHECK((f.factors == std::vector<int>{12}));
    BOOST_CHECK_EQUAL(model::thesis_heuristic(13, m, false).to_string(), "merge(1) 12 invmerge");
    // A prime above the bound walks down to the next count that factors within it: 1020 has
    // 17, 1019 … 1009 have primes above 12 too, 1008 = 2^4·3^2·7.
    f = model::thesis_heuristic_factors(1021, m, true);
    BOOST_CHECK_EQUAL(f.merge, 13);
    BOOST_CHECK_EQUAL(std::accumulate(f.factors.begin(), f.factors.end(), 1, std::multiplies<>()), 1008);
    // A tiny ratio still allows factor 2 (the candidate range is at least [2, 2]).
    BOOST_CHECK_EQUAL(model::thesis_heuristic(12, {0.0, 1.0}, true).to_string(), "pmerge(4) 2 2 2 psplit");
    for (int p = 1; p <= 300; ++p) {
        for (const bool sorted : {true, false}) {
            const auto r = model::thesis_heuristic_factors(p, m, sorted);
            const int product = std::accumulate(r.factors.begin(), r.factors.end(), 1, std::multiplies<>());
            BOOST_CHECK_EQUAL(product + r.merge, p);
            BOOST_CHECK(model::thesis_heuristic(p, m, sorted).fits(p));
            for (const int d : r.factors) {
                BOOST_CHECK_LE(d, 12);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(table_5_2_reproduced)
{
    // Under the Fig. 5.6 reading, the process counts below 50 where the sorted heuristic is not
    // the best in the thesis's space, with the heuristic's schedule, its efficiency and the best.
    const model::params m{fig_5_6_ratio(), 1.0};
    std::string table;
    for (int p = 2; p < 50; ++p) {
        const schedule h = model::thesis_heuristic(p, m, true);
        const schedule b = model::best(p, m, model::search_space::thesis());
        const double th = model::modelled_time(h, p, m);
        const double tb = model::modelled_time(b, p, m);
        BOOST_CHECK_LE(tb, th * (1 + 1e-12));
        if (tb < th * (1 - 1e-12)) {
            char line[160];
            std::snprintf(line, sizeof line, "%d | %s | %.1f | %s\n", p, h.to_string().c_str(), percent(tb, th),
                          b.to_string().c_str());
            table += line;
        }
    }
    BOOST_TEST_MESSAGE(table);
    // The thesis's rows, to the digit, except: 44 is 99.5 % here (95.5 % printed; its own costs
    // give 18.733/18.822), and where two orders of the best's factors tie (33, 43) the search
    // keeps the other one.
    BOOST_CHECK_EQUAL(table, "11 | 11 | 91.6 | pmerge(2) 3 3 psplit\n"
                             "19 | pmerge(1) 6 3 psplit | 93.3 | pmerge(3) 4 4 psplit\n"
                             "22 | 11 2 | 88.1 | pmerge(2) 5 4 psplit\n"
                             "23 | pmerge(1) 11 2 psplit | 78.7 | pmerge(3) 5 4 psplit\n"
                             "29 | pmerge(1) 4 7 psplit | 94.1 | pmerge(4) 5 5 psplit\n"
                             "33 | 3 11 | 94.4 | pmerge(3) 6 5 psplit\n"
                             "34 | pmerge(1) 3 11 psplit | 84.9 | pmerge(4) 6 5 psplit\n"
                             "41 | pmerge(1) 4 5 2 psplit | 95.1 | pmerge(5) 6 6 psplit\n"
                             "43 | pmerge(1) 6 7 psplit | 99.5 | pmerge(3) 4 5 2 psplit\n"
                             "44 | 4 11 | 99.5 | pmerge(4) 5 4 2 psplit\n");
}

BOOST_AUTO_TEST_CASE(figure_5_16_averages)
{
    // Mean efficiency over p = 2..1024 of recursive doubling and the two heuristics against the
    // best in the thesis's space (and in treefold's whole space), under both readings.
    struct means {
        double rd = 0, sorted = 0, unsorted = 0, rd_all = 0, sorted_all = 0, unsorted_all = 0, own_all = 0;
    };
    auto run = [](const model::params& m) {
        means out;
        const int last = 1024;
        for (int p = 2; p <= last; ++p) {
            const double tb = model::modelled_time(model::best(p, m, model::search_space::thesis()), p, m);
            const double ta = model::modelled_time(model::best(p, m), p, m);
            const double rd = model::modelled_time(topology::recursive_doubling(p), p, m);
            const double hs = model::modelled_time(model::thesis_heuristic(p, m, true), p, m);
            const double hu = model::modelled_time(model::thesis_heuristic(p, m, false), p, m);
            out.rd += tb / rd;
            out.sorted += tb / hs;
            out.unsorted += tb / hu;
            out.rd_all += ta / rd;
            out.sorted_all += ta / hs;
            out.unsorted_all += ta / hu;
            out.own_all += ta / model::modelled_time(model::heuristic(p, m), p, m);
        }
        for (double* v : {&out.rd, &out.sorted, &out.unsorted, &out.rd_all, &out.sorted_all, &out.unsorted_all,
                          &out.own_all}) {
            *v = std::round(1000.0 * *v / (last - 1)) / 10.0;
        }
        return out;
    };
    const auto t0 = std::chrono::steady_clock::now();
    const means fig = run({fig_5_6_ratio(), 1.0});
    const means tab = run({0.88, 0.38});
    BOOST_TEST_MESSAGE("Fig. 5.6 reading: rd " << fig.rd << " sorted " << fig.sorted << " unsorted " << fig.unsorted
                                               << " (whole space: " << fig.rd_all << " " << fig.sorted_all << " "
                                               << fig.unsorted_all << ", treefold's heuristic " << fig.own_all << ")");
    BOOST_TEST_MESSAGE("Table 4.1 reading: rd " << tab.rd << " sorted " << tab.sorted << " unsorted " << tab.unsorted
                                                << " (whole space: " << tab.rd_all << " " << tab.sorted_all << " "
                                                << tab.unsorted_all << ", treefold's heuristic " << tab.own_all << ")");
    BOOST_TEST_MESSAGE("in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
    // The thesis: 72.1 %, 97.1 %, 92.4 % (doc/design.md discusses the gaps).
    BOOST_CHECK_CLOSE(fig.rd, 72.5, 1e-9);
    BOOST_CHECK_CLOSE(fig.sorted, 99.3, 1e-9);
    BOOST_CHECK_CLOSE(fig.unsorted, 91.9, 1e-9);
    BOOST_CHECK_CLOSE(fig.rd_all, 68.4, 1e-9);
    BOOST_CHECK_CLOSE(fig.sorted_all, 93.8, 1e-9);
    BOOST_CHECK_CLOSE(fig.unsorted_all, 86.8, 1e-9);
    // Table 4.1's ratio: the sorted heuristic beats the R < f1 space on average (over 100 %).
    BOOST_CHECK_CLOSE(tab.rd, 77.6, 1e-9);
    BOOST_CHECK_CLOSE(tab.sorted, 101.2, 1e-9);
    BOOST_CHECK_CLOSE(tab.unsorted, 95.1, 1e-9);
    BOOST_CHECK_CLOSE(tab.rd_all, 72.9, 1e-9);
    BOOST_CHECK_CLOSE(tab.sorted_all, 95.2, 1e-9);
    BOOST_CHECK_CLOSE(tab.unsorted_all, 89.5, 1e-9);
    // treefold's heuristic against the whole space, same measure.
    BOOST_CHECK_CLOSE(fig.own_all, 99.1, 1e-9);
    BOOST_CHECK_CLOSE(tab.own_all, 99.6, 1e-9);
}
