// The C API (treefold/treefold.h): the same bits as the C++ reducer on every data set and on
// random layouts at every sub-communicator size, every type and operation against the
// oracle, user-created MPI_Ops in index order, and errors as MPI error classes on every rank.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/all_reduce.hpp"
#include "treefold/layouts.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/reducer.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/treefold.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

/// This rank's slice of `xs` under `l`.
template <class T>
std::vector<T> slice(const std::vector<T>& xs, const layout::block_layout& l, int rank)
{
    const auto b = l.block_of(rank);
    return {xs.begin() + static_cast<std::ptrdiff_t>(b.start), xs.begin() + static_cast<std::ptrdiff_t>(b.start + b.count)};
}

/// The C API's allreduce and reduce to every root for this rank's block of `xs` under `l`
/// (declared with treefold_context_create_block). Checks that all calls succeed and agree.
template <class T>
T c_reduce(const mpi::communicator& comm, const std::vector<T>& xs, const layout::block_layout& l, MPI_Datatype type,
           MPI_Op op)
{
    const auto b = l.block_of(comm.rank());
    const std::vector<T> mine = slice(xs, l, comm.rank());
    treefold_context ctx = nullptr;
    BOOST_CHECK_EQUAL(treefold_context_create_block(static_cast<MPI_Comm>(comm), static_cast<std::int64_t>(b.start),
                                                    static_cast<std::int64_t>(b.count), type, op, &ctx),
                      MPI_SUCCESS);
    T all{};
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, mine.data(), &all), MPI_SUCCESS);
    for (int root = 0; root < comm.size(); ++root) {
        T at_root{};
        BOOST_CHECK_EQUAL(treefold_reduce_ctx(ctx, mine.data(), &at_root, root), MPI_SUCCESS);
        if (comm.rank() == root) {
            BOOST_CHECK(testing::bytes_of(at_root) == testing::bytes_of(all));
        }
    }
    BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS);
    BOOST_CHECK(ctx == nullptr);
    return all;
}

/// A non-associative, non-commutative user operation: inout = in * 0.5 + inout * 1.5.
void skew(void* in, void* inout, int* len, MPI_Datatype*)
{
    const auto* a = static_cast<const double*>(in);
    auto* b = static_cast<double*>(inout);
    for (int i = 0; i < *len; ++i) {
        b[i] = a[i] * 0.5 + b[i] * 1.5;
    }
}

/// Indices as text, so only the order of operands decides the result.
void concat_i64(void* in, void* inout, int* len, MPI_Datatype*)
{
    const auto* a = static_cast<const std::int64_t*>(in);
    auto* b = static_cast<std::int64_t*>(inout);
    for (int i = 0; i < *len; ++i) {
        b[i] = a[i] * 31 + b[i]; // wraps; order-sensitive like a hash of a sequence
    }
}

struct skew_op {
    double operator()(double a, double b) const { return a * 0.5 + b * 1.5; }
};

} // namespace

BOOST_AUTO_TEST_SUITE(capi)

// Every data set: the C API on random layouts has the C++ reducer's bits (and, for the four
// small files, the published ones) at every sub-communicator size.
BOOST_AUTO_TEST_CASE(data_sets_match_the_reducer)
{
    const auto dir = testing::psllh_dir_or_skip();
    if (!dir) {
        return;
    }
    const auto refs = testing::reference_bits(*dir);
    BOOST_CHECK_EQUAL(refs.size(), 4u);
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(*dir)) {
        if (e.path().extension() == ".binpsllh") {
            files.push_back(e.path().filename().string());
        }
    }
    std::sort(files.begin(), files.end());
    BOOST_CHECK_GE(files.size(), 6u);
    for (const auto& file : files) {
        const std::vector<double> xs = io::read_binpsllh(*dir / file);
        const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
            const auto l = testing::random_layout(xs.size() + static_cast<std::uint64_t>(sub.size()), xs.size(), sub.size());
            const double c = c_reduce(sub, xs, l, MPI_DOUBLE, MPI_SUM);
            reducer<double> cxx(sub, l);
            const double want = cxx.all_reduce(slice(xs, l, sub.rank()));
            BOOST_CHECK_MESSAGE(testing::bits_of(c) == testing::bits_of(want), file << " at p = " << sub.size());
            return testing::bytes_of(c);
        });
        testing::expect_same_across_sizes(results, file.c_str());
        if (const auto it = refs.find(file); it != refs.end()) {
            double first = 0;
            std::memcpy(&first, results[0].data(), sizeof first);
            BOOST_CHECK_MESSAGE(testing::bits_of(first) == it->second, file << ": not the published bits");
        }
    }
}

// Every element type and built-in operation against the oracle, rank-order contexts.
BOOST_AUTO_TEST_CASE(types_and_operations)
{
    const std::uint64_t n = 1000;
    const std::vector<double> d = testing::mixed_values(7, n, false);
    std::vector<float> f(n);
    std::vector<std::int32_t> i32(n);
    std::vector<std::int64_t> i64(n);
    std::vector<std::complex<double>> c(n);
    std::mt19937_64 rng(3);
    for (std::uint64_t i = 0; i < n; ++i) {
        f[i] = static_cast<float>(d[i] * 1e-10);
        i32[i] = static_cast<std::int32_t>(rng() % 2000001) - 1000000;
        i64[i] = static_cast<std::int64_t>(rng());
        c[i] = {d[i], 1.0 / (1.0 + static_cast<double>(i))};
    }
    for (std::uint64_t i = 0; i < n; i += 97) {
        i32[i] = 2000000000; // sums overflow: they wrap
    }
    testing::on_every_size([&](const mpi::communicator& sub) {
        const auto l = testing::random_layout(11 + static_cast<std::uint64_t>(sub.size()), n, sub.size());
        // The predefined operations' NaN results are the canonical quiet NaN (complex
        // products overflow here: inf * 0 parts).
        auto same = [&](const auto& got, auto want, const char* what) {
            if constexpr (!std::is_integral_v<decltype(want)>) {
                treefold::detail::canonicalize_nan(want);
            }
            BOOST_CHECK_MESSAGE(testing::bytes_of(got) == testing::bytes_of(want), what << " at p = " << sub.size());
        };
        same(c_reduce(sub, d, l, MPI_DOUBLE, MPI_SUM), testing::oracle_reduce(d, ops::plus{}), "double sum");
        same(c_reduce(sub, d, l, MPI_DOUBLE, MPI_MIN), testing::oracle_reduce(d, ops::min{}), "double min");
        same(c_reduce(sub, d, l, MPI_DOUBLE_PRECISION, MPI_MAX), testing::oracle_reduce(d, ops::max{}), "double max");
        same(c_reduce(sub, f, l, MPI_FLOAT, MPI_SUM), testing::oracle_reduce(f, ops::plus{}), "float sum");
        same(c_reduce(sub, f, l, MPI_REAL, MPI_PROD), testing::oracle_reduce(f, ops::multiplies{}), "float prod");
        same(c_reduce(sub, i32, l, MPI_INT32_T, MPI_SUM), testing::oracle_reduce(i32, ops::plus{}), "int32 sum");
        same(c_reduce(sub, i32, l, MPI_INT, MPI_MAX), testing::oracle_reduce(i32, ops::max{}), "int32 max");
        same(c_reduce(sub, i64, l, MPI_INT64_T, MPI_PROD), testing::oracle_reduce(i64, ops::multiplies{}), "int64 prod");
        same(c_reduce(sub, i64, l, MPI_INTEGER8, MPI_MIN), testing::oracle_reduce(i64, ops::min{}), "int64 min");
        same(c_reduce(sub, c, l, MPI_C_DOUBLE_COMPLEX, MPI_SUM),
             testing::oracle_reduce(c, std::plus<std::complex<double>>()), "complex sum");
        same(c_reduce(sub, c, l, MPI_DOUBLE_COMPLEX, MPI_PROD),
             testing::oracle_reduce(c, std::multiplies<std::complex<double>>()), "complex prod");
        return std::vector<unsigned char>{};
    });
}

// User-created operations are applied left = lower indices, never commuted, even when they
// are declared commutative; the result is the C++ reducer's with the same operator.
BOOST_AUTO_TEST_CASE(user_operations_in_index_order)
{
    MPI_Op skew_noncommuting = MPI_OP_NULL;
    MPI_Op skew_commuting = MPI_OP_NULL;
    MPI_Op concat = MPI_OP_NULL;
    MPI_Op_create(&skew, 0, &skew_noncommuting);
    MPI_Op_create(&skew, 1, &skew_commuting);
    MPI_Op_create(&concat_i64, 0, &concat);
    const std::uint64_t n = 777;
    const std::vector<double> d = testing::mixed_values(5, n, false);
    std::vector<std::int64_t> idx(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        idx[i] = static_cast<std::int64_t>(i + 1);
    }
    const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
        const auto l = testing::random_layout(21 + static_cast<std::uint64_t>(sub.size()), n, sub.size());
        reducer<double, skew_op> cxx(sub, l);
        const double want = cxx.all_reduce(slice(d, l, sub.rank()));
        for (MPI_Op op : {skew_noncommuting, skew_commuting}) {
            const double got = c_reduce(sub, d, l, MPI_DOUBLE, op);
            BOOST_CHECK_MESSAGE(testing::bits_of(got) == testing::bits_of(want), "skew at p = " << sub.size());
        }
        const std::int64_t got = c_reduce(sub, idx, l, MPI_INT64_T, concat);
        const std::int64_t oracle = testing::oracle_reduce(idx, [](std::int64_t a, std::int64_t b) {
            return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * 31u + static_cast<std::uint64_t>(b));
        });
        BOOST_CHECK_EQUAL(got, oracle);
        return testing::bytes_of(want);
    });
    testing::expect_same_across_sizes(results, "user op");
    MPI_Op_free(&skew_noncommuting);
    MPI_Op_free(&skew_commuting);
    MPI_Op_free(&concat);
}

// Rank-order contexts and the context's own buffer: values written into it are reduced.
BOOST_AUTO_TEST_CASE(rank_order_and_owned_buffer)
{
    const auto& w = testing::world();
    const std::int64_t mine = w.rank() % 2 == 0 ? 3 * w.rank() + 1 : 0; // odd ranks hold nothing
    treefold_context ctx = nullptr;
    BOOST_REQUIRE_EQUAL(treefold_context_create(static_cast<MPI_Comm>(w), mine, MPI_DOUBLE, MPI_SUM, &ctx), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_context_local_count(ctx), mine);
    const std::int64_t n = treefold_context_global_count(ctx);
    std::int64_t start = 0;
    for (int r = 0; r < w.rank(); ++r) {
        start += r % 2 == 0 ? 3 * r + 1 : 0;
    }
    auto* buf = static_cast<double*>(treefold_context_buffer(ctx));
    BOOST_CHECK_EQUAL(buf == nullptr, mine == 0);
    for (std::int64_t i = 0; i < mine; ++i) {
        BOOST_CHECK_EQUAL(buf[i], 0.0);
        buf[i] = 1.0 / static_cast<double>(start + i + 1);
    }
    double got = 0;
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, buf, &got), MPI_SUCCESS);
    std::vector<double> all(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        all[static_cast<std::size_t>(i)] = 1.0 / static_cast<double>(i + 1);
    }
    BOOST_CHECK_EQUAL(testing::bits_of(got), testing::bits_of(testing::oracle_reduce(all, std::plus<double>())));
    BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS);
}

// Errors: the documented class on every rank, nobody waits, and contexts keep working.
BOOST_AUTO_TEST_CASE(errors_on_every_rank)
{
    const auto& w = testing::world();
    const auto comm = static_cast<MPI_Comm>(w);
    const int last = w.size() - 1;
    treefold_context ctx = reinterpret_cast<treefold_context>(&ctx); // must be reset to NULL
    BOOST_CHECK_EQUAL(treefold_context_create(MPI_COMM_NULL, 4, MPI_DOUBLE, MPI_SUM, &ctx), MPI_ERR_COMM);
    BOOST_CHECK(ctx == nullptr);
    BOOST_CHECK(std::string(treefold_last_error()).find("MPI_COMM_NULL") != std::string::npos);

    // One rank names an unsupported type, an unsupported op, a negative count: every rank fails.
    BOOST_CHECK_EQUAL(treefold_context_create(comm, 4, w.rank() == last ? MPI_CHAR : MPI_DOUBLE, MPI_SUM, &ctx),
                      MPI_ERR_TYPE);
    BOOST_CHECK(ctx == nullptr);
    BOOST_CHECK_EQUAL(treefold_context_create(comm, 4, MPI_DOUBLE, w.rank() == last ? MPI_BAND : MPI_SUM, &ctx),
                      MPI_ERR_OP);
    BOOST_CHECK_EQUAL(treefold_context_create(comm, w.rank() == last ? -1 : 4, MPI_DOUBLE, MPI_SUM, &ctx), MPI_ERR_COUNT);
    BOOST_CHECK_EQUAL(treefold_context_create(comm, 4, MPI_C_DOUBLE_COMPLEX, MPI_MAX, &ctx), MPI_ERR_OP);
    if (w.size() > 1) {
        // Supported but different types: every rank fails.
        BOOST_CHECK_EQUAL(treefold_context_create(comm, 4, w.rank() == last ? MPI_FLOAT : MPI_DOUBLE, MPI_SUM, &ctx),
                          MPI_ERR_TYPE);
        // Overlapping blocks.
        BOOST_CHECK_EQUAL(treefold_context_create_block(comm, 0, 4, MPI_DOUBLE, MPI_SUM, &ctx), MPI_ERR_ARG);
    }
    // N = 0: the predefined operations return their identity (every rank, NULL buffers allowed);
    // a user-created MPI_Op has none: MPI_ERR_COUNT on every rank.
    BOOST_REQUIRE_EQUAL(treefold_context_create(comm, 0, MPI_DOUBLE, MPI_SUM, &ctx), MPI_SUCCESS);
    double none = -1.0;
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, nullptr, &none), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(testing::bits_of(none), 0u);
    none = -1.0;
    BOOST_CHECK_EQUAL(treefold_reduce_ctx(ctx, nullptr, &none, last), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(none, w.rank() == last ? 0.0 : -1.0);
    treefold_context_destroy(&ctx);
    BOOST_REQUIRE_EQUAL(treefold_context_create(comm, 0, MPI_INT32_T, MPI_MIN, &ctx), MPI_SUCCESS);
    std::int32_t smallest = 0;
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, nullptr, &smallest), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(smallest, std::numeric_limits<std::int32_t>::max());
    treefold_context_destroy(&ctx);
    MPI_Op user = MPI_OP_NULL;
    MPI_Op_create(&skew, 0, &user);
    BOOST_CHECK_EQUAL(treefold_context_create(comm, 0, MPI_DOUBLE, user, &ctx), MPI_ERR_COUNT);
    BOOST_CHECK(ctx == nullptr);
    MPI_Op_free(&user);
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(nullptr, nullptr, nullptr), MPI_ERR_ARG);

    // A NULL buffer on one rank that holds values: every rank returns MPI_ERR_BUFFER.
    BOOST_REQUIRE_EQUAL(treefold_context_create(comm, 5, MPI_DOUBLE, MPI_SUM, &ctx), MPI_SUCCESS);
    const std::vector<double> xs(5, 0.25);
    double out = -1;
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, w.rank() == last ? nullptr : xs.data(), &out), MPI_ERR_BUFFER);
    BOOST_CHECK(!std::string(treefold_last_error()).empty());
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, xs.data(), w.rank() == last ? nullptr : &out), MPI_ERR_BUFFER);
    BOOST_CHECK_EQUAL(treefold_reduce_ctx(ctx, xs.data(), &out, w.size()), MPI_ERR_ROOT);
    // A root out of range on one rank only: every rank returns MPI_ERR_ROOT (none waits).
    BOOST_CHECK_EQUAL(treefold_reduce_ctx(ctx, xs.data(), &out, w.rank() == last ? -1 : 0), MPI_ERR_ROOT);
    BOOST_CHECK(std::string(treefold_last_error()).find("root -1") != std::string::npos);
    // A NULL result on the root: every rank fails.
    BOOST_CHECK_EQUAL(treefold_reduce_ctx(ctx, xs.data(), w.rank() == 0 ? nullptr : &out, 0), MPI_ERR_BUFFER);
    // Still works, and the last error is cleared.
    BOOST_CHECK_EQUAL(treefold_allreduce_ctx(ctx, xs.data(), &out), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(std::string(treefold_last_error()), "");
    BOOST_CHECK_EQUAL(out, 1.25 * w.size());
    BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS); // NULL: nothing to do
}


// Roots that differ between ranks: no rank waits and no later call sees a message of that
// call (every rank completes; a rank naming itself the root gets the result). Under
// TREEFOLD_CHECK every rank returns MPI_ERR_ROOT with a message naming the roots.
BOOST_AUTO_TEST_CASE(differing_roots)
{
    const auto& w = testing::world();
    const auto comm = static_cast<MPI_Comm>(w);
    const std::vector<double> xs(3, 0.5);
    const double want = 1.5 * w.size();
    for (const bool checked : {false, true}) {
        if (checked && w.rank() == 0) {
            ::setenv("TREEFOLD_CHECK", "1", 1);
        }
        treefold_context ctx = nullptr;
        BOOST_REQUIRE_EQUAL(treefold_context_create(comm, 3, MPI_DOUBLE, MPI_SUM, &ctx), MPI_SUCCESS);
        ::unsetenv("TREEFOLD_CHECK");
        double out = -1;
        // Rank 0 names the last rank, the last rank 0, every other rank itself.
        const int last = w.size() - 1;
        const int root = w.rank() == 0 ? last : w.rank() == last ? 0 : w.rank();
        const int rc = treefold_reduce_ctx(ctx, xs.data(), &out, root);
        if (checked && w.size() > 1) {
            BOOST_CHECK_EQUAL(rc, MPI_ERR_ROOT);
            BOOST_CHECK_MESSAGE(std::string(treefold_last_error()).rfind("treefold (TREEFOLD_CHECK): rank 0 called reduce to ", 0) == 0,
                                treefold_last_error());
        } else {
            BOOST_CHECK_EQUAL(rc, MPI_SUCCESS);
            if (w.rank() == root) {
                BOOST_CHECK_EQUAL(out, want);
            }
        }
        for (int r = 0; r < w.size(); ++r) {
            out = -1;
            BOOST_CHECK_EQUAL(treefold_reduce_ctx(ctx, xs.data(), &out, r), MPI_SUCCESS);
            BOOST_CHECK(w.rank() == r ? out == want : out == -1);
        }
        BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS);
    }
}

namespace {
/// Another user operation on doubles: inout = 2 * in + inout.
void twice(void* in, void* inout, int* len, MPI_Datatype*)
{
    const auto* a = static_cast<const double*>(in);
    auto* b = static_cast<double*>(inout);
    std::transform(a, a + *len, b, b, [](double x, double y) { return 2 * x + y; });
}
} // namespace

// Two different user-created MPI_Ops on different ranks: every rank returns MPI_ERR_OP, at
// context creation and from the one-call form (the ranks compare what their ops make of
// fixed probe values). The same function in two ops is the same op.
BOOST_AUTO_TEST_CASE(user_ops_that_differ_between_ranks)
{
    const auto& w = testing::world();
    const auto comm = static_cast<MPI_Comm>(w);
    // a and b differ; a_again is a's function declared commutative.
    MPI_Op ops[3] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
    MPI_User_function* const functions[3] = {&skew, &twice, &skew};
    for (int i = 0; i < 3; ++i) {
        MPI_Op_create(functions[i], i == 2 ? 1 : 0, &ops[i]);
    }
    MPI_Op& a = ops[0];
    MPI_Op& b = ops[1];
    MPI_Op& a_again = ops[2];
    const bool last = w.rank() == w.size() - 1;
    const std::vector<double> xs(4, 0.75);
    double out = 0;
    treefold_context ctx = nullptr;
    const int expect = w.size() > 1 ? MPI_ERR_OP : MPI_SUCCESS;
    BOOST_CHECK_EQUAL(treefold_context_create(comm, 4, MPI_DOUBLE, last ? b : a, &ctx), expect);
    if (expect == MPI_ERR_OP) {
        BOOST_CHECK(std::string(treefold_last_error()).find("MPI_Op") != std::string::npos);
    }
    BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_allreduce(xs.data(), &out, 4, MPI_DOUBLE, last ? b : a, comm), expect);
    BOOST_CHECK_EQUAL(treefold_context_create(comm, 4, MPI_DOUBLE, last ? a_again : a, &ctx), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_context_destroy(&ctx), MPI_SUCCESS);
    for (MPI_Op& op : ops) {
        MPI_Op_free(&op);
    }
}

// The one-call form: blocks in rank order, the bits of the C++ one-call treefold::all_reduce
// and of the reducer, across changing count patterns (the plan cache replans), MPI's int
// count and the 64-bit one.
BOOST_AUTO_TEST_CASE(one_call_form)
{
    const std::uint64_t n = 1602;
    const std::vector<double> xs = testing::mixed_values(9, n, false);
    testing::on_every_size([&](const mpi::communicator& sub) {
        const auto comm = static_cast<MPI_Comm>(sub);
        for (std::uint64_t seed = 0; seed < 4; ++seed) {
            // Random counts in rank order (every seed changes the pattern; seed 3 repeats seed 0's).
            std::vector<std::uint64_t> counts(static_cast<std::size_t>(sub.size()));
            const auto l0 = testing::random_layout(seed % 3 + 100, n, sub.size());
            for (int r = 0; r < sub.size(); ++r) {
                counts[static_cast<std::size_t>(r)] = l0.block_of(r).count;
            }
            const auto l = layout::block_layout::from_counts(counts);
            const std::vector<double> mine = slice(xs, l, sub.rank());
            double got = 0;
            double got_int = 0;
            BOOST_CHECK_EQUAL(treefold_allreduce_c(mine.data(), &got, static_cast<std::int64_t>(mine.size()), MPI_DOUBLE,
                                                   MPI_SUM, comm),
                              MPI_SUCCESS);
            BOOST_CHECK_EQUAL(treefold_allreduce(mine.data(), &got_int, static_cast<int>(mine.size()), MPI_DOUBLE,
                                                 MPI_SUM, comm),
                              MPI_SUCCESS);
            const double cxx = treefold::all_reduce(sub, mine);
            reducer<double> planned(sub, l);
            BOOST_CHECK_EQUAL(testing::bits_of(got), testing::bits_of(cxx));
            BOOST_CHECK_EQUAL(testing::bits_of(got_int), testing::bits_of(cxx));
            BOOST_CHECK_EQUAL(testing::bits_of(got), testing::bits_of(planned.all_reduce(mine)));
        }
        return std::vector<unsigned char>{};
    });

    const auto& w = testing::world();
    const auto comm = static_cast<MPI_Comm>(w);
    const int last = w.size() - 1;
    const std::vector<double> three(3, 0.5);
    double out = 0;
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    BOOST_CHECK_EQUAL(treefold_allreduce(w.rank() == last ? nullptr : three.data(), &out, 3, MPI_DOUBLE, MPI_SUM, comm),
                      MPI_ERR_BUFFER);
    // MPI_IN_PLACE (here on one rank): the values come from recvbuf, whose first element the
    // result overwrites.
    std::vector<double> in_place = three;
    BOOST_CHECK_EQUAL(treefold_allreduce(w.rank() == last ? MPI_IN_PLACE : three.data(),
                                         w.rank() == last ? in_place.data() : &out, 3, MPI_DOUBLE, MPI_SUM, comm),
                      MPI_SUCCESS);
    BOOST_CHECK_EQUAL(w.rank() == last ? in_place[0] : out, 1.5 * w.size());
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), w.rank() == last ? nullptr : &out, 3, MPI_DOUBLE, MPI_SUM, comm),
                      MPI_ERR_BUFFER);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, w.rank() == last ? MPI_INT64_T : MPI_DOUBLE, MPI_SUM, comm),
                      w.size() > 1 ? MPI_ERR_TYPE : MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 0, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS); // N = 0
    BOOST_CHECK_EQUAL(out, 0.0);
    BOOST_CHECK_EQUAL(treefold_allreduce(nullptr, &out, 0, MPI_DOUBLE, MPI_PROD, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(out, 1.0);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(out, 1.5 * w.size());
    // With a plan kept on the communicator, calls agree on nothing: a rank whose arguments
    // changed or are unusable fails the kept plan's reduction everywhere, and every rank plans
    // again with the agreement, so each error is still reported on every rank, never a hang.
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), w.rank() == last ? nullptr : &out, 3, MPI_DOUBLE, MPI_SUM, comm),
                      MPI_ERR_BUFFER);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, w.rank() == last ? MPI_INT64_T : MPI_DOUBLE, MPI_SUM, comm),
                      w.size() > 1 ? MPI_ERR_TYPE : MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, MPI_DOUBLE, w.rank() == last ? MPI_MAX : MPI_SUM, comm),
                      w.size() > 1 ? MPI_ERR_OP : MPI_SUCCESS);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, 3, MPI_DOUBLE, MPI_MAX, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(out, 0.5);
    // A changed count on one rank plans again: the new sum, on every rank.
    const int mine_count = w.rank() == last ? 2 : 3;
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, mine_count, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(out, 1.5 * w.size() - 0.5);
    BOOST_CHECK_EQUAL(treefold_allreduce(three.data(), &out, mine_count, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(out, 1.5 * w.size() - 0.5);
}

BOOST_AUTO_TEST_SUITE_END()
