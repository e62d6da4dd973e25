#pragma once
// The same-bits guarantee, for every implementation at once: every exchange (direct, the eight
// tree shapes binomial, fibonacci, binary, inorder, truncated_fibonacci, truncated_binary,
// 4-ary and 8-ary, the 4- and 8-ary trees whose result goes out through MPI_Bcast, one-sided,
// the three schedule generators) × every kernel (scalar, best, each simd<Arch> the CPU
// supports) × every layout kind (blocks in rank order, reversed, random with empty blocks,
// everything on one rank, the distribution policies) × every sub-communicator size 1..P × operators that
// expose order mistakes (non-associative, non-commutative, mixed magnitudes and special
// values, float and integer types, serialized types). Each result must have the recursive
// oracle's bits (test/support/oracle.hpp) or the data sets' published bits, and the results
// must be identical across sizes.
//
// The implementation suites keep only what is specific to one implementation (message
// counts, error paths, allocation, plans); the matrix lives here, once.
//
// One executable (test_same_bits) from several translation units: the matrix instantiates a
// reducer for every exchange × kernel × element type × operator it runs, which in one file took
// 267 s of CPU and 4.8 GB to compile. So the exchanges are split into groups (exchange_groups
// below, a partition of all_exchanges that a static_assert checks) and each same_bits_<group>.cpp
// instantiates the cases below for its group only (same_bits_cases.hpp registers them). Every
// case walks the same rotation as a single file would (the same run numbers t, so the same
// exchange, layout kind, kernel and root for each t); a group runs the t whose exchange it
// holds and skips the others, so the groups together run every combination exactly once.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/simd_ops.hpp"
#include "treefold/reducer.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace treefold::testing::same_bits_matrix {

namespace mpi = boost::mpi;

/// Every exchange of the registry but the rma component's (one_sided moves raw bytes): for
/// types that are not trivially copyable (they travel through Boost.Serialization).
using serialized_exchanges = without<all_exchanges, rma_exchanges>::type;

/// Kernels for any operator. kernel::best picks the precompiled SIMD kernel for built-ins,
/// the header-only simd<default_arch> for operators opted in by kernel::allow_simd and scalar
/// for the rest (generic lambdas included).
using scalar_and_best = type_list<kernel::scalar, kernel::best>;
/// For generic lambdas: simd<sse2> is instantiated here (this file's baseline flags).
using generic_kernels = type_list<kernel::scalar, kernel::best, kernel::simd<xsimd::sse2>>;
/// For ops:: built-ins on double, float, int32, int64: the precompiled kernel of every
/// architecture (run only where the CPU has it).
using every_kernel = type_list<kernel::scalar, kernel::best, kernel::simd<xsimd::sse2>, kernel::simd<xsimd::avx2>,
                               kernel::simd<xsimd::avx512f>>;

/// True when the type list L holds E.
template <class L, class E>
inline constexpr bool holds = false;
template <class... Ts, class E>
inline constexpr bool holds<type_list<Ts...>, E> = (std::is_same_v<Ts, E> || ...);

/// The exchange groups, one translation unit each (same_bits_<name>.cpp, listed in
/// CMakeLists.txt): two exchanges a group (automatic alone), as the compile cost goes with the
/// number of exchanges. Every exchange of all_exchanges must be in exactly one group (checked below);
/// serialized_exchanges is a subset of all_exchanges. A new group needs its file, or
/// same_bits/every_exchange_group_is_linked_in fails.
using group_direct_binomial = type_list<exchange::direct, exchange::tree<topology::binomial>>;
using group_fibonacci_binary = type_list<exchange::tree<topology::fibonacci>, exchange::tree<topology::binary>>;
using group_inorder_truncated_fibonacci =
    type_list<exchange::tree<topology::inorder>, exchange::tree<topology::truncated_fibonacci>>;
using group_truncated_binary_mary4 =
    type_list<exchange::tree<topology::truncated_binary>, exchange::tree<topology::m_ary<4>>>;
using group_mary8_dual4 = type_list<exchange::tree<topology::m_ary<8>>,
                                    exchange::tree<topology::m_ary<4>, exchange::result_broadcast::mpi>>;
using group_dual8_one_sided =
    type_list<exchange::tree<topology::m_ary<8>, exchange::result_broadcast::mpi>, rma::one_sided>;
using group_schedule_rd_heuristic = type_list<exchange::scheduled<exchange::schedules::recursive_doubling>,
                                              exchange::scheduled<model::schedules::heuristic>>;
using group_schedule_best_best_sized =
    type_list<exchange::scheduled<model::schedules::best>, exchange::scheduled<model::schedules::best_sized>>;
using group_native = type_list<exchange::native>;
/// automatic alone: it holds the plans of its five candidates (native, binomial, direct, dual4,
/// best_sized), so it costs as much to compile as two or three exchanges.
using group_automatic = type_list<exchange::automatic>;
using exchange_groups =
    type_list<group_direct_binomial, group_fibonacci_binary, group_inorder_truncated_fibonacci,
              group_truncated_binary_mary4, group_mary8_dual4, group_dual8_one_sided, group_schedule_rd_heuristic,
              group_schedule_best_best_sized, group_native, group_automatic>;

/// How many groups of exchange_groups hold E.
template <class E, class... Gs>
constexpr int groups_holding(type_list<Gs...>)
{
    return (0 + ... + (holds<Gs, E> ? 1 : 0));
}

/// Every exchange of L is in exactly one group.
template <class... Es>
constexpr bool partitioned(type_list<Es...>)
{
    return ((groups_holding<Es>(exchange_groups{}) == 1) && ...);
}

template <class... Gs>
constexpr std::size_t grouped_size(type_list<Gs...>)
{
    return (0 + ... + Gs::size);
}

template <class... Es>
constexpr bool subset_of_all(type_list<Es...>)
{
    return (holds<all_exchanges, Es> && ...);
}

static_assert(partitioned(all_exchanges{}) && grouped_size(exchange_groups{}) == all_exchanges::size,
              "exchange_groups must hold every exchange of all_exchanges exactly once (and nothing else)");
static_assert(subset_of_all(serialized_exchanges{}), "serialized_exchanges must be a subset of all_exchanges");
static_assert(all_exchanges::size % 7 != 0 && serialized_exchanges::size % 7 != 0,
              "rotation: the exchange lists' sizes must be coprime to the 7 layout kinds");

template <class K>
bool runs_here()
{
    if constexpr (requires { typename K::arch_type; }) {
        return kernel::simd_supported<typename K::arch_type>();
    } else {
        return true;
    }
}

/// Every exchange of Es that group G holds × every kernel of Ks (that this CPU runs) × every
/// layout: the bits of `want` on every rank. Appends the results' bytes to `out`.
template <class G, class Es, class Ks, class T, class Op>
void every_combination(const mpi::communicator& sub, const std::vector<T>& xs, const std::vector<named_layout>& layouts,
                       Op op, const T& want, const std::string& what, std::vector<unsigned char>& out)
{
    for (std::size_t i = 0; i < layouts.size(); ++i) {
        // the reduce root moves with the case: sometimes the finisher, sometimes not
        const int root = static_cast<int>((xs.size() + i) % static_cast<std::size_t>(sub.size()));
        for_each_type(Es{}, [&]<class E>(std::type_identity<E>, std::size_t) {
            if constexpr (holds<G, E>) {
                for_each_type(Ks{}, [&]<class K>(std::type_identity<K>, std::size_t) {
                    if (runs_here<K>()) {
                        const auto b = testing::check_reducer<E, K>(sub, xs, layouts[i], op, want, root, what);
                        out.insert(out.end(), b.begin(), b.end());
                    }
                });
            }
        });
    }
}

/// Walks the matrix without running all of its product on every input: run number t of a
/// test case uses exchange t mod |Es|, layout kind t mod 7 (testing::layout_kinds) and kernel
/// (t div |Es|) mod |Ks| (kernel::scalar where the CPU lacks that kernel's architecture). So
/// every |Es| consecutive runs use every exchange once, with one kernel; |Es| (18 for
/// all_exchanges, 17 for serialized_exchanges) and 7 are coprime (checked below: keep them so
/// when adding an exchange), so 7·|Es| consecutive runs pair every exchange with every layout kind; |Es|·|Ks|
/// runs pair every exchange with every kernel. Each call makes `runs` runs on `xs` (|Es| by default).
/// Of those runs, group G makes the ones whose exchange it holds (the other groups the rest).
template <class G>
struct rotation {
    std::uint64_t t = 0;

    template <class Es, class Ks, class T, class Op>
    void run(const mpi::communicator& sub, const std::vector<T>& xs, Op op, const T& want, const std::string& what,
             std::uint64_t seed, std::vector<unsigned char>& out, std::uint64_t runs = 0)
    {
        const auto layouts = testing::layout_kinds(xs.size(), sub.size(), seed + static_cast<std::uint64_t>(sub.size()));
        const std::uint64_t end = t + (runs > 0 ? runs : Es::size);
        for (; t < end; ++t) {
            const auto& l = layouts[t % layouts.size()];
            const int root = static_cast<int>((xs.size() + t) % static_cast<std::size_t>(sub.size()));
            for_each_type(Es{}, [&]<class E>(std::type_identity<E>, [[maybe_unused]] std::size_t ei) {
                if constexpr (holds<G, E>) {
                    if (ei != t % Es::size) {
                        return;
                    }
                    bool ran = false;
                    for_each_type(Ks{}, [&]<class K>(std::type_identity<K>, std::size_t ki) {
                        if (ki == t / Es::size % Ks::size && runs_here<K>()) {
                            const auto b = testing::check_reducer<E, K>(sub, xs, l, op, want, root, what);
                            out.insert(out.end(), b.begin(), b.end());
                            ran = true;
                        }
                    });
                    if (!ran) {
                        const auto b = testing::check_reducer<E, kernel::scalar>(sub, xs, l, op, want, root, what);
                        out.insert(out.end(), b.begin(), b.end());
                    }
                }
            });
        }
    }
};

/// Runs `body(sub, rotation&, out)` at every size 1..P (a fresh rotation at each size, so
/// each size walks the same combinations) and checks that every size gave the same bytes.
template <class G, class Body>
void at_every_size(const char* what, Body body)
{
    const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
        std::vector<unsigned char> all;
        rotation<G> r;
        body(sub, r, all);
        return all;
    });
    testing::expect_same_across_sizes(results, what);
}

/// The oracle's value of kept_mixed_values(seed, n, specials) under the sum Op, kept per
/// process (the matrix runs on one thread): every exchange group at every size asks for the
/// same ones, and the recursive oracle over 10^5 values is the costly part of a rank's work.
template <class Op>
double kept_oracle_sum(std::uint64_t seed, std::uint64_t n, bool specials)
{
    static std::map<std::tuple<std::uint64_t, std::uint64_t, bool>, double> kept;
    const auto key = std::make_tuple(seed, n, specials);
    if (const auto it = kept.find(key); it != kept.end()) {
        return it->second;
    }
    const double want = testing::oracle_reduce(*testing::kept_mixed_values(seed, n, specials), Op{});
    kept.emplace(key, want);
    return want;
}

/// N values for the operator cases: around powers of two and the SIMD widths.
inline constexpr std::uint64_t operator_sizes[] = {1, 2, 3, 5, 7, 8, 13, 31, 64, 65, 100, 129, 255, 256, 257, 300, 1001, 4097};

inline std::string at_n(const char* what, std::uint64_t n) { return std::string(what) + ", N = " + std::to_string(n); }

/// The direct and binomial tree exchanges with the scalar kernel on the rank-order and random
/// layouts: what every operator case checks at every one of its sizes, beside the rotation.
template <class G, class T, class Op>
void direct_and_tree(const mpi::communicator& sub, const std::vector<T>& xs, Op op, const T& want,
                     const std::string& what, std::uint64_t seed, std::vector<unsigned char>& out)
{
    every_combination<G, type_list<exchange::direct, exchange::tree<>>, type_list<kernel::scalar>>(
        sub, xs, testing::basic_layouts(xs.size(), sub.size(), seed + static_cast<std::uint64_t>(sub.size())), op,
        want, what, out);
}

// ---- the cases (same_bits_cases.hpp registers them once per group) ------------------------

// Every N up to 300 (special values in every third), double +: the direct and binomial tree
// exchanges with the scalar kernel on rank-order and random layouts, and for every third N
// one more run of the rotation (the next exchange, layout kind and kernel).
template <class G>
void double_sum_every_n_up_to_300()
{
    at_every_size<G>("double + (every N)", [](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (std::uint64_t n = 1; n <= 300; ++n) {
            const auto held = testing::kept_mixed_values(n, n, n % 3 == 0);
            const auto& xs = *held;
            const double want = kept_oracle_sum<std::plus<double>>(n, n, n % 3 == 0);
            const auto seed = n * 7919 + static_cast<std::uint64_t>(sub.size());
            every_combination<G, type_list<exchange::direct, exchange::tree<>>, type_list<kernel::scalar>>(
                sub, xs, testing::basic_layouts(n, sub.size(), seed), std::plus<double>(), want, at_n("double +", n), all);
            if (n % 3 == 0) {
                r.template run<all_exchanges, scalar_and_best>(sub, xs, std::plus<double>(), want, at_n("double +", n), seed,
                                                               all, 1);
            }
        }
    });
}

// Mixed magnitudes (1e16, 1, -1e16, ...) with NaN, ±Inf, -0.0 and subnormals, small and large
// N: ops::plus with every kernel (NaN payloads compared too), std::plus<double> (what users
// write) with scalar and best.
template <class G>
void double_sums_every_kernel()
{
    at_every_size<G>("double sums", [](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (const std::uint64_t n : {1ULL, 2ULL, 63ULL, 64ULL, 65ULL, 1000ULL, 4097ULL, 65536ULL, 70001ULL, 100003ULL}) {
            const auto xs = testing::kept_mixed_values(n, n, true);
            r.template run<all_exchanges, every_kernel>(sub, *xs, ops::plus{}, kept_oracle_sum<ops::plus>(n, n, true),
                                                        at_n("ops::plus", n), n * 31 + 7, all);
            const auto ys = testing::kept_mixed_values(n + 1, n, true);
            r.template run<all_exchanges, scalar_and_best>(sub, *ys, std::plus<double>(),
                                                           kept_oracle_sum<std::plus<double>>(n + 1, n, true),
                                                           at_n("double +", n), n, all);
        }
    });
}

template <class G>
void float_and_integer_sums()
{
    at_every_size<G>("float and integer sums", [](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (const std::uint64_t n : {1ULL, 2ULL, 3ULL, 8ULL, 31ULL, 64ULL, 65ULL, 257ULL, 1001ULL}) {
            std::vector<float> xf(n);
            std::vector<std::int64_t> xi(n);
            std::vector<std::int32_t> x32(n);
            std::mt19937_64 rng(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                xf[i] = static_cast<float>(
                    std::ldexp(static_cast<double>(rng() % 1000) - 500.0, static_cast<int>(rng() % 40) - 20));
                xi[i] = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
                x32[i] = static_cast<std::int32_t>(rng()); // ops::plus sums wrap
            }
            r.template run<all_exchanges, scalar_and_best>(sub, xf, std::plus<float>(),
                                                           testing::oracle_reduce(xf, std::plus<float>()), at_n("float +", n),
                                                           n, all);
            r.template run<all_exchanges, scalar_and_best>(sub, xi, std::plus<std::int64_t>(),
                                                           testing::oracle_reduce(xi, std::plus<std::int64_t>()),
                                                           at_n("int64 +", n), n, all);
            // ops::plus with every kernel, on one of the three types per N in turn
            switch (n % 3) {
            case 0:
                r.template run<all_exchanges, every_kernel>(sub, xf, ops::plus{}, testing::oracle_reduce(xf, ops::plus{}),
                                                            at_n("float ops::plus", n), n + 1, all);
                break;
            case 1:
                r.template run<all_exchanges, every_kernel>(sub, xi, ops::plus{}, testing::oracle_reduce(xi, ops::plus{}),
                                                            at_n("int64 ops::plus", n), n + 2, all);
                break;
            default:
                r.template run<all_exchanges, every_kernel>(sub, x32, ops::plus{}, testing::oracle_reduce(x32, ops::plus{}),
                                                            at_n("int32 ops::plus (wrapping)", n), n + 3, all);
            }
        }
    });
}

// Non-associative operators show any regrouping: a plain lambda, a stateful lambda, a
// function pointer, and a generic lambda (which simd<sse2> runs on SIMD registers;
// kernel::best calls it with T only).
template <class G>
void non_associative_and_stateful_operators()
{
    at_every_size<G>("non-associative operators", [](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (const std::uint64_t n : operator_sizes) {
            const auto held = testing::kept_mixed_values(n * 3, n, false);
            const auto& xs = *held;
            auto skew = [](double a, double b) { return a * 0.5 + b * 1.5; };
            direct_and_tree<G>(sub, xs, skew, testing::oracle_reduce(xs, skew), at_n("a*0.5+b*1.5", n), n, all);
            r.template run<all_exchanges, scalar_and_best>(sub, xs, skew, testing::oracle_reduce(xs, skew),
                                                           at_n("a*0.5+b*1.5", n), n, all, 5);
            // Captured state decides the result: a reducer that lost it would differ.
            const double w = 0.25 + static_cast<double>(n % 5) / 8.0;
            auto weighted = [w](double a, double b) { return w * a + (1.0 - w) * b; };
            direct_and_tree<G>(sub, xs, weighted, testing::oracle_reduce(xs, weighted), at_n("stateful lambda", n), n, all);
            r.template run<all_exchanges, scalar_and_best>(sub, xs, weighted, testing::oracle_reduce(xs, weighted),
                                                           at_n("stateful lambda", n), n + 1, all, 3);
            double (*fp)(double, double) = [](double a, double b) { return a - b; };
            direct_and_tree<G>(sub, xs, fp, testing::oracle_reduce(xs, fp), at_n("function pointer a-b", n), n, all);
            r.template run<all_exchanges, scalar_and_best>(sub, xs, fp, testing::oracle_reduce(xs, fp),
                                                           at_n("function pointer a-b", n), n + 2, all, 3);
            auto generic_skew = [](auto a, auto b) { return a * 0.5 + b * 1.5; };
            r.template run<all_exchanges, generic_kernels>(sub, xs, generic_skew, testing::oracle_reduce(xs, generic_skew),
                                                           at_n("generic a*0.5+b*1.5", n), n + 3, all, 3);
        }
    });
}

// Associative but not commutative, and exact: any operand swap shows. For an associative
// operator the oracle's tree equals the left-to-right fold (a check of the oracle itself).
template <class G>
void non_commutative_operators()
{
    at_every_size<G>("non-commutative operators", [](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (const std::uint64_t n : operator_sizes) {
            std::vector<testing::mat2> ms(n);
            std::vector<std::string> letters(n);
            std::mt19937_64 rng(n + 99);
            for (std::uint64_t i = 0; i < n; ++i) {
                ms[i] = testing::mat2{rng() % 7, rng() % 7, rng() % 7, rng() % 7};
                letters[i] = std::string(1, static_cast<char>('a' + i % 26));
            }
            testing::mat2 chain = ms[0];
            std::string text = letters[0];
            for (std::size_t i = 1; i < n; ++i) {
                chain = testing::mat_mul(chain, ms[i]);
                text += letters[i];
            }
            const auto want_m = testing::oracle_reduce(ms, &testing::mat_mul);
            const auto want_s = testing::oracle_reduce(letters, std::plus<std::string>());
            BOOST_CHECK(want_m == chain);
            BOOST_CHECK(want_s == text);
            direct_and_tree<G>(sub, ms, &testing::mat_mul, want_m, at_n("2x2 matrix product", n), n, all);
            r.template run<all_exchanges, scalar_and_best>(sub, ms, &testing::mat_mul, want_m, at_n("2x2 matrix product", n), n,
                                                           all);
            r.template run<serialized_exchanges, scalar_and_best>(sub, letters, std::plus<std::string>(), want_s,
                                                                  at_n("string concatenation", n), n + 1, all, 3);
        }
    });
}

// Types that travel through Boost.Serialization, under an operator that spells the bracketing.
template <class G>
void serialized_types()
{
    at_every_size<G>("serialized types", [](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (const std::uint64_t n : {1ULL, 2ULL, 3ULL, 5ULL, 7ULL, 16ULL, 33ULL, 100ULL, 120ULL}) {
            std::vector<testing::word> words(n);
            std::vector<std::string> strings(n);
            for (std::uint64_t i = 0; i < n; ++i) {
                words[i].s = strings[i] = std::to_string(i);
            }
            r.template run<serialized_exchanges, scalar_and_best>(sub, words, &testing::bracket,
                                                                  testing::oracle_reduce(words, &testing::bracket),
                                                                  at_n("serialized struct, bracketing", n), n, all, 4);
            auto bracket = [](const std::string& x, const std::string& y) { return "(" + x + " " + y + ")"; };
            r.template run<serialized_exchanges, scalar_and_best>(sub, strings, bracket, testing::oracle_reduce(strings, bracket),
                                                                  at_n("std::string, bracketing", n), n + 1, all, 4);
        }
    });
}

// ---- the shared per-site log-likelihood data sets (../shared/data/psllh; skipped where absent)

/// The double with bit pattern `bits`.
inline double from_bits(std::uint64_t bits)
{
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

// The four small files reproduce their published tree-sum bits: the oracle does, and so does
// the rotation (18 runs with ops::plus on every kernel, 9 with std::plus<double> per file; over
// the files, every exchange meets every layout kind).
template <class G>
void reference_bits_everywhere()
{
    const auto dir = testing::psllh_dir_or_skip();
    if (!dir) {
        return;
    }
    const auto refs = testing::reference_bits(*dir);
    BOOST_CHECK_EQUAL(refs.size(), 4u);
    std::vector<std::pair<std::string, std::vector<double>>> files;
    for (const auto& [file, bits] : refs) {
        files.emplace_back(file, io::read_binpsllh(*dir / file));
        // The oracle itself must reproduce the published bits, or the test is wrong.
        BOOST_CHECK_EQUAL(testing::bits_of(testing::oracle_reduce(files.back().second, std::plus<double>())), bits);
    }
    // One rotation over all files, so the files add up to every pair of exchange and layout.
    at_every_size<G>("reference bits", [&](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (const auto& [file, xs] : files) {
            const double want = from_bits(refs.at(file));
            r.template run<all_exchanges, every_kernel>(sub, xs, ops::plus{}, want, file + " ops::plus", xs.size(), all, 18);
            r.template run<all_exchanges, scalar_and_best>(sub, xs, std::plus<double>(), want, file + " +", xs.size(), all, 9);
        }
    });
}

// The two large files (no published bits): the oracle's bits, every exchange once with
// ops::plus and once with std::plus<double>.
template <class G>
void large_files_against_the_oracle()
{
    const auto dir = testing::psllh_dir();
    if (!dir) {
        BOOST_TEST_MESSAGE("SKIPPED: ../shared/data/psllh not found");
        return;
    }
    std::vector<std::pair<std::string, std::vector<double>>> files;
    for (const char* file : {"dna_rokasD4.binpsllh", "aa_rokasA8.binpsllh"}) {
        if (std::filesystem::exists(*dir / file)) {
            files.emplace_back(file, io::read_binpsllh(*dir / file));
        } else {
            BOOST_TEST_MESSAGE("SKIPPED: " << file << " not found");
        }
    }
    // The oracle once per file, not once per size.
    std::vector<double> wants;
    for (const auto& [file, xs] : files) {
        wants.push_back(testing::oracle_reduce(xs, ops::plus{}));
    }
    at_every_size<G>("large files", [&](const mpi::communicator& sub, rotation<G>& r, std::vector<unsigned char>& all) {
        for (std::size_t f = 0; f < files.size(); ++f) {
            const auto& [file, xs] = files[f];
            r.template run<all_exchanges, every_kernel>(sub, xs, ops::plus{}, wants[f], file + " ops::plus", 7, all);
            r.template run<all_exchanges, scalar_and_best>(sub, xs, std::plus<double>(), wants[f], file + " +", 7, all);
        }
    });
}

} // namespace treefold::testing::same_bits_matrix
