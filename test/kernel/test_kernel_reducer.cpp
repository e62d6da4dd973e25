// The reducer with every kernel backend (scalar, simd<sse2|avx2|avx512f> where the CPU has
// them, the dispatching default) and both exchanges, at every sub-communicator size:
// reproduces the shared data sets' reference tree-sum bits, equals the oracle on mixed
// data with random layouts, and reduces rows of k values (std::array and runtime width).
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;
using testing::bits_of;
using testing::world;

namespace {

std::vector<double> read_psllh(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::uint64_t n = 0;
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    std::vector<double> xs(n);
    in.read(reinterpret_cast<char*>(xs.data()), static_cast<std::streamsize>(n * sizeof(double)));
    if (!in) {
        throw std::runtime_error("cannot read " + path);
    }
    return xs;
}

/// Bits of the all_reduce on every sub-communicator size, with kernel K and exchange E.
template <class K, class E, class Op>
std::vector<std::vector<unsigned char>> bits_on_every_size(const std::vector<double>& xs, Op op, bool random_layout)
{
    return testing::on_every_size([&](const mpi::communicator& sub) {
        const auto l = random_layout ? testing::random_layout(xs.size() * 31 + 7, xs.size(), sub.size())
                                     : layout::block_layout::from_counts(layout::even_lower(xs.size(), sub.size()));
        reducer<double, Op, K, E> r(sub, l, op);
        const auto b = l.block_of(sub.rank());
        const double got = r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
        return testing::bytes_of(got);
    });
}

/// Runs `check(name, results)` for every backend and exchange.
template <class Op, class Check>
void for_every_backend(const std::vector<double>& xs, Op op, bool random_layout, Check&& check)
{
    auto both = [&]<class K>(K, const char* kname) {
        check(std::string(kname) + "/direct", bits_on_every_size<K, exchange::direct>(xs, op, random_layout));
        check(std::string(kname) + "/tree", bits_on_every_size<K, exchange::tree<>>(xs, op, random_layout));
    };
    both(kernel::scalar{}, "scalar");
    both(kernel::best{}, "best");
    both(kernel::simd<xsimd::sse2>{}, "sse2");
    if (kernel::simd_supported("avx2")) {
        both(kernel::simd<xsimd::avx2>{}, "avx2");
    }
    if (kernel::simd_supported("avx512f")) {
        both(kernel::simd<xsimd::avx512f>{}, "avx512f");
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(kernel_reducer)

BOOST_AUTO_TEST_CASE(psllh_reference_bits)
{
    const auto dir = testing::psllh_dir();
    if (!dir) {
        BOOST_TEST_MESSAGE("SKIPPED: ../shared/data/psllh not found; the data-set check did not run");
        return;
    }
    std::ifstream csv(*dir / "reference_tree_sum.csv");
    std::string line;
    int files = 0;
    while (std::getline(csv, line)) {
        const auto comma = line.find(',');
        if (comma == std::string::npos || line.rfind("file", 0) == 0) {
            continue;
        }
        const std::string file = line.substr(0, comma);
        const std::uint64_t want = std::stoull(line.substr(comma + 1), nullptr, 16);
        const auto xs = read_psllh((*dir / file).string());
        ++files;
        // std::plus<double> is what users write; ops::plus is what the explicit backends
        // are precompiled for. Both must give the reference bits.
        auto check = [&](const std::string& name, const std::vector<std::vector<unsigned char>>& res) {
            for (std::size_t k = 0; k < res.size(); ++k) {
                double got = 0;
                std::memcpy(&got, res[k].data(), sizeof got);
                BOOST_CHECK_MESSAGE(bits_of(got) == want, file << " " << name << " p=" << k + 1 << ": bits "
                                                                << std::hex << bits_of(got) << " want " << want);
            }
        };
        for_every_backend(xs, ops::plus{}, false, check);
        check("best/std::plus/random layout",
              bits_on_every_size<kernel::best, exchange::direct>(xs, std::plus<double>{}, true));
    }
    BOOST_CHECK_EQUAL(files, 4);
}

// A large real data set (no reference file): every backend equals the oracle at every size.
BOOST_AUTO_TEST_CASE(psllh_large_against_oracle)
{
    const auto dir = testing::psllh_dir();
    if (!dir) {
        BOOST_TEST_MESSAGE("SKIPPED: ../shared/data/psllh not found");
        return;
    }
    const auto xs = read_psllh((*dir / "dna_rokasD4.binpsllh").string());
    const double want = testing::oracle_reduce(xs, ops::plus{});
    for_every_backend(xs, ops::plus{}, true, [&](const std::string& name, const auto& res) {
        for (std::size_t k = 0; k < res.size(); ++k) {
            BOOST_CHECK_MESSAGE(res[k] == testing::bytes_of(want), "dna_rokasD4 " << name << " p=" << k + 1);
        }
    });
}

// Mixed magnitudes and special values with random layouts (empty blocks, permuted order).
BOOST_AUTO_TEST_CASE(mixed_values_random_layouts)
{
    for (const std::uint64_t n : {1ULL, 2ULL, 63ULL, 64ULL, 65ULL, 1000ULL, 4097ULL, 70001ULL}) {
        const auto xs = testing::mixed_values(n, n, true);
        for (const bool random : {false, true}) {
            const double want = testing::oracle_reduce(xs, ops::plus{});
            for_every_backend(xs, ops::plus{}, random, [&](const std::string& name, const auto& res) {
                for (std::size_t k = 0; k < res.size(); ++k) {
                    BOOST_CHECK_MESSAGE(res[k] == testing::bytes_of(want),
                                        "N=" << n << " " << name << " p=" << k + 1 << (random ? " random" : ""));
                }
            });
        }
    }
}

// Rows: reducer<std::array<double, 3>> and row_reducer with runtime widths return, for each
// column, the bits of that column's own reduction, at every size.
BOOST_AUTO_TEST_CASE(rows_through_the_reducer)
{
    for (const std::uint64_t n : {1ULL, 5ULL, 130ULL, 3001ULL}) {
        for (const std::size_t k : {1, 3, 8, 19}) {
            // no NaN here: results are compared as bytes (see test_kernels.cpp on NaN payloads)
            const auto flat = testing::mixed_values(n * 100 + k, n * k, false);
            std::vector<std::vector<unsigned char>> want;
            for (std::size_t c = 0; c < k; ++c) {
                std::vector<double> col(n);
                for (std::uint64_t i = 0; i < n; ++i) {
                    col[i] = flat[i * k + c];
                }
                want.push_back(testing::bytes_of(testing::oracle_reduce(col, ops::plus{})));
            }
            auto as_bytes = [](const double* v, std::size_t count) {
                std::vector<unsigned char> out;
                for (std::size_t c = 0; c < count; ++c) {
                    const auto b = testing::bytes_of(v[c]);
                    out.insert(out.end(), b.begin(), b.end());
                }
                return out;
            };
            std::vector<unsigned char> want_all;
            for (const auto& w : want) {
                want_all.insert(want_all.end(), w.begin(), w.end());
            }
            auto runtime = [&]<class E>(E, bool random) {
                return testing::on_every_size([&](const mpi::communicator& sub) {
                    const auto l = random ? testing::random_layout(n + k, n, sub.size())
                                          : layout::block_layout::from_counts(layout::even_lower(n, sub.size()));
                    row_reducer<double, ops::plus, E> r(sub, l, k);
                    const auto b = l.block_of(sub.rank());
                    const auto got = r.all_reduce(std::span<const double>(flat.data() + b.start * k, b.count * k));
                    const auto at_root = r.reduce(std::span<const double>(flat.data() + b.start * k, b.count * k), 0);
                    bool ok = got.size() == k && (sub.rank() == 0) == at_root.has_value();
                    ok = ok && (!at_root || as_bytes(at_root->data(), at_root->size()) == as_bytes(got.data(), k));
                    return ok ? as_bytes(got.data(), got.size()) : std::vector<unsigned char>{};
                });
            };
            for (const bool random : {false, true}) {
                for (const auto& res : {runtime(exchange::direct{}, random), runtime(exchange::tree<>{}, random)}) {
                    for (std::size_t p = 0; p < res.size(); ++p) {
                        BOOST_CHECK_MESSAGE(res[p] == want_all, "row_reducer N=" << n << " k=" << k << " p=" << p + 1);
                    }
                }
            }
            if (k == 3) {
                const auto res = testing::on_every_size([&](const mpi::communicator& sub) {
                    const auto l = testing::random_layout(n * 7 + 1, n, sub.size());
                    using row3 = std::array<double, 3>;
                    reducer<row3, ops::columnwise<ops::plus>> r(sub, l);
                    const auto b = l.block_of(sub.rank());
                    const auto* rows = reinterpret_cast<const row3*>(flat.data());
                    const row3 got = r.all_reduce(std::span<const row3>(rows + b.start, b.count));
                    return as_bytes(got.data(), 3);
                });
                for (std::size_t p = 0; p < res.size(); ++p) {
                    BOOST_CHECK_MESSAGE(res[p] == want_all, "reducer<array<double,3>> N=" << n << " p=" << p + 1);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
