// Rows through the reducer: reducer<std::array<double, 3>> under ops::columnwise and
// row_reducer with runtime widths (the row kernels, kernel/rows.hpp) give, for each column,
// the bits of that column's own reduction, with both exchanges at every sub-communicator size.
// (Single values with every kernel are in test/conformance.)
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

BOOST_AUTO_TEST_SUITE(kernel_reducer)

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
