// The reproducible reducer against the recursive oracle: every N in 0..300 and larger N,
// random layouts with empty ranks and permuted block order, both exchanges, every
// sub-communicator size, many operators and element types. Results must be bitwise equal
// to the oracle and identical across sizes.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/layout/message_count.hpp"
#include "treefold/reducer.hpp"

#include <boost/serialization/string.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;
using testing::bits_of;
using testing::bytes_of;

namespace {

/// A 2x2 matrix of unsigned 64-bit integers (wrap-around arithmetic is exact).
using testing::mat2;
using testing::mat_mul;

/// A type that is not trivially copyable: travels through Boost.Serialization.
struct word {
    std::string s;
    template <class Archive>
    void serialize(Archive& ar, unsigned /*version*/)
    {
        ar & s;
    }
};
/// Non-associative and non-commutative: the result spells the bracketing.
word bracket(const word& x, const word& y) { return word{"(" + x.s + " " + y.s + ")"}; }

/// Bytes to compare. Every NaN maps to one pattern: which NaN an IEEE operation returns
/// depends on operand order in the machine code, and compilers may swap the operands of a
/// commutative `+` (see doc/design.md, "What the guarantee covers").
template <class T>
std::vector<unsigned char> to_bytes(const T& v)
{
    if constexpr (std::is_floating_point_v<T>) {
        return bytes_of(std::isnan(v) ? std::numeric_limits<T>::quiet_NaN() : v);
    } else if constexpr (std::is_same_v<T, word>) {
        return {v.s.begin(), v.s.end()};
    } else {
        return bytes_of(v);
    }
}

template <class T>
std::string describe(const T& got, const T& want)
{
    if constexpr (std::is_same_v<T, double>) {
        char buf[80];
        std::snprintf(buf, sizeof buf, ": got %016llx want %016llx", static_cast<unsigned long long>(bits_of(got)),
                      static_cast<unsigned long long>(bits_of(want)));
        return buf;
    } else {
        return "";
    }
}

/// The layouts a case runs on: rank-order even blocks and a random permuted one with empties.
std::vector<layout::block_layout> layouts_for(std::uint64_t n, int p, std::uint64_t seed)
{
    return {layout::block_layout::from_counts(layout::even_lower(n, p)), testing::random_layout(seed, n, p)};
}

/// Runs all_reduce (twice, same plan) and reduce on `sub` with exchange E; checks against the
/// oracle on every rank and returns the bytes of the result.
template <class E, class T, class Op>
std::vector<unsigned char> check_one(const mpi::communicator& sub, const std::vector<T>& xs,
                                     const layout::block_layout& l, Op op, const char* what)
{
    reducer<T, Op, kernel::scalar, E> r(sub, l, op);
    const auto b = l.block_of(sub.rank());
    const std::span<const T> local(xs.data() + b.start, b.count);
    const T want = testing::oracle_reduce(xs, op);
    const T first = r.all_reduce(local);
    const T again = r.all_reduce(local);
    const int root = static_cast<int>(xs.size() % static_cast<std::size_t>(sub.size()));
    const std::optional<T> at_root = r.reduce(local, root);
    bool ok = to_bytes(first) == to_bytes(want) && to_bytes(again) == to_bytes(want);
    ok = ok && (sub.rank() == root ? at_root.has_value() && to_bytes(*at_root) == to_bytes(want) : !at_root);
    if (!ok) {
        BOOST_ERROR(what << " with exchange " << E::name << ": N = " << xs.size() << " p = " << sub.size()
                         << " differs from the oracle on rank " << sub.rank() << describe(first, want));
    }
    return to_bytes(first);
}

template <class T, class Op>
std::vector<unsigned char> check_all(const mpi::communicator& sub, const std::vector<T>& xs, Op op, const char* what,
                                     std::uint64_t seed)
{
    std::vector<unsigned char> out;
    for (const auto& l : layouts_for(xs.size(), sub.size(), seed)) {
        for (const auto& bytes : {check_one<exchange::direct>(sub, xs, l, op, what),
                                  check_one<exchange::tree<>>(sub, xs, l, op, what)}) {
            out.insert(out.end(), bytes.begin(), bytes.end());
        }
    }
    return out;
}

using testing::expect_same_across_sizes;

} // namespace

BOOST_AUTO_TEST_CASE(double_sum_every_n_up_to_300)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n = 1; n <= 300; ++n) {
            const auto xs = testing::mixed_values(n, n, n % 3 == 0);
            const auto bytes = check_all(sub, xs, std::plus<double>(), "double +", n * 7919 + sub.size());
            all.insert(all.end(), bytes.begin(), bytes.end());
        }
        return all;
    });
    expect_same_across_sizes(results, "double +");
}

BOOST_AUTO_TEST_CASE(empty_input_has_no_value)
{
    const auto& w = testing::world();
    const auto l = layout::block_layout::from_counts(layout::even_lower(0, w.size()));
    reducer<double> r(w, l);
    BOOST_CHECK_THROW(r.all_reduce({}), std::domain_error);
    BOOST_CHECK_THROW(r.reduce({}, 0), std::domain_error);
}

BOOST_AUTO_TEST_CASE(larger_random_n)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : {1000ULL, 4097ULL, 65536ULL, 100003ULL}) {
            const auto xs = testing::mixed_values(n + 1, n, true);
            const auto bytes = check_all(sub, xs, std::plus<double>(), "double + (large N)", n + sub.size());
            all.insert(all.end(), bytes.begin(), bytes.end());
        }
        return all;
    });
    expect_same_across_sizes(results, "double + (large N)");
}

namespace {
const std::uint64_t operator_sizes[] = {1, 2, 3, 5, 8, 13, 31, 64, 100, 129, 255, 256, 257, 300, 1001};
}

BOOST_AUTO_TEST_CASE(float_and_int64_sums)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : operator_sizes) {
            std::vector<float> xf(n);
            std::vector<std::int64_t> xi(n);
            std::mt19937_64 rng(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                xf[i] = static_cast<float>(std::ldexp(static_cast<double>(rng() % 1000) - 500.0, static_cast<int>(rng() % 40) - 20));
                xi[i] = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
            }
            for (const auto& b : {check_all(sub, xf, std::plus<float>(), "float +", n),
                                  check_all(sub, xi, std::plus<std::int64_t>(), "int64 +", n)}) {
                all.insert(all.end(), b.begin(), b.end());
            }
        }
        return all;
    });
    expect_same_across_sizes(results, "float and int64 +");
}

BOOST_AUTO_TEST_CASE(non_associative_and_stateful_operators)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : operator_sizes) {
            const auto xs = testing::mixed_values(n * 3, n, false);
            auto skew = [](double a, double b) { return a * 0.5 + b * 1.5; };
            // Captured state decides the result: a reducer that lost it would differ.
            const double w = 0.25 + static_cast<double>(n % 5) / 8.0;
            auto weighted = [w](double a, double b) { return w * a + (1.0 - w) * b; };
            for (const auto& b : {check_all(sub, xs, skew, "a*0.5+b*1.5", n), check_all(sub, xs, weighted, "stateful lambda", n)}) {
                all.insert(all.end(), b.begin(), b.end());
            }
            // A function pointer works as an operator too.
            double (*fp)(double, double) = [](double a, double b) { return a - b; };
            const auto b = check_all(sub, xs, fp, "function pointer a-b", n);
            all.insert(all.end(), b.begin(), b.end());
        }
        return all;
    });
    expect_same_across_sizes(results, "non-associative operators");
}

BOOST_AUTO_TEST_CASE(matrix_product_is_not_commuted)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : operator_sizes) {
            std::vector<mat2> xs(n);
            std::mt19937_64 rng(n + 99);
            for (auto& m : xs) {
                m = mat2{rng() % 7, rng() % 7, rng() % 7, rng() % 7};
            }
            const auto b = check_all(sub, xs, &mat_mul, "2x2 matrix product", n);
            all.insert(all.end(), b.begin(), b.end());
            // Matrix product is associative: the tree result equals the left-to-right product.
            mat2 chain = xs[0];
            for (std::size_t i = 1; i < xs.size(); ++i) {
                chain = mat_mul(chain, xs[i]);
            }
            BOOST_CHECK(to_bytes(chain) == std::vector<unsigned char>(b.begin(), b.begin() + sizeof(mat2)));
        }
        return all;
    });
    expect_same_across_sizes(results, "2x2 matrix product");
}

BOOST_AUTO_TEST_CASE(serialized_type_with_a_string)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 16ULL, 33ULL, 100ULL}) {
            std::vector<word> xs(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                xs[i].s = std::to_string(i);
            }
            const auto b = check_all(sub, xs, &bracket, "serialized string type", n);
            all.insert(all.end(), b.begin(), b.end());
        }
        return all;
    });
    expect_same_across_sizes(results, "serialized string type");
}

BOOST_AUTO_TEST_CASE(collective_layout_builders)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        // Each rank declares its own block: rank r holds the r-th block from the end.
        const std::uint64_t n = 777;
        const auto counts = layout::even_upper(n, sub.size());
        const int mirrored = sub.size() - 1 - sub.rank();
        std::uint64_t start = 0;
        for (int r = 0; r < mirrored; ++r) {
            start += counts[static_cast<std::size_t>(r)];
        }
        const auto l = layout_from_block(sub, start, counts[static_cast<std::size_t>(mirrored)]);
        BOOST_CHECK_EQUAL(l.size(), n);
        BOOST_CHECK_EQUAL(l.owner(0), sub.size() - 1);
        const auto xs = testing::mixed_values(5, n, false);
        const auto l2 = layout_from_local_size(sub, counts[static_cast<std::size_t>(sub.rank())]);
        BOOST_CHECK(l2 == layout::block_layout::from_counts(counts));
        std::vector<unsigned char> all;
        for (const auto& lay : {l, l2}) {
            const auto b = check_one<exchange::direct>(sub, xs, lay, std::plus<double>(), "declared blocks");
            all.insert(all.end(), b.begin(), b.end());
        }
        return all;
    });
    expect_same_across_sizes(results, "collective layout builders");
}

BOOST_AUTO_TEST_CASE(counters_report_messages)
{
    const auto& w = testing::world();
    const std::uint64_t n = 1000;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = testing::mixed_values(1, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);

    reducer<double, std::plus<double>, kernel::scalar, exchange::tree<>> tr(w, l);
    tr.reduce(local, 0);
    const auto tree_total = mpi::all_reduce(w, tr.last_counters().messages, std::plus<std::uint64_t>());
    BOOST_CHECK_EQUAL(tree_total, static_cast<std::uint64_t>(w.size() - 1)); // p - 1 for reduce to the finisher

    reducer<double> dr(w, l);
    dr.reduce(local, 0);
    const auto direct_total = mpi::all_reduce(w, dr.last_counters().messages, std::plus<std::uint64_t>());
    // Buffering can only merge messages: at least one per target, at most the unbuffered count.
    BOOST_CHECK_LE(direct_total, layout::direct_messages(l));
    BOOST_CHECK(w.size() == 1 ? direct_total == 0 : direct_total >= 1);
    const auto bytes = mpi::all_reduce(w, dr.last_counters().bytes, std::plus<std::uint64_t>());
    BOOST_CHECK_EQUAL(bytes % sizeof(double), 0u);
}

BOOST_AUTO_TEST_CASE(reducers_on_one_communicator_do_not_cross)
{
    // Two reducers with different operators interleave calls and user traffic on `world`.
    const auto& w = testing::world();
    const std::uint64_t n = 333;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = testing::mixed_values(3, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    auto skew = [](double x, double y) { return x * 0.5 + y * 1.5; };
    reducer<double> plus(w, l);
    reducer<double, decltype(skew)> other(w, l, skew);
    if (w.size() > 1 && w.rank() == 1) {
        w.send(0, 0, 42.0); // user traffic with the reducers' tag, on the user's communicator
    }
    const double a = plus.all_reduce(local);
    const double c = other.all_reduce(local);
    if (w.size() > 1 && w.rank() == 0) {
        double v = 0;
        w.recv(1, 0, v);
        BOOST_CHECK_EQUAL(v, 42.0);
    }
    BOOST_CHECK_EQUAL(bits_of(a), bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    BOOST_CHECK_EQUAL(bits_of(c), bits_of(testing::oracle_reduce(xs, skew)));
}
