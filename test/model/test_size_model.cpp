// The size-aware pipelining model (model/size_model.hpp): the fit recovers known constants
// from synthetic schedule_fit samples, modelled time grows with the message size as
// fitted, the best-schedule search turns to recursive doubling for large messages, and the
// constants file round-trips (one process, no communication).
#include <boost/test/unit_test.hpp>

#include "support/throws.hpp"

#include "treefold/model/size_model.hpp"
#include "treefold/topology/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace model = treefold::model;
using treefold::topology::schedule;

namespace {

constexpr std::uint64_t no_step = std::numeric_limits<std::uint64_t>::max();

/// The sizes schedule_fit --sizes measures: 8 B … 64 KiB and points around 4 KiB.
std::vector<std::uint64_t> grid_sizes()
{
    std::vector<std::uint64_t> out;
    for (std::uint64_t n = 8; n <= 65536; n *= 2) {
        out.push_back(n);
    }
    out.insert(out.end(), {3072, 3584, 4032, 4160, 5120, 6144});
    std::sort(out.begin(), out.end());
    return out;
}

/// What schedule_fit would measure under `m` (with a small deterministic wobble of
/// relative amplitude `wobble`, which averages out).
std::vector<model::size_sample> synthetic(const model::size_params& m, double wobble)
{
    std::vector<model::size_sample> out;
    int k = 0;
    for (const std::uint64_t n : grid_sizes()) {
        for (int b = 1; b <= 16; ++b) {
            const model::params at = m.at(n);
            const model::params ack = m.at(8);
            const double t = b * at.alpha_r + at.alpha_p + ack.alpha_r + ack.alpha_p;
            out.push_back({b, n, t * (1.0 + wobble * std::sin(1.7 * ++k))});
        }
    }
    return out;
}

model::size_params known()
{
    model::size_params m;
    m.base = {0.3, 0.12};
    m.beta = 4e-4;
    m.eager_limit = 4096;
    m.rendezvous_p = 1.5;
    m.rendezvous_r = 0.6;
    m.rendezvous_beta = -2e-4;
    return m;
}

using treefold::testing::throws_with;

} // namespace

BOOST_AUTO_TEST_CASE(fit_recovers_known_constants)
{
    const model::size_params m = known();
    const model::size_fit f = model::fit_size_model(synthetic(m, 0.0));
    BOOST_CHECK_CLOSE(f.model.base.alpha_p, m.base.alpha_p, 1e-6);
    BOOST_CHECK_CLOSE(f.model.base.alpha_r, m.base.alpha_r, 1e-6);
    BOOST_CHECK_CLOSE(f.model.beta, m.beta, 1e-6);
    BOOST_CHECK_EQUAL(f.model.eager_limit, 4096u);
    BOOST_CHECK_CLOSE(f.model.rendezvous_p, m.rendezvous_p, 1e-6);
    BOOST_CHECK_CLOSE(f.model.rendezvous_r, m.rendezvous_r, 1e-6);
    BOOST_CHECK_CLOSE(f.model.rendezvous_beta, m.rendezvous_beta, 1e-6);
    BOOST_CHECK_LT(f.rms_relative_residual, 1e-9);
    BOOST_CHECK_EQUAL(f.samples, grid_sizes().size() * 16);

    // With a 1 % wobble the threshold is still found and the constants are close.
    const model::size_fit g = model::fit_size_model(synthetic(m, 0.01));
    BOOST_CHECK_EQUAL(g.model.eager_limit, 4096u);
    BOOST_CHECK_CLOSE(g.model.beta, m.beta, 5.0);
    BOOST_CHECK_CLOSE(g.model.rendezvous_p, m.rendezvous_p, 20.0);
    BOOST_CHECK_GT(g.rms_relative_residual, 0.0);
}

BOOST_AUTO_TEST_CASE(fit_without_a_step_finds_none)
{
    model::size_params m = known();
    m.eager_limit = no_step;
    const model::size_fit f = model::fit_size_model(synthetic(m, 0.0));
    BOOST_CHECK_EQUAL(f.model.eager_limit, no_step);
    BOOST_CHECK_CLOSE(f.model.base.alpha_p, 0.3, 1e-6);
    BOOST_CHECK_CLOSE(f.model.beta, 4e-4, 1e-6);
    BOOST_CHECK(f.model.sized());
    BOOST_CHECK(!model::size_params::from({0.88, 0.38}).sized());
}

BOOST_AUTO_TEST_CASE(fit_rejects_undetermined_samples)
{
    BOOST_CHECK(throws_with([] { model::fit_size_model({{1, 8, 1.0}, {2, 8, 1.5}}); }, "two message sizes"));
    BOOST_CHECK(throws_with([] { model::fit_size_model({{1, 8, 1.0}, {1, 64, 1.5}}); }, "two message counts"));
    BOOST_CHECK(throws_with([] { model::fit_size_model({{0, 8, 1.0}, {1, 64, 1.5}}); }, "counts >= 1"));
    BOOST_CHECK(throws_with(
        [] {
            model::fit_size_model({{1, 8, 1.0}, {2, 64, std::numeric_limits<double>::quiet_NaN()}});
        },
        "non-finite"));
}

BOOST_AUTO_TEST_CASE(modelled_time_grows_with_size_as_fitted)
{
    const model::size_params m = model::fit_size_model(synthetic(known(), 0.0)).model;
    const schedule s({4, 2});
    // A 4 2 schedule: 2 α_p(n) + 4 α_r(n).
    double last = 0;
    for (const std::uint64_t n : grid_sizes()) {
        const double t = model::modelled_time(s, 8, m, n);
        const double nd = static_cast<double>(n);
        const double want =
            2 * (0.3 + (n > 4096 ? 1.5 : 0.0)) + 4 * (0.12 + 4e-4 * nd + (n > 4096 ? 0.6 - 2e-4 * nd : 0.0));
        BOOST_CHECK_CLOSE(t, want, 1e-6);
        if (n > 8) {
            BOOST_CHECK_GT(t, last);
        }
        last = t;
    }
    // The step: crossing the eager limit adds 2 δ_p + 4 (δ_r + δ_β n) beyond the per-byte growth.
    const double jump = model::modelled_time(s, 8, m, 4097) - model::modelled_time(s, 8, m, 4096);
    BOOST_CHECK_CLOSE(jump, 2 * 1.5 + 4 * (0.6 - 2e-4 * 4097) + 4 * 4e-4, 1e-6);
    // Without size terms the model is the size-free one at every size.
    const auto plain = model::size_params::from({0.88, 0.38});
    BOOST_CHECK_EQUAL(model::modelled_time(s, 8, plain, 65536), model::modelled_time(s, 8, plain.base));
}

BOOST_AUTO_TEST_CASE(search_turns_to_recursive_doubling_for_large_messages)
{
    // The thesis's 8-byte constants (Table 4.1) with a per-byte term: small messages pipeline
    // (α_p/α_r = 2.3: 4 2 beats 2 2 2), large ones do not (α_p/α_r → 0: recursive doubling).
    model::size_params m;
    m.base = {0.88, 0.38};
    m.beta = 1e-3;
    const schedule small = model::best(8, m, 8);
    const schedule large = model::best(8, m, 65536);
    BOOST_TEST_MESSAGE("best(8) at 8 B: " << small.to_string() << ", at 64 KiB: " << large.to_string());
    BOOST_CHECK_EQUAL(small.to_string(), model::best(8, m.base).to_string());
    BOOST_CHECK_EQUAL(small.to_string(), "4 2");
    BOOST_CHECK_EQUAL(large.to_string(), "2 2 2");
    BOOST_CHECK_LT(model::modelled_time(large, 8, m, 65536), model::modelled_time(small, 8, m, 65536));
    // p = 16: 4 4 at 8 B (2 α_p + 6 α_r), recursive doubling at 64 KiB.
    BOOST_CHECK_EQUAL(model::best(16, m, 8).to_string(), "4 4");
    BOOST_CHECK_EQUAL(model::best(16, m, 65536).to_string(), "2 2 2 2");
    BOOST_CHECK_EQUAL(model::heuristic(8, m, 65536).to_string(), "2 2 2");
}

BOOST_AUTO_TEST_CASE(invalid_size_parameters_are_named)
{
    model::size_params m = known();
    m.beta = -1;
    BOOST_CHECK(throws_with([&] { m.check(); }, "beta"));
    m = known();
    m.rendezvous_p = -10;
    BOOST_CHECK(throws_with([&] { m.check(); }, "rendezvous_p"));
    m = known();
    m.rendezvous_r = -3;
    BOOST_CHECK(throws_with([&] { m.check(); }, "above the eager limit"));
    m = known();
    m.rendezvous_beta = -1e-3;
    BOOST_CHECK(throws_with([&] { m.check(); }, "rendezvous_beta"));
    m = known();
    m.base.alpha_r = 0;
    BOOST_CHECK(throws_with([&] { m.check(); }, "alpha_r > 0"));
    BOOST_CHECK(throws_with([&] { model::best(8, m, 8); }, "alpha_r > 0"));
}

BOOST_AUTO_TEST_CASE(size_constants_file_round_trips)
{
    const auto path = (std::filesystem::temp_directory_path() / "treefold_size_constants_test.txt").string();
    const model::size_params m = known();
    model::write_size_constants(path, m, "test");
    const model::size_params r = model::read_size_constants(path);
    BOOST_CHECK_EQUAL(r.base.alpha_p, m.base.alpha_p);
    BOOST_CHECK_EQUAL(r.base.alpha_r, m.base.alpha_r);
    BOOST_CHECK_EQUAL(r.beta, m.beta);
    BOOST_CHECK_EQUAL(r.eager_limit, m.eager_limit);
    BOOST_CHECK_EQUAL(r.rendezvous_p, m.rendezvous_p);
    BOOST_CHECK_EQUAL(r.rendezvous_r, m.rendezvous_r);
    BOOST_CHECK_EQUAL(r.rendezvous_beta, m.rendezvous_beta);
    // The size-free reader takes the same file.
    BOOST_CHECK_EQUAL(model::read_constants(path).alpha_p, m.base.alpha_p);
    // A size-free file reads as β = 0 without a step.
    model::write_constants(path, {1.25, 0.5}, "old");
    const model::size_params old = model::read_size_constants(path);
    BOOST_CHECK(!old.sized());
    BOOST_CHECK_EQUAL(old.base.alpha_r, 0.5);
    {
        std::FILE* f = std::fopen(path.c_str(), "w");
        std::fputs("alpha_p 1\nalpha_r 1\neager_limit lots\n", f);
        std::fclose(f);
    }
    BOOST_CHECK_THROW(model::read_size_constants(path), std::runtime_error);
    // Neither a negative nor a fractional eager limit is read as some other whole number.
    for (const char* limit : {"-1", "4096.5", "99999999999999999999"}) {
        std::istringstream in(std::string("alpha_p 1\nalpha_r 1\neager_limit ") + limit + "\n");
        BOOST_CHECK_EXCEPTION(model::read_size_constants(in, "t"), std::runtime_error, [&](const std::runtime_error& e) {
            return std::string(e.what()).find(std::string("not '") + limit + "'") != std::string::npos;
        });
    }
    std::filesystem::remove(path);
}
