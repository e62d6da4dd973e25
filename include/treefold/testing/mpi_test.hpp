#pragma once
/// treefold's MPI test kit for Boost.Test (installed; link `treefold::testing`, which also
/// provides `main`). Helpers: the world communicator, runs on sub-communicators of every
/// size, bit-exact comparison of results, and agreement of a check across ranks. What the
/// kit's main does when a rank fails is described in doc/guide.md, "Testing with MPI".

#include "treefold/config.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace treefold::testing {

/// The world communicator (valid once the kit's main has built the MPI environment).
inline const boost::mpi::communicator& world()
{
    static const boost::mpi::communicator w;
    return w;
}

/// The object representation of a trivially copyable value, for bit comparisons.
template <class T>
std::vector<unsigned char> bytes_of(const T& value)
{
    static_assert(std::is_trivially_copyable_v<T>, "bytes_of needs a trivially copyable type");
    std::vector<unsigned char> out(sizeof(T));
    std::memcpy(out.data(), &value, sizeof(T));
    return out;
}

/// The 64-bit pattern of a double (what the data sets' reference files list).
inline std::uint64_t bits_of(double v)
{
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

namespace detail {

/// The bytes of one value in hexadecimal, most significant byte first (little-endian host).
inline std::string hex_of(const unsigned char* p, std::size_t n)
{
    std::string out;
    char buf[3];
    for (std::size_t i = n; i-- > 0;) {
        std::snprintf(buf, sizeof buf, "%02X", static_cast<unsigned>(p[i]));
        out += buf;
    }
    return out;
}

/// "A vs B": the bytes of `a` and of `b` as hex_of writes them.
template <class T>
std::string hex_pair(const T& a, const T& b)
{
    return hex_of(reinterpret_cast<const unsigned char*>(&a), sizeof(T)) + " vs " +
           hex_of(reinterpret_cast<const unsigned char*>(&b), sizeof(T));
}

} // namespace detail

/// True when `a` and `b` have the same object representation; otherwise false with both bit
/// patterns in the message. Use as `BOOST_TEST(same_bits(x, y))`. Unlike `==`, it tells
/// -0.0 from 0.0 and accepts a NaN equal to itself.
template <class T>
boost::test_tools::predicate_result same_bits(const T& a, const T& b)
{
    static_assert(std::is_trivially_copyable_v<T>, "same_bits needs a trivially copyable type");
    if (std::memcmp(&a, &b, sizeof(T)) == 0) {
        return true;
    }
    boost::test_tools::predicate_result r(false);
    r.message() << "bits differ: " << detail::hex_pair(a, b);
    return r;
}

/// Element-wise same_bits of two sequences; the message names the first index that differs
/// (or the two lengths).
template <class T>
boost::test_tools::predicate_result same_bits(std::span<const T> a, std::span<const T> b)
{
    static_assert(std::is_trivially_copyable_v<T>, "same_bits needs a trivially copyable type");
    boost::test_tools::predicate_result r(false);
    if (a.size() != b.size()) {
        r.message() << "lengths differ: " << a.size() << " vs " << b.size();
        return r;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
            r.message() << "element " << i << " differs: " << detail::hex_pair(a[i], b[i]);
            return r;
        }
    }
    return true;
}

/// same_bits of two vectors (deduction does not see through std::span).
template <class T>
boost::test_tools::predicate_result same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return same_bits(std::span<const T>(a), std::span<const T>(b));
}

/// True on every rank iff `ok` is true on every rank of `comm` (collective).
inline bool all_ranks(const boost::mpi::communicator& comm, bool ok)
{
    return boost::mpi::all_reduce(comm, ok ? 1 : 0, boost::mpi::minimum<int>()) == 1;
}

/// Collective: true on every rank iff every rank of `comm` holds the bits rank 0 holds; the
/// message names the ranks that differ. Use as `BOOST_TEST(same_on_every_rank(comm, x))`.
template <class T>
boost::test_tools::predicate_result same_on_every_rank(const boost::mpi::communicator& comm, const T& value)
{
    std::vector<unsigned char> mine = bytes_of(value);
    std::vector<unsigned char> root = mine;
    boost::mpi::broadcast(comm, root, 0);
    std::vector<int> differs;
    boost::mpi::all_gather(comm, mine == root ? 0 : 1, differs);
    boost::test_tools::predicate_result r(true);
    for (std::size_t i = 0; i < differs.size(); ++i) {
        if (differs[i] != 0) {
            if (r) {
                r = false;
                r.message() << "bits differ from rank 0 (" << detail::hex_of(root.data(), root.size())
                            << ") on rank(s)";
            }
            r.message() << " " << i;
        }
    }
    return r;
}

/// Runs `body(sub)` on a sub-communicator of every size 1..world size p. Sizes k and p - k
/// run side by side on disjoint ranks (world ranks 0..k-1 and k..p-1), for k = p, p - 1, ...
/// down to p/2: about p/2 + 1 rounds instead of p, and on a node with fewer cores than ranks
/// every rank works instead of spinning in a wait. `body` must not communicate over the world.
/// It returns the bytes of its result (bytes_of); element k-1 of the returned vector is what
/// rank 0 of the size-k sub-communicator computed, the same on every world rank, so every rank
/// can check it. Collective over the world.
template <class Body>
std::vector<std::vector<unsigned char>> on_every_size(Body&& body)
{
    const auto& w = world();
    const int p = w.size();
    std::vector<std::vector<unsigned char>> results(static_cast<std::size_t>(p));
    for (int k = p; 2 * k >= p; --k) {
        const int other = p - k; // beside k when 1 <= other < k
        const bool in_k = w.rank() < k;
        const bool works = in_k || (other >= 1 && other < k);
        const boost::mpi::communicator sub = w.split(works ? (in_k ? 0 : 1) : 2);
        std::vector<unsigned char> mine;
        if (works) {
            mine = body(sub);
        }
        auto& at_k = results[static_cast<std::size_t>(k - 1)];
        if (w.rank() == 0) {
            at_k = mine;
        }
        boost::mpi::broadcast(w, at_k, 0);
        if (other >= 1 && other < k) {
            auto& at_other = results[static_cast<std::size_t>(other - 1)];
            if (w.rank() == k) {
                at_other = std::move(mine);
            }
            boost::mpi::broadcast(w, at_other, k);
        }
    }
    return results;
}

/// Index of the first result that differs from results[0], or nullopt when all are equal.
inline std::optional<std::size_t> first_mismatch(const std::vector<std::vector<unsigned char>>& r)
{
    for (std::size_t i = 1; i < r.size(); ++i) {
        if (r[i] != r[0]) {
            return i;
        }
    }
    return std::nullopt;
}

/// Checks (Boost.Test) that the results of on_every_size agree at every size, naming the first
/// size that differs from p = 1 and both bit patterns.
inline void expect_same_across_sizes(const std::vector<std::vector<unsigned char>>& results, const char* what)
{
    const auto bad = first_mismatch(results);
    BOOST_CHECK_MESSAGE(!bad, what << ": results at p = " << (bad ? *bad + 1 : 0) << " ("
                                   << (bad ? detail::hex_of(results[*bad].data(), results[*bad].size()) : "")
                                   << ") differ from p = 1 ("
                                   << (bad ? detail::hex_of(results[0].data(), results[0].size()) : "") << ")");
}

} // namespace treefold::testing
