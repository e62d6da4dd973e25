// The MPI_Reduce-signature entry points of treefold/collective/reduce.h, checked against
// MPI_Reduce and against rank-order products, on every root.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
// One test still calls the deprecated old names (treefold_allreduce_fibonacci, ...).
#define TREEFOLD_OLD_RANK_ORDERED_NAMES
#include "treefold/collective/reduce.h"
#include "treefold/collective/tree_reduce.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <mpi.h>

#include <array>
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace topology = treefold::topology;
namespace tc = treefold::collective;
using treefold::testing::all_ranks;
using treefold::testing::world;

namespace {

using reduce_fn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm);

using allreduce_fn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);

struct shape_entry {
    const char* name;
    reduce_fn fn;
    allreduce_fn all;
    int (*root)(int);
    int (*rounds)(int);
    int (*depth)(int);
};

template <class Shape>
shape_entry entry(reduce_fn fn, allreduce_fn all)
{
    return {Shape::name, fn, all, &Shape::root, &topology::one_port_rounds<Shape>, &Shape::height};
}

const std::array<shape_entry, 6> shapes{
    entry<topology::binomial>(treefold_rank_ordered_reduce_binomial, treefold_rank_ordered_allreduce_binomial),
    entry<topology::fibonacci>(treefold_rank_ordered_reduce_fibonacci, treefold_rank_ordered_allreduce_fibonacci),
    entry<topology::binary>(treefold_rank_ordered_reduce_binary, treefold_rank_ordered_allreduce_binary),
    entry<topology::inorder>(treefold_rank_ordered_reduce_inorder, treefold_rank_ordered_allreduce_inorder),
    entry<topology::truncated_fibonacci>(treefold_rank_ordered_reduce_truncated_fibonacci, treefold_rank_ordered_allreduce_truncated_fibonacci),
    entry<topology::truncated_binary>(treefold_rank_ordered_reduce_truncated_binary, treefold_rank_ordered_allreduce_truncated_binary)};

MPI_Comm comm_world() { return static_cast<MPI_Comm>(world()); }

int rank_of() { return world().rank(); }
int size_of() { return world().size(); }

const std::array<int, 5> counts{0, 1, 7, 1000, 100000};

/// Runs `fn` and MPI_Reduce with the same arguments; checks equal results on the root and
/// MPI_SUCCESS everywhere. `in_place`: the root passes MPI_IN_PLACE (input in recvbuf).
template <class T>
void compare_with_mpi(const shape_entry& s, const std::vector<T>& in, MPI_Datatype type, MPI_Op op, int root,
                      bool in_place, const char* what)
{
    const int count = static_cast<int>(in.size());
    const bool at_root = rank_of() == root;
    std::vector<T> want(in.size() + 1, T{});
    std::vector<T> got(in.size() + 1, T{});
    MPI_Reduce(in.data(), want.data(), count, type, op, root, comm_world());
    int rc = 0;
    if (in_place && at_root) {
        std::copy(in.begin(), in.end(), got.begin());
        rc = s.fn(MPI_IN_PLACE, got.data(), count, type, op, root, comm_world());
    } else {
        rc = s.fn(in.data(), got.data(), count, type, op, root, comm_world());
    }
    BOOST_CHECK_MESSAGE(rc == MPI_SUCCESS, s.name << " " << what << " count " << count << " root " << root
                                                  << " returned " << rc);
    if (at_root) {
        BOOST_CHECK_MESSAGE(got == want, s.name << " " << what << " count " << count << " root " << root
                                                << (in_place ? " in place" : "") << " differs from MPI_Reduce");
    }
}

// --- non-commutative user ops ---------------------------------------------------------

/// 2x2 matrices of unsigned ints (arithmetic mod 2^32): associative, not commutative.
using mat = std::array<std::uint32_t, 4>;

mat multiply(const mat& a, const mat& b)
{
    return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3]};
}

mat matrix_of(int rank, int i)
{
    const auto r = static_cast<std::uint32_t>(rank);
    const auto k = static_cast<std::uint32_t>(i);
    return {r + 2, k + 1, r * k + 3, r + k + 1};
}

extern "C" void matrix_product_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/)
{
    auto* a = static_cast<mat*>(in);
    auto* b = static_cast<mat*>(inout);
    for (int i = 0; i < *len; ++i) {
        b[i] = multiply(a[i], b[i]); // inout = in op inout: in holds the lower ranks
    }
}

/// A rank interval with room the datatype does not cover (so the extent exceeds the data).
struct segment {
    int lo;
    int hi;
    double untouched;
};

constexpr int broken = INT_MIN;

/// Concatenates adjacent rank intervals; anything else (an operand out of rank order)
/// poisons the result.
extern "C" void ordered_segments_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/)
{
    auto* a = static_cast<segment*>(in);
    auto* b = static_cast<segment*>(inout);
    for (int i = 0; i < *len; ++i) {
        if (a[i].lo == broken || b[i].lo == broken || a[i].hi + 1 != b[i].lo) {
            b[i].lo = broken;
            b[i].hi = broken;
        } else {
            b[i].lo = a[i].lo;
        }
    }
}

/// Sum of the three doubles of a strided vector element (laid out 0, 2, 4 in a 5-double
/// extent), touching nothing else.
extern "C" void strided_sum_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/)
{
    auto* a = static_cast<double*>(in);
    auto* b = static_cast<double*>(inout);
    for (int i = 0; i < *len; ++i) {
        for (int k = 0; k < 3; ++k) {
            b[5 * i + 2 * k] += a[5 * i + 2 * k];
        }
    }
}

struct user_types {
    MPI_Datatype matrix = MPI_DATATYPE_NULL;
    MPI_Datatype seg = MPI_DATATYPE_NULL;
    MPI_Datatype strided = MPI_DATATYPE_NULL;
    MPI_Op matrix_op = MPI_OP_NULL;
    MPI_Op seg_op = MPI_OP_NULL;
    MPI_Op strided_op = MPI_OP_NULL;

    user_types()
    {
        MPI_Type_contiguous(4, MPI_UINT32_T, &matrix);
        MPI_Type_commit(&matrix);
        const std::array<int, 2> lengths{1, 1};
        const std::array<MPI_Aint, 2> offsets{offsetof(segment, lo), offsetof(segment, hi)};
        const std::array<MPI_Datatype, 2> types{MPI_INT, MPI_INT};
        MPI_Datatype raw = MPI_DATATYPE_NULL;
        MPI_Type_create_struct(2, lengths.data(), offsets.data(), types.data(), &raw);
        MPI_Type_create_resized(raw, 0, sizeof(segment), &seg);
        MPI_Type_free(&raw);
        MPI_Type_commit(&seg);
        MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &strided);
        MPI_Type_commit(&strided);
        MPI_Op_create(&matrix_product_op, 0, &matrix_op);
        MPI_Op_create(&ordered_segments_op, 0, &seg_op);
        MPI_Op_create(&strided_sum_op, 0, &strided_op);
    }
    ~user_types()
    {
        MPI_Type_free(&matrix);
        MPI_Type_free(&seg);
        MPI_Type_free(&strided);
        MPI_Op_free(&matrix_op);
        MPI_Op_free(&seg_op);
        MPI_Op_free(&strided_op);
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(builtin_types_and_ops_match_mpi_reduce)
{
    const int p = size_of();
    const int me = rank_of();
    for (const int count : counts) {
        std::vector<int> ints(static_cast<std::size_t>(count));
        std::vector<double> doubles(ints.size());
        std::vector<long long> longs(ints.size());
        std::vector<float> floats(ints.size());
        for (int i = 0; i < count; ++i) {
            ints[static_cast<std::size_t>(i)] = (me * 7919 + i * 31) % 2001 - 1000;
            doubles[static_cast<std::size_t>(i)] = static_cast<double>((me * 104729 + i * 13) % 4097) - 2048.0;
            longs[static_cast<std::size_t>(i)] = (static_cast<long long>(me + 1) << 40) ^ (i * 2654435761LL);
            floats[static_cast<std::size_t>(i)] = static_cast<float>((i * 17 + me * 5) % 101) * 0.25F;
        }
        for (const auto& s : shapes) {
            for (int root = 0; root < p; ++root) {
                compare_with_mpi(s, ints, MPI_INT, MPI_SUM, root, false, "int sum");
                compare_with_mpi(s, doubles, MPI_DOUBLE, MPI_SUM, root, false, "integral double sum");
                if (count <= 1000) { // the rest at every size but the largest
                    compare_with_mpi(s, doubles, MPI_DOUBLE, MPI_MAX, root, false, "double max");
                    compare_with_mpi(s, longs, MPI_LONG_LONG, MPI_BXOR, root, false, "long long bxor");
                    compare_with_mpi(s, floats, MPI_FLOAT, MPI_MIN, root, false, "float min");
                    compare_with_mpi(s, ints, MPI_INT, MPI_SUM, root, true, "int sum");
                    compare_with_mpi(s, floats, MPI_FLOAT, MPI_MAX, root, true, "float max");
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(noncommutative_matrix_product_in_rank_order)
{
    const user_types u;
    const int p = size_of();
    const int me = rank_of();
    for (const int count : {1, 7, 1000}) {
        std::vector<mat> mine(static_cast<std::size_t>(count));
        std::vector<mat> product(mine.size());
        for (int i = 0; i < count; ++i) {
            mine[static_cast<std::size_t>(i)] = matrix_of(me, i);
            mat acc = matrix_of(0, i);
            for (int r = 1; r < p; ++r) {
                acc = multiply(acc, matrix_of(r, i));
            }
            product[static_cast<std::size_t>(i)] = acc;
        }
        for (const auto& s : shapes) {
            for (int root = 0; root < p; ++root) {
                for (const bool in_place : {false, true}) {
                    std::vector<mat> got(mine.size());
                    int rc = 0;
                    if (in_place && me == root) {
                        got = mine;
                        rc = s.fn(MPI_IN_PLACE, got.data(), count, u.matrix, u.matrix_op, root, comm_world());
                    } else {
                        rc = s.fn(mine.data(), got.data(), count, u.matrix, u.matrix_op, root, comm_world());
                    }
                    BOOST_CHECK_EQUAL(rc, MPI_SUCCESS);
                    if (me == root) {
                        BOOST_CHECK_MESSAGE(got == product, s.name << " matrix product count " << count << " root "
                                                                   << root << (in_place ? " in place" : "")
                                                                   << " is not M_0 M_1 ... M_{p-1}");
                    }
                }
                // MPI_Reduce agrees (non-commutative ops are applied in rank order there too).
                std::vector<mat> want(mine.size());
                MPI_Reduce(mine.data(), want.data(), count, u.matrix, u.matrix_op, root, comm_world());
                if (me == root) {
                    BOOST_CHECK(want == product);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(order_checking_op_on_resized_struct_type)
{
    const user_types u;
    const int p = size_of();
    const int me = rank_of();
    for (const int count : {1, 7, 1000}) {
        std::vector<segment> mine(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            mine[static_cast<std::size_t>(i)] = {me + i * p, me + i * p, 0.0};
        }
        for (const auto& s : shapes) {
            for (int root = 0; root < p; ++root) {
                for (const bool in_place : {false, true}) {
                    std::vector<segment> got(mine.size(), segment{-1, -1, 42.5});
                    int rc = 0;
                    if (in_place && me == root) {
                        for (std::size_t i = 0; i < got.size(); ++i) {
                            got[i].lo = mine[i].lo;
                            got[i].hi = mine[i].hi;
                        }
                        rc = s.fn(MPI_IN_PLACE, got.data(), count, u.seg, u.seg_op, root, comm_world());
                    } else {
                        rc = s.fn(mine.data(), got.data(), count, u.seg, u.seg_op, root, comm_world());
                    }
                    BOOST_CHECK_EQUAL(rc, MPI_SUCCESS);
                    if (me == root) {
                        bool ok = true;
                        for (int i = 0; i < count; ++i) {
                            const segment& g = got[static_cast<std::size_t>(i)];
                            ok = ok && g.lo == i * p && g.hi == i * p + p - 1 && g.untouched == 42.5;
                        }
                        BOOST_CHECK_MESSAGE(ok, s.name << " ordered segments count " << count << " root " << root
                                                       << (in_place ? " in place" : "")
                                                       << ": operands out of rank order or bytes outside the type "
                                                          "written");
                    }
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(strided_vector_type)
{
    const user_types u;
    const int p = size_of();
    const int me = rank_of();
    constexpr double gap = -7.25;
    for (const int count : {1, 7, 1000}) {
        const std::size_t doubles = 5 * static_cast<std::size_t>(count);
        std::vector<double> mine(doubles, gap);
        std::vector<double> want(doubles, gap);
        for (int i = 0; i < count; ++i) {
            for (int k = 0; k < 3; ++k) {
                const std::size_t at = 5 * static_cast<std::size_t>(i) + 2 * static_cast<std::size_t>(k);
                mine[at] = static_cast<double>(me * 100 + i * 3 + k);
                want[at] = static_cast<double>(p * (p - 1) / 2 * 100 + p * (i * 3 + k));
            }
        }
        for (const auto& s : shapes) {
            for (int root = 0; root < p; ++root) {
                std::vector<double> got(doubles + 1, gap); // one more: the last element's extent ends early
                const int rc = s.fn(mine.data(), got.data(), count, u.strided, u.strided_op, root, comm_world());
                BOOST_CHECK_EQUAL(rc, MPI_SUCCESS);
                if (me == root) {
                    got.pop_back();
                    BOOST_CHECK_MESSAGE(got == want, s.name << " strided vector count " << count << " root " << root
                                                            << ": wrong sums or gaps written");
                }
                std::vector<double> theirs(doubles, gap);
                MPI_Reduce(mine.data(), theirs.data(), count, u.strided, u.strided_op, root, comm_world());
                if (me == root) {
                    BOOST_CHECK(theirs == want);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(errors_seen_by_every_rank_return_at_once)
{
    const int p = size_of();
    int x = 1;
    int y = 0;
    for (const auto& s : shapes) {
        BOOST_CHECK(all_ranks(world(), s.fn(&x, &y, 1, MPI_INT, MPI_SUM, -1, comm_world()) == MPI_ERR_ROOT));
        BOOST_CHECK(all_ranks(world(), s.fn(&x, &y, 1, MPI_INT, MPI_SUM, p, comm_world()) == MPI_ERR_ROOT));
        BOOST_CHECK(all_ranks(world(), s.fn(&x, &y, -1, MPI_INT, MPI_SUM, 0, comm_world()) == MPI_ERR_COUNT));
        BOOST_CHECK(all_ranks(world(), s.fn(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, comm_world()) == MPI_ERR_TYPE));
        BOOST_CHECK(all_ranks(world(), s.fn(&x, &y, 1, MPI_INT, MPI_OP_NULL, 0, comm_world()) == MPI_ERR_OP));
        BOOST_CHECK(all_ranks(world(), s.fn(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_NULL) == MPI_ERR_COMM));
        // count 0 with null buffers is fine and moves nothing.
        BOOST_CHECK(all_ranks(world(), s.fn(nullptr, nullptr, 0, MPI_INT, MPI_SUM, 0, comm_world()) == MPI_SUCCESS));
    }
}

BOOST_AUTO_TEST_CASE(local_buffer_errors_reach_the_root_and_nobody_waits)
{
    const int p = size_of();
    const int me = rank_of();
    std::vector<int> in(7, me + 1);
    std::vector<int> out(7, 0);
    const int expect_sum = p * (p + 1) / 2;
    for (const auto& s : shapes) {
        for (int root = 0; root < p; ++root) {
            const int bad = (root + p - 1) % p; // some rank other than the root when p > 1
            // A null send buffer on `bad`.
            int rc = s.fn(me == bad ? nullptr : in.data(), out.data(), 7, MPI_INT, MPI_SUM, root, comm_world());
            if (me == bad || me == root) {
                BOOST_CHECK_MESSAGE(rc == MPI_ERR_BUFFER,
                                    s.name << " null sendbuf on rank " << bad << " root " << root << ": rank " << me
                                           << " returned " << rc);
            } else {
                BOOST_CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_BUFFER);
            }
            // MPI_IN_PLACE off the root.
            if (p > 1) {
                rc = s.fn(me == bad ? MPI_IN_PLACE : in.data(), out.data(), 7, MPI_INT, MPI_SUM, root, comm_world());
                if (me == bad || me == root) {
                    BOOST_CHECK_EQUAL(rc, MPI_ERR_BUFFER);
                }
            }
            // A null receive buffer on the root.
            rc = s.fn(in.data(), me == root ? nullptr : out.data(), 7, MPI_INT, MPI_SUM, root, comm_world());
            if (me == root) {
                BOOST_CHECK_EQUAL(rc, MPI_ERR_BUFFER);
            }
            // Nothing was left behind: the next call is right.
            std::fill(out.begin(), out.end(), 0);
            rc = s.fn(in.data(), out.data(), 7, MPI_INT, MPI_SUM, root, comm_world());
            BOOST_CHECK_EQUAL(rc, MPI_SUCCESS);
            if (me == root) {
                BOOST_CHECK(out == std::vector<int>(7, expect_sum));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(counters_of_the_last_call)
{
    const int p = size_of();
    std::vector<double> in(10, 1.0);
    std::vector<double> out(10, 0.0);
    for (const auto& s : shapes) {
        for (int root = 0; root < p; ++root) {
            BOOST_CHECK_EQUAL(s.fn(in.data(), out.data(), 10, MPI_DOUBLE, MPI_SUM, root, comm_world()), MPI_SUCCESS);
            treefold_rank_ordered_counters c{};
            treefold_rank_ordered_last_counters(&c);
            const int forward = s.root(p) != root ? 1 : 0;
            const long long all = boost::mpi::all_reduce(world(), c.messages, std::plus<long long>());
            const long long all_bytes = boost::mpi::all_reduce(world(), c.bytes, std::plus<long long>());
            BOOST_CHECK_EQUAL(c.total_messages, p - 1 + forward);
            BOOST_CHECK_EQUAL(all, p - 1 + forward);
            BOOST_CHECK_EQUAL(all_bytes, (p - 1 + forward) * 10LL * static_cast<long long>(sizeof(double)));
            BOOST_CHECK_EQUAL(c.rounds, s.rounds(p) + forward);
            BOOST_CHECK_EQUAL(c.depth, s.depth(p) + forward);
        }
    }
    // Each call resets the counters.
    treefold_rank_ordered_reduce_binomial(nullptr, nullptr, 0, MPI_INT, MPI_SUM, 0, comm_world());
    treefold_rank_ordered_counters c{};
    treefold_rank_ordered_last_counters(&c);
    BOOST_CHECK_EQUAL(c.messages, 0);
    BOOST_CHECK_EQUAL(c.total_messages, 0);
}

BOOST_AUTO_TEST_CASE(messages_never_meet_the_callers_traffic)
{
    const int me = rank_of();
    // A wildcard receive the caller has pending must not catch treefold's messages.
    int caught = -1;
    MPI_Request pending = MPI_REQUEST_NULL;
    MPI_Irecv(&caught, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm_world(), &pending);
    std::vector<int> in(100, me);
    std::vector<int> out(100, 0);
    for (const auto& s : shapes) {
        BOOST_CHECK_EQUAL(s.fn(in.data(), out.data(), 100, MPI_INT, MPI_SUM, 0, comm_world()), MPI_SUCCESS);
    }
    int done = 0;
    MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
    BOOST_CHECK_EQUAL(done, 0);
    const int token = 1000 + me;
    MPI_Send(&token, 1, MPI_INT, me, 77, comm_world());
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    BOOST_CHECK_EQUAL(caught, 1000 + me);

    // A communicator the caller frees takes treefold's duplicate with it.
    MPI_Comm mine = MPI_COMM_NULL;
    MPI_Comm_dup(comm_world(), &mine);
    BOOST_CHECK_EQUAL(treefold_rank_ordered_reduce_fibonacci(in.data(), out.data(), 100, MPI_INT, MPI_SUM, 0, mine), MPI_SUCCESS);
    BOOST_CHECK_EQUAL(MPI_Comm_free(&mine), MPI_SUCCESS);
}

BOOST_AUTO_TEST_CASE(allreduce_matches_mpi_allreduce_and_the_reduce)
{
    const int p = size_of();
    const int me = rank_of();
    const user_types u;
    for (const int count : counts) {
        std::vector<int> ints(static_cast<std::size_t>(count));
        std::vector<double> doubles(ints.size());
        for (int i = 0; i < count; ++i) {
            ints[static_cast<std::size_t>(i)] = (me * 7919 + i * 31) % 2001 - 1000;
            // Mixed magnitudes: the bracketing shows in the bits.
            doubles[static_cast<std::size_t>(i)] = (i + me) % 3 == 0 ? 1e16 * (me % 2 == 0 ? 1 : -1) : 0.1 * (i + me);
        }
        std::vector<int> want(ints.size());
        MPI_Allreduce(ints.data(), want.data(), count, MPI_INT, MPI_SUM, comm_world());
        for (const auto& s : shapes) {
            std::vector<int> got(ints.size(), -1);
            BOOST_CHECK_EQUAL(s.all(ints.data(), got.data(), count, MPI_INT, MPI_SUM, comm_world()), MPI_SUCCESS);
            BOOST_CHECK(all_ranks(world(), got == want));
            std::vector<int> in_place = ints;
            BOOST_CHECK_EQUAL(s.all(MPI_IN_PLACE, in_place.data(), count, MPI_INT, MPI_SUM, comm_world()), MPI_SUCCESS);
            BOOST_CHECK(all_ranks(world(), in_place == want));
            if (count > 1000) {
                continue;
            }
            // The same bits on every rank, and the bits of the reduce to the shape's root.
            std::vector<double> all(doubles.size());
            std::vector<double> at_root(doubles.size());
            BOOST_CHECK_EQUAL(s.all(doubles.data(), all.data(), count, MPI_DOUBLE, MPI_SUM, comm_world()), MPI_SUCCESS);
            s.fn(doubles.data(), at_root.data(), count, MPI_DOUBLE, MPI_SUM, s.root(p), comm_world());
            MPI_Bcast(at_root.data(), count, MPI_DOUBLE, s.root(p), comm_world());
            BOOST_CHECK(all_ranks(world(), std::memcmp(all.data(), at_root.data(), all.size() * sizeof(double)) == 0));
            // Rank order for a non-commutative op.
            std::vector<mat> mine(static_cast<std::size_t>(count));
            std::vector<mat> product(mine.size());
            for (int i = 0; i < count; ++i) {
                mine[static_cast<std::size_t>(i)] = matrix_of(me, i);
                mat acc = matrix_of(0, i);
                for (int r = 1; r < p; ++r) {
                    acc = multiply(acc, matrix_of(r, i));
                }
                product[static_cast<std::size_t>(i)] = acc;
            }
            std::vector<mat> got_m(mine.size());
            BOOST_CHECK_EQUAL(s.all(mine.data(), got_m.data(), count, u.matrix, u.matrix_op, comm_world()), MPI_SUCCESS);
            BOOST_CHECK(all_ranks(world(), got_m == product));
        }
    }
}

BOOST_AUTO_TEST_CASE(allreduce_buffer_error_reaches_every_rank)
{
    const int p = size_of();
    const int me = rank_of();
    std::vector<int> in(7, 1);
    std::vector<int> out(7, 0);
    for (const auto& s : shapes) {
        for (int bad = 0; bad < p; ++bad) {
            const int rc = s.all(in.data(), me == bad ? nullptr : out.data(), 7, MPI_INT, MPI_SUM, comm_world());
            BOOST_CHECK(all_ranks(world(), rc == MPI_ERR_BUFFER));
        }
        const int rc = s.all(in.data(), out.data(), 7, MPI_INT, MPI_SUM, comm_world());
        BOOST_CHECK(all_ranks(world(), rc == MPI_SUCCESS && out == std::vector<int>(7, p)));
        treefold_rank_ordered_counters c{};
        treefold_rank_ordered_last_counters(&c);
        BOOST_CHECK_EQUAL(c.total_messages, 2LL * (p - 1));
        BOOST_CHECK_EQUAL(boost::mpi::all_reduce(world(), c.messages, std::plus<long long>()), 2LL * (p - 1));
        int log = 0;
        while ((1 << log) < p) {
            ++log;
        }
        BOOST_CHECK_EQUAL(c.rounds, s.rounds(p) + log);
    }
}

// The names before treefold_rank_ordered_ still link and are the same functions (deprecated).
BOOST_AUTO_TEST_CASE(old_names_are_the_rank_ordered_functions)
{
    const int me = rank_of();
    const double mine[3] = {0.1 * me, 1e16 * (me % 2 == 0 ? 1 : -1), 1.0 / (me + 3)};
    double want[3] = {};
    double got[3] = {};
    double at_root[3] = {};
    double want_at_root[3] = {};
    BOOST_REQUIRE_EQUAL(treefold_rank_ordered_allreduce_fibonacci(mine, want, 3, MPI_DOUBLE, MPI_SUM, comm_world()),
                        MPI_SUCCESS);
    treefold_rank_ordered_reduce_inorder(mine, want_at_root, 3, MPI_DOUBLE, MPI_SUM, 0, comm_world());
    treefold_rank_ordered_counters now{};
    treefold_rank_ordered_last_counters(&now);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    BOOST_REQUIRE_EQUAL(treefold_allreduce_fibonacci(mine, got, 3, MPI_DOUBLE, MPI_SUM, comm_world()), MPI_SUCCESS);
    treefold_reduce_inorder(mine, at_root, 3, MPI_DOUBLE, MPI_SUM, 0, comm_world());
    treefold_reduce_counters before{};
    treefold_reduce_last_counters(&before);
#pragma GCC diagnostic pop
    BOOST_CHECK(all_ranks(world(), std::memcmp(got, want, sizeof got) == 0));
    BOOST_CHECK(all_ranks(world(), std::memcmp(at_root, want_at_root, sizeof at_root) == 0));
    BOOST_CHECK(all_ranks(world(), before.messages == now.messages && before.depth == now.depth));
}
