#pragma once
/// Distributed sum of outer products: every rank ends with G = Σ a_k b_kᵀ (n x m, row-major)
/// over all vector pairs (a_k, b_k) held by all ranks.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace treefold::dsop {

/// How G is computed.
enum class algorithm {
    allgather,               ///< gather all pairs, every rank sums all outer products
    allreduce,               ///< local outer products, MPI_Allreduce (library) of the n x m matrices
    allreduce_ring,          ///< local outer products, collective::ring_allreduce
    butterfly,               ///< local outer products, recursive-doubling allreduce of whole matrices
    generalized_rabenseifner, ///< gather all pairs, each rank computes a block of rows, allgatherv
    // The document's overlapped variants (its §5.4): arithmetic while messages are in flight.
    allgather_async,          ///< allgather by nonblocking direct sends; each pair summed (rank order) once it is here
    bruck_async,              ///< allgather by nonblocking Bruck rounds; each pair summed (rank order) once it is here
    allreduce_ring_pipelined, ///< allreduce_ring in pieces: a piece is added while the next is in flight
    butterfly_pipelined,      ///< butterfly in pieces: a piece is added while the next is in flight
    generalized_rabenseifner_pipelined ///< generalized_rabenseifner whose rows take each pair as it arrives
};

/// The order of the sum over pairs.
enum class summation {
    fast,        ///< whatever order the algorithm has (rank order for the gather-based ones)
    reproducible ///< the fixed tree over the global pair index: the same bits for every p
};

/// Name of an algorithm: the enumerator's name (allgather, …, generalized_rabenseifner_pipelined).
const char* name(algorithm a);
/// Parses a name; throws std::invalid_argument otherwise.
algorithm parse_algorithm(const char* text);
/// Whether every pair reaches the ranks that sum it (then summation::reproducible is offered).
bool sees_every_pair(algorithm a);

/// G = Σ over every pair of every rank of a_k b_kᵀ, on every rank.
///
/// This rank holds k pairs: `a` is k x n and `b` is k x m, row-major (k = a.size() / n, the
/// same for b); k may differ between ranks and be 0. The pairs of all ranks form one global
/// sequence in rank order. `g` (n x m) receives the result on every rank.
///
/// summation::reproducible sums every entry of G along the fixed tree over the global pair
/// index, so G has the same bits for every p and every split of the pairs; it is available for
/// the algorithms that see every pair (allgather, generalized_rabenseifner, allgather_async,
/// bruck_async, generalized_rabenseifner_pipelined) and throws std::invalid_argument for the
/// allreduce ones and the butterflies. The tree of a row needs every pair, so the overlapped
/// ones wait for all pairs in that mode (no overlap). With no pairs at all G is zero.
///
/// summation::fast: the gather-based algorithms add the pairs left to right in rank order
/// (the async and pipelined ones give the bits of allgather and generalized_rabenseifner);
/// the pipelined allreduces give the bits of their unpipelined forms; every rank holds the
/// same bits in every algorithm.
///
/// Collective. Checks (every rank throws the same std::invalid_argument, nobody waits): n and
/// m equal on all ranks and positive, a.size() and b.size() multiples of n and m holding the
/// same k, g.size() == n * m on every rank.
template <class T>
void sum_outer_products(comm_view comm, std::span<const T> a, std::span<const T> b,
                        std::size_t n, std::size_t m, std::span<T> g, algorithm alg,
                        summation order = summation::fast);

/// sum_outer_products for float, compiled into the library (the only instantiations).
extern template void sum_outer_products<float>(comm_view, std::span<const float>,
                                               std::span<const float>, std::size_t, std::size_t, std::span<float>,
                                               algorithm, summation);
/// sum_outer_products for double, compiled into the library (the only instantiations).
extern template void sum_outer_products<double>(comm_view, std::span<const double>,
                                                std::span<const double>, std::size_t, std::size_t, std::span<double>,
                                                algorithm, summation);

} // namespace treefold::dsop
