// Schedules without communication: text form, validation, generators, the pipelining
// model's Lambert-W formulas against numerical minimisation, the exact search against
// brute force, and the simulator against the closed form.
#include <boost/test/unit_test.hpp>

#include "treefold/topology/schedule.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/simulator.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>

using treefold::topology::schedule;
namespace topology = treefold::topology;
namespace model = treefold::model;

namespace {

/// True iff `f` throws std::invalid_argument whose message contains `needle`.
template <class F>
bool throws_with(F&& f, const std::string& needle)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const bool ok = std::string(e.what()).find(needle) != std::string::npos;
        if (!ok) {
            BOOST_TEST_MESSAGE("message was: " << e.what());
        }
        return ok;
    }
    return false;
}

} // namespace

BOOST_AUTO_TEST_CASE(text_form_round_trips)
{
    for (const char* text : {"-", "2", "2 2 2", "collapse(4,2) 2 2 expand", "merge(1) 4 3 invmerge", "16",
                             "collapse(9,3) 5 expand", "merge(7) 3 3 invmerge", "collapse(2,2) expand"}) {
        const schedule s = schedule::parse(text);
        BOOST_CHECK_EQUAL(s.to_string(), text);
        BOOST_CHECK(schedule::parse(s.to_string()) == s);
    }
    BOOST_CHECK(schedule::parse("  2\t 3  ") == schedule({2, 3}));
    BOOST_CHECK(schedule::parse("") == schedule{});
    for (int p = 1; p <= 200; ++p) {
        for (const schedule& s : {topology::recursive_doubling(p), model::heuristic(p, {}), model::best(p, {})}) {
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
    // The heuristic merges a remainder when p has a large prime factor.
    const model::params m{0.88, 0.38};
    const schedule h = model::heuristic(1021, m); // prime
    BOOST_CHECK(h.fold() == schedule::fold_kind::merge);
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
    // Mixed factors and folds: the simulator never exceeds the model (stages overlap at most),
    // counts its messages like the schedule, and matches it for uniform segments.
    for (int p = 1; p <= 64; ++p) {
        for (const schedule& s : {topology::recursive_doubling(p), model::heuristic(p, m), model::best(p, m)}) {
            const auto sim = model::simulate(s, p, m);
            BOOST_CHECK_LE(sim.time, model::modelled_time(s, p, m) * (1 + 1e-12));
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
    BOOST_CHECK(throws_with([&] { model::simulate(schedule({2}), 3, m); }, "does not fit p = 3"));
}

BOOST_AUTO_TEST_CASE(best_is_exact_and_fast)
{
    // Brute force over every fold and every ordered factorisation of what remains.
    for (const model::params m : {model::params{0.88, 0.38}, model::params{5.0, 0.1}, model::params{0.1, 1.0}}) {
        for (int p = 1; p <= 40; ++p) {
            double brute = 1e300;
            auto consider = [&](const schedule& s) {
                BOOST_REQUIRE(s.fits(p));
                brute = std::min(brute, model::modelled_time(s, p, m));
            };
            for (const auto& f : topology::factorisations(p)) {
                consider(f);
            }
            for (int b = 2; b <= p; ++b) {
                for (int t = b; t <= p; t += b) {
                    for (const auto& f : topology::factorisations(t / b + p - t)) {
                        consider(schedule::collapsed(t, b, f.factors()));
                    }
                }
            }
            for (int r = 1; r < p; ++r) {
                for (const auto& f : topology::factorisations(p - r)) {
                    consider(schedule::merged(r, f.factors()));
                }
            }
            const schedule found = model::best(p, m);
            BOOST_CHECK_CLOSE(model::modelled_time(found, p, m), brute, 1e-9);
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

BOOST_AUTO_TEST_CASE(calibration_file_round_trips)
{
    const auto path = (std::filesystem::temp_directory_path() / "treefold_calibration_test.txt").string();
    model::write_calibration(path, {1.25, 0.5}, "test");
    const auto m = model::read_calibration(path);
    BOOST_CHECK_EQUAL(m.alpha_p, 1.25);
    BOOST_CHECK_EQUAL(m.alpha_r, 0.5);
    {
        std::FILE* f = std::fopen(path.c_str(), "w");
        std::fputs("alpha_p 1\n", f);
        std::fclose(f);
    }
    BOOST_CHECK_THROW(model::read_calibration(path), std::runtime_error);
    std::filesystem::remove(path);
    BOOST_CHECK_THROW(model::read_calibration(path), std::runtime_error);
}
