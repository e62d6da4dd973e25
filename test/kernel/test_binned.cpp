// The binned accumulator (kernel/binned.hpp, binned_reducer.hpp): its sum does not depend on
// the order of deposits and merges (shuffles, random splits merged in random trees, empty
// pieces); every kernel gives the scalar reference's bits; binned_reducer and
// reducer<binned<K>, binned_plus> give the same bits for every p (1 .. world size), layout
// and exchange; and its error against the correctly rounded sum on adversarial inputs (up to
// condition 2^100) and the data sets stays within the documented bound.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/exact_sum.hpp"
#include "support/mpi_test.hpp"
#include "treefold/binned_reducer.hpp"
#include "treefold/exchange/detail/records.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/kernel/binned.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/reducer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <span>
#include <tuple>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

template <int K>
std::vector<unsigned char> reference_bytes(const std::vector<double>& xs)
{
    return testing::bytes_of(kernel::binned_scalar<K>::sum(xs.data(), xs.size()));
}

/// f(K{}) for each precompiled binned_simd<Arch, K> the CPU supports.
template <int K, class F>
void for_each_simd_kernel(F&& f)
{
    f(kernel::binned_simd<xsimd::sse2, K>{});
    if (kernel::simd_supported<xsimd::avx2>()) {
        f(kernel::binned_simd<xsimd::avx2, K>{});
    }
    if (kernel::simd_supported<xsimd::avx512f>()) {
        f(kernel::binned_simd<xsimd::avx512f, K>{});
    } else {
        BOOST_TEST_MESSAGE("SKIPPED: binned_simd<avx512f> (the CPU lacks avx512f)");
    }
}

/// The documented bound (kernel/binned.hpp): ulp(result) + N max(2^(1 - 40 (K - 1)) max|x|, 2^-1055).
template <int K>
double error_bound(const std::vector<double>& xs, double result)
{
    double m = 0.0;
    for (const double x : xs) {
        m = std::max(m, std::fabs(x));
    }
    const double ulp = std::nextafter(std::fabs(result), inf) - std::fabs(result);
    const double per_value = std::max(std::ldexp(m, 1 - 40 * (K - 1)), 0x1p-1055);
    return ulp + static_cast<double>(xs.size()) * per_value;
}

/// Values over many magnitudes (2^-600 .. 2^600) in random order, so that chunks raise
/// the accumulator's top bin part way.
std::vector<double> wide_values(std::uint64_t seed, std::size_t n)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> mant(-1.0, 1.0);
    std::uniform_int_distribution<int> expo(-600, 600);
    std::vector<double> xs(n);
    for (auto& x : xs) {
        x = std::ldexp(mant(rng), expo(rng));
    }
    return xs;
}

} // namespace

BOOST_AUTO_TEST_SUITE(binned_accumulator)

// Shuffled deposits and random splits merged in random order (with empty pieces) give the
// reference's bytes: the sum depends on the values alone.
BOOST_AUTO_TEST_CASE(order_independent)
{
    std::mt19937_64 rng(7);
    for (const std::uint64_t n : {1ULL, 3ULL, 100ULL, 5000ULL}) {
        for (const auto& xs : {testing::mixed_values(n, n, false), wide_values(n, n), testing::ill_conditioned(n, n, 300, 60)}) {
            const auto want = reference_bytes<3>(xs);
            auto ys = xs;
            for (int round = 0; round < 4; ++round) {
                std::shuffle(ys.begin(), ys.end(), rng);
                BOOST_CHECK(reference_bytes<3>(ys) == want);
                BOOST_CHECK(testing::bytes_of(kernel::binned_best<3>::sum(ys.data(), ys.size())) == want);
                // random pieces (some empty), merged pairwise in random order
                std::vector<binned<3>> pieces;
                std::uint64_t at = 0;
                while (at < ys.size()) {
                    const std::uint64_t len = std::min<std::uint64_t>(rng() % 50 == 0 ? 0 : rng() % 300, ys.size() - at);
                    pieces.push_back(kernel::binned_best<3>::sum(ys.data() + at, len));
                    at += len;
                }
                pieces.push_back(binned<3>{});
                while (pieces.size() > 1) {
                    const std::size_t i = rng() % (pieces.size() - 1);
                    pieces[i] = rng() % 2 ? ops::binned_plus{}(pieces[i], pieces[i + 1]) : ops::binned_plus{}(pieces[i + 1], pieces[i]);
                    pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                }
                BOOST_CHECK(testing::bytes_of(pieces[0]) == want);
            }
        }
    }
}

// Every kernel gives the scalar reference's bytes, at every length around the chunk and step
// sizes, at every offset in memory, with special values, for K = 2 and 3.
BOOST_AUTO_TEST_CASE(kernels_give_the_reference)
{
    auto check = [&]<int K>(std::integral_constant<int, K>) {
        for (const std::uint64_t n : {0ULL, 1ULL, 7ULL, 64ULL, 2047ULL, 2048ULL, 2049ULL, 10001ULL}) {
            for (const bool specials : {false, true}) {
                for (const auto& xs : {testing::mixed_values(n + 11, n, specials), wide_values(n + 5, n)}) {
                    const auto want = reference_bytes<K>(xs);
                    BOOST_CHECK_MESSAGE(testing::bytes_of(kernel::binned_best<K>::sum(xs.data(), n)) == want, "best K=" << K << " N=" << n);
                    for_each_simd_kernel<K>([&]<class S>(S) {
                        BOOST_CHECK_MESSAGE(testing::bytes_of(S::sum(xs.data(), n)) == want, S::name << " K=" << K << " N=" << n);
                        std::vector<double> shifted(n + 3);
                        std::copy(xs.begin(), xs.end(), shifted.begin() + 3);
                        BOOST_CHECK_MESSAGE(testing::bytes_of(S::sum(shifted.data() + 3, n)) == want, S::name << " shifted N=" << n);
                    });
                }
            }
        }
    };
    check(std::integral_constant<int, 2>{});
    check(std::integral_constant<int, 3>{});
}

// Infinities and NaN as in a plain sum; huge values that cancel are exact; overflow is Inf.
BOOST_AUTO_TEST_CASE(special_values)
{
    const double big = std::numeric_limits<double>::max();
    auto sum = [](std::vector<double> xs) { return kernel::binned_best<3>::sum(xs.data(), xs.size()).to_double(); };
    BOOST_CHECK_EQUAL(sum({1.0, inf, 2.0}), inf);
    BOOST_CHECK_EQUAL(sum({-inf, 1.0, -inf}), -inf);
    BOOST_CHECK(std::isnan(sum({inf, 1.0, -inf})));
    BOOST_CHECK(std::isnan(sum({1.0, std::numeric_limits<double>::quiet_NaN()})));
    BOOST_CHECK_EQUAL(sum({big, big, 0x1p950, -big, -big}), 0x1p950);
    BOOST_CHECK_EQUAL(sum({big, big}), inf);
    BOOST_CHECK_EQUAL(sum({-big, -big, 0.5 * big}), -inf);
    BOOST_CHECK_EQUAL(sum({big, 0x1p930, -big}), 0x1p930);
    // 2^79 below the largest magnitude, K = 3 keeps nothing (the documented bound)
    BOOST_CHECK_EQUAL(sum({big, 1.0, -big}), 0.0);
    BOOST_CHECK_EQUAL(sum({}), 0.0);
    BOOST_CHECK_EQUAL(sum({0.0, -0.0}), 0.0);
    BOOST_CHECK_EQUAL(sum({1e16, 1.0, -1e16}), 1.0);
    // merging an empty accumulator changes nothing; a non-finite one wins
    const binned<3> one = binned<3>::of(1.0);
    BOOST_CHECK(testing::bytes_of(ops::binned_plus{}(one, binned<3>{})) == testing::bytes_of(one));
    BOOST_CHECK(testing::bytes_of(ops::binned_plus{}(binned<3>{}, one)) == testing::bytes_of(one));
    BOOST_CHECK_EQUAL(ops::binned_plus{}(one, binned<3>::of(-inf)).to_double(), -inf);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(binned_reducer_bits)

// binned_reducer<K, Kernel, E> on every sub-communicator size, for rank-order and random
// layouts (empty blocks): all_reduce, the accumulator and reduce to the last rank give the
// reference's bits; reducer<binned<3>, binned_plus> on stored accumulators agrees.
BOOST_AUTO_TEST_CASE(same_bits_everywhere)
{
    // a subset of testing::all_exchanges: every exchange kind, fewer tree shapes and schedules
    const std::tuple<exchange::direct, exchange::tree<topology::binomial>, exchange::tree<topology::fibonacci>,
                     exchange::tree<topology::inorder>, exchange::tree<topology::m_ary<4>>, rma::one_sided,
                     exchange::scheduled<exchange::schedules::recursive_doubling>,
                     exchange::scheduled<model::schedules::best>, exchange::native, exchange::automatic>
        exchanges;
    for (const std::uint64_t n : {1ULL, 5ULL, 1000ULL, 40001ULL}) {
        auto xs = testing::ill_conditioned(n + 3, n, 300, 40);
        xs.resize(n); // it adds a few small terms
        auto check = [&]<int K, class Kern, class E>(std::integral_constant<int, K>, Kern, E) {
            const auto want_bytes = reference_bytes<K>(xs);
            const double want = kernel::binned_scalar<K>::sum(xs.data(), xs.size()).to_double();
            const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
                std::vector<unsigned char> out;
                for (const auto& l : testing::basic_layouts(n, sub.size(), n + 1)) {
                    binned_reducer<K, Kern, E> r(sub, l.layout);
                    const auto b = l.layout.block_of(sub.rank());
                    const std::span<const double> local(xs.data() + (b.count > 0 ? b.start : 0), b.count);
                    const binned<K> parts = r.all_reduce_parts(local);
                    const double sum = r.all_reduce(local);
                    const auto at_root = r.reduce(local, sub.size() - 1);
                    bool ok = testing::bytes_of(parts) == want_bytes && testing::bytes_of(sum) == testing::bytes_of(want);
                    ok = ok && at_root.has_value() == (sub.rank() == sub.size() - 1);
                    ok = ok && (!at_root || testing::bytes_of(*at_root) == testing::bytes_of(want));
                    BOOST_CHECK_MESSAGE(ok, "binned_reducer<" << K << ", " << Kern::name << ", " << E::name << "> N=" << n
                                                              << " p=" << sub.size() << " layout " << l.name);
                    if constexpr (K == 3) {
                        std::vector<binned<3>> stored;
                        for (const double x : local) {
                            stored.push_back(binned<3>::of(x));
                        }
                        reducer<binned<3>, ops::binned_plus, kernel::scalar, E> generic(sub, l.layout);
                        BOOST_CHECK_MESSAGE(testing::bytes_of(generic.all_reduce(stored)) == want_bytes,
                                            "reducer<binned<3>> " << E::name << " N=" << n);
                    }
                    out = testing::bytes_of(parts);
                }
                return out;
            });
            testing::expect_same_across_sizes(results, "binned_reducer");
        };
        std::apply([&](auto... e) { (check(std::integral_constant<int, 3>{}, kernel::binned_best<3>{}, e), ...); }, exchanges);
        check(std::integral_constant<int, 3>{}, kernel::binned_scalar<3>{}, exchange::automatic{});
        check(std::integral_constant<int, 2>{}, kernel::binned_best<2>{}, exchange::tree<>{});
    }
}

// A wrong local size is reported on every rank, and N = 0 has no sum, as by treefold::reducer.
BOOST_AUTO_TEST_CASE(wrong_size)
{
    testing::check_input_errors<binned_reducer<>>(testing::world());
}

// The native exchange reduces the order-free binned sum through its commutative path: one
// accumulator per rank travels (order_free_record), not a frontier record, with the same
// bits, blocking or not; a wrong size on several ranks reaches every rank as the lowest
// failing rank's error, whatever order MPI merged the records in.
BOOST_AUTO_TEST_CASE(native_commutative_path)
{
    using native_binned = binned_reducer<3, kernel::binned_best<3>, exchange::native>;
    const auto& w = testing::world();
    for (const std::uint64_t n : {7ULL, 1000ULL, 40001ULL}) {
        auto xs = testing::ill_conditioned(n + 3, n, 300, 40);
        xs.resize(n); // it adds a few small terms
        const double want = kernel::binned_scalar<3>::sum(xs.data(), n).to_double();
        native_binned r(w, n);
        const auto b = r.local_block();
        const std::span<const double> local(xs.data() + (b.count > 0 ? b.start : 0), b.count);
        BOOST_CHECK(testing::bytes_of(r.all_reduce_parts(local)) == reference_bytes<3>(xs));
        BOOST_CHECK(testing::bytes_of(r.all_reduce(local)) == testing::bytes_of(want));
        BOOST_CHECK_EQUAL(r.last_counters().collective_bytes, order_free_record<binned<3>>::bytes);
        BOOST_CHECK_EQUAL(r.last_counters().collectives, 1u);
    }
    testing::check_input_errors<native_binned>(w);
    if (w.size() > 1) {
        native_binned r(w, std::uint64_t{100});
        // every rank but the last passes one value too many
        std::vector<double> local(r.local_count() + (w.rank() + 1 < w.size() ? 1 : 0), 1.0);
        try {
            r.all_reduce(local);
            BOOST_ERROR("a wrong local size was not reported");
        } catch (const std::invalid_argument& e) {
            BOOST_CHECK_MESSAGE(std::string(e.what()).find("rank 0 ") != std::string::npos, e.what());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(binned_error)

// Cancellations within the folds' 80 bits below the largest magnitude: exactly the
// correctly rounded sum, at every p (all cases through one reducer call each per size).
BOOST_AUTO_TEST_CASE(cancellation)
{
    const std::vector<std::vector<double>> cases = {
        {1e16, 1.0, -1e16},
        {1.0, 0x1p75, 1.0, -0x1p75},
        {1e16, 1.0, 1.0, 1.0, -1e16, 1.0, 1e-16, 3.0},
        {1e300, 1e290, -1e300, -1e290, 0x1p950},
        {0x1p60, 1.0, -0x1p60, 0x1p-60, 0x1p70, -0x1p70, 7.0, 0x1p-60}};
    std::vector<double> want;
    for (const auto& xs : cases) {
        want.push_back(testing::exact_rounded_sum(xs));
    }
    const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
        std::vector<double> sums;
        for (const auto& xs : cases) {
            binned_reducer<> r(sub, xs.size());
            const auto b = r.local_block();
            sums.push_back(r.all_reduce(std::span<const double>(xs.data() + (b.count > 0 ? b.start : 0), b.count)));
        }
        BOOST_CHECK_EQUAL_COLLECTIONS(sums.begin(), sums.end(), want.begin(), want.end());
        return testing::bytes_of(sums[0]);
    });
    testing::expect_same_across_sizes(results, "binned cancellation");
}

// Condition numbers 2^0 .. 2^100 (1e30) over value spreads of 2^0 .. 2^+-300: the error
// stays within the documented bound for K = 2 and 3, and K = 3 is within one ulp of the
// correctly rounded sum while N max|x| 2^-79 is under a quarter ulp.
BOOST_AUTO_TEST_CASE(condition_numbers)
{
    for (const std::size_t n : {100UL, 10000UL}) {
        for (int bits = 0; bits <= 100; bits += 10) {
            for (int spread : {0, 30, 300}) {
                const auto xs = testing::ill_conditioned(n * 1000 + static_cast<std::size_t>(bits * 7 + spread), n, spread, bits);
                const double want = testing::exact_rounded_sum(xs);
                const double got3 = kernel::binned_best<3>::sum(xs.data(), xs.size()).to_double();
                const double got2 = kernel::binned_best<2>::sum(xs.data(), xs.size()).to_double();
                BOOST_CHECK_MESSAGE(testing::abs_error(got3, xs) <= error_bound<3>(xs, got3),
                                    "K=3 N=" << n << " cond~2^" << bits << " spread " << spread << ": error "
                                             << testing::abs_error(got3, xs) << " bound " << error_bound<3>(xs, got3));
                BOOST_CHECK_MESSAGE(testing::abs_error(got2, xs) <= error_bound<2>(xs, got2),
                                    "K=2 N=" << n << " cond~2^" << bits << " spread " << spread << ": error "
                                             << testing::abs_error(got2, xs) << " bound " << error_bound<2>(xs, got2));
                const double ulp = std::nextafter(std::fabs(want), inf) - std::fabs(want);
                if (error_bound<3>(xs, want) - ulp < 0.25 * ulp) {
                    BOOST_CHECK_MESSAGE(testing::ulps_apart(got3, want) <= 1, "K=3 N=" << n << " cond~2^" << bits << " spread "
                                                                                       << spread << ": "
                                                                                       << testing::ulps_apart(got3, want) << " ulps");
                }
            }
        }
    }
}

// Every per-site log-likelihood data set: within one ulp of the correctly rounded sum (K = 3)
// and within the bound.
BOOST_AUTO_TEST_CASE(data_sets)
{
    const auto dir = testing::psllh_dir_or_skip();
    if (!dir) {
        return;
    }
    int seen = 0;
    for (const auto& entry : std::filesystem::directory_iterator(*dir)) {
        if (entry.path().extension() != ".binpsllh") {
            continue;
        }
        const std::vector<double> xs = io::read_values(entry.path());
        const double got = kernel::binned_best<3>::sum(xs.data(), xs.size()).to_double();
        const auto ulps = testing::ulps_apart(got, testing::exact_rounded_sum(xs));
        BOOST_CHECK_MESSAGE(ulps <= 1 && testing::abs_error(got, xs) <= error_bound<3>(xs, got), entry.path().filename() << ": " << ulps << " ulps");
        ++seen;
    }
    BOOST_CHECK_EQUAL(seen, 6);
}

BOOST_AUTO_TEST_SUITE_END()
