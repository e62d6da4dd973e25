#pragma once
/// Allreduce over a Boost.MPI communicator.
///
/// - schedule_allreduce: any valid schedule (recursive doubling, recursive multiplying,
///   collapse/merge folds), any element type (trivially copyable types as raw bytes, others
///   through Boost.Serialization) and any callable associative operator, commutative or not:
///   every rank returns the p values combined in rank order, with the same bits everywhere.
/// - ring_allreduce, rabenseifner_allreduce and butterfly_allreduce (and the pipelined forms of
///   ring and butterfly, which add one segment while the next is in flight): long vectors of trivially copyable values with
///   an element-wise commutative operator (reduce-scatter + allgather). Each element is
///   combined by exactly one rank and then copied, so all ranks hold identical bits; the
///   order in which the ranks' values are combined depends on p (use the schedules when it
///   must not).

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/error.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/collective/detail/schedule_run.hpp"
#include "treefold/collective/detail/transfers.hpp"
#include "treefold/topology/schedule.hpp"

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <exception>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace treefold::collective {

namespace detail {

/// Schedule codec (detail/schedule_run.hpp) of one value per partial.
template <class T, class Op>
struct value_codec {
    using value_type = T;
    using partial = T;
    Op* op;

    std::size_t count(int /*lo*/, int /*hi*/) const { return 1; }
    std::span<const T> values(const T& v) const { return {&v, 1}; }
    void assign(T& out, std::span<T> vs, int /*lo*/, int /*hi*/) { out = std::move(vs[0]); }
    void combine(T& left, T&& right) { left = (*op)(std::as_const(left), std::as_const(right)); }
};

/// Schedule codec of n values per partial, combined element by element.
template <class T, class Op>
struct elements_codec {
    using value_type = T;
    using partial = std::vector<T>;
    Op* op;
    std::size_t n;

    std::size_t count(int /*lo*/, int /*hi*/) const { return n; }
    std::span<const T> values(const partial& v) const { return v; }
    void assign(partial& out, std::span<T> vs, int /*lo*/, int /*hi*/) { out.assign(vs.begin(), vs.end()); }
    void combine(partial& left, partial&& right)
    {
        for (std::size_t i = 0; i < n; ++i) {
            left[i] = (*op)(std::as_const(left[i]), std::as_const(right[i]));
        }
    }
};

} // namespace detail

/// A schedule planned once for a communicator and run by many allreduce calls (the free
/// functions below plan on every call). Construction checks the schedule (every rank throws
/// the same std::invalid_argument if it does not fit comm.size()). Collective the first time
/// treefold meets `comm` (it duplicates it once, net/transport.hpp); no message is sent after that.
class schedule_allreducer {
public:
    /// Plans `s` for this rank of `comm`.
    schedule_allreducer(comm_view comm, const topology::schedule& s)
        : runner_(net::private_communicator(comm), s)
    {
    }

    /// The schedule this allreducer runs.
    const topology::schedule& plan() const { return runner_.plan(); }

    /// See schedule_allreduce (one value per rank).
    template <class T, class Op>
    T operator()(const T& value, Op op, net::counters* count = nullptr)
    {
        static_assert(std::is_invocable_r_v<T, Op&, const T&, const T&>,
                      "treefold: the operator must be callable as T op(const T& left, const T& right)");
        detail::value_codec<T, Op> codec{&op};
        T mine = value;
        run(mine, codec, count);
        return mine;
    }

    /// See schedule_allreduce_elements (element-wise, in place).
    template <class T, class Op>
    void elements(std::span<T> data, Op op, net::counters* count = nullptr)
    {
        static_assert(std::is_trivially_copyable_v<T>,
                      "treefold: element-wise schedules need trivially copyable values");
        detail::elements_codec<T, Op> codec{&op, data.size()};
        std::vector<T> mine(data.begin(), data.end());
        run(mine, codec, count);
        std::copy(mine.begin(), mine.end(), data.begin());
    }

private:
    template <class Codec>
    void run(typename Codec::partial& mine, Codec& codec, net::counters* count)
    {
        net::counters local;
        std::exception_ptr own;
        const auto failed = runner_.run(mine, codec, std::nullopt, count ? *count : local, own);
        throw_if_failed(failed, own);
    }

    detail::schedule_runner runner_;
};

/// Allreduce of one value per rank along schedule `s`: every rank returns
/// op(...op(op(v_0, v_1), v_2)..., v_{p-1}) grouped as the schedule dictates, which for an
/// associative operator is the rank-order product, bit-identical on every rank.
///
/// Collective; `s` must be the same on every rank. Throws std::invalid_argument on every rank
/// (before any message) if `s` does not fit comm.size(). If the operator throws on a rank,
/// the schedule still completes (failures travel in place of values): that rank rethrows
/// the operator's exception and every rank whose result depends on the failed step throws
/// remote_failure. Messages travel on the private duplicate of `comm` (net/transport.hpp; made
/// collectively on the first treefold call with `comm`).
template <class T, class Op>
T schedule_allreduce(comm_view comm, const topology::schedule& s, const T& value, Op op,
                     net::counters* count = nullptr)
{
    schedule_allreducer run(comm, s);
    return run(value, std::move(op), count);
}

/// Element-wise allreduce of `data` (in place) along schedule `s`: element i ends as the
/// rank-order combination of every rank's element i, bit-identical on every rank, for any
/// associative operator (commutative or not). `data.size()` must be the same on every rank
/// (not checked: a mismatch is an MPI truncation error). Errors as in schedule_allreduce.
template <class T, class Op>
void schedule_allreduce_elements(comm_view comm, const topology::schedule& s, std::span<T> data, Op op,
                                 net::counters* count = nullptr)
{
    schedule_allreducer run(comm, s);
    run.elements(data, std::move(op), count);
}

namespace detail {

/// Start of ring chunk i of n values over p ranks: n / p each, the remainder one extra on the
/// lowest chunks (layout::even_lower's split).
inline std::size_t chunk_start(std::size_t n, int p, int i)
{
    const auto ui = static_cast<std::size_t>(i);
    return ui * (n / static_cast<std::size_t>(p)) + std::min(ui, n % static_cast<std::size_t>(p));
}

/// [begin, end) of ring chunk i taken modulo p (negative i included): the chunk a ring step
/// at offset i from this rank sends or receives.
inline std::pair<std::size_t, std::size_t> ring_chunk(std::size_t n, int p, int i)
{
    i = ((i % p) + p) % p;
    return {chunk_start(n, p, i), chunk_start(n, p, i + 1)};
}

/// The frame of the bandwidth allreduces: trivially copyable values only, and nothing to do
/// on one rank; otherwise `body(counters, p, me, n)`.
template <class T, class Body>
void bandwidth_allreduce(const boost::mpi::communicator& comm, std::span<T> data, net::counters* count, Body body)
{
    static_assert(std::is_trivially_copyable_v<T>,
                  "treefold: ring and Rabenseifner allreduces need trivially copyable values");
    net::counters local;
    if (comm.size() > 1) {
        body(count ? *count : local, comm.size(), comm.rank(), data.size());
    }
}

/// data[i] = op(incoming[i - b], data[i]) for i in [b, e), or op(data[i], incoming[i - b])
/// when this rank's values are the left operands.
template <class T, class Op>
void combine_range(std::span<T> data, std::size_t b, std::size_t e, const T* incoming, Op& op, bool mine_left)
{
    for (std::size_t i = b; i < e; ++i) {
        data[i] = mine_left ? op(std::as_const(data[i]), std::as_const(incoming[i - b]))
                            : op(std::as_const(incoming[i - b]), std::as_const(data[i]));
    }
}

/// For p = q + r with q = 2^floor(log2 p): the first 2r ranks pair up, each even one handing
/// its vector to its odd neighbour, which combines it (rabenseifner and butterfly). Returns
/// this rank's index among the q participants, -1 for the even ranks of the pairs.
template <class Comm, class T, class Op>
int fold_extra_ranks(const Comm& comm, std::span<T> data, std::vector<T>& incoming, Op& op, net::counters& c, int me,
                     int r)
{
    const bool paired = me < 2 * r;
    const bool odd = me % 2 == 1;
    if (paired) {
        // A negative rank skips that side of the step.
        detail::ring_step(comm, odd ? -1 : me + 1, data.data(), data.size(), odd ? me - 1 : -1, incoming.data(),
                       data.size(), c);
        if (odd) {
            combine_range(data, 0, data.size(), incoming.data(), op, false);
        }
    }
    return !paired ? me - r : odd ? me / 2 : -1;
}

/// The world rank of participant w of fold_extra_ranks.
inline int participant_rank(int w, int r) { return w < r ? 2 * w + 1 : w + r; }

/// Undoes fold_extra_ranks: the odd ranks of the first 2r hand the result back.
template <class Comm, class T>
void unfold_extra_ranks(const Comm& comm, std::span<T> data, net::counters& c, int me, int r)
{
    if (me < 2 * r) {
        const bool odd = me % 2 == 1;
        detail::ring_step(comm, odd ? me - 1 : -1, data.data(), data.size(), odd ? -1 : me + 1, data.data(), data.size(),
                       c);
    }
}

} // namespace detail

/// Ring allreduce (p−1 reduce-scatter steps, p−1 allgather steps) of `data`, in place, with
/// an element-wise commutative and associative operator. `data.size()` must be the same on
/// every rank (not checked: a mismatch is an MPI truncation error).
template <class T, class Op>
void ring_allreduce(comm_view comm, std::span<T> data, Op op,
                    net::counters* count = nullptr)
{
    detail::bandwidth_allreduce(comm, data, count, [&](net::counters& c, int p, int me, std::size_t n) {
        const int right = (me + 1) % p;
        const int left = (me + p - 1) % p;
        std::vector<T> incoming(n / static_cast<std::size_t>(p) + 1);
        auto chunk = [&](int i) { return detail::ring_chunk(n, p, i); };
        // Reduce-scatter: after step s, chunk (me - s - 1) holds s + 2 ranks' values here.
        for (int s = 0; s < p - 1; ++s) {
            const auto [sb, se] = chunk(me - s);
            const auto [rb, re] = chunk(me - s - 1);
            detail::ring_step(comm, right, data.data() + sb, se - sb, left, incoming.data(), re - rb, c);
            detail::combine_range(data, rb, re, incoming.data(), op, false);
        }
        // Allgather: chunk (me + 1) is complete here; pass complete chunks to the right.
        for (int s = 0; s < p - 1; ++s) {
            const auto [sb, se] = chunk(me + 1 - s);
            const auto [rb, re] = chunk(me - s);
            detail::ring_step(comm, right, data.data() + sb, se - sb, left, data.data() + rb, re - rb, c);
        }
    });
}

/// Rabenseifner allreduce (recursive-halving reduce-scatter + recursive-doubling allgather;
/// for p not a power of two the first 2r ranks pair up first), in place, with an element-wise
/// commutative and associative operator. `data.size()` must be the same on every rank.
template <class T, class Op>
void rabenseifner_allreduce(comm_view comm, std::span<T> data, Op op,
                            net::counters* count = nullptr)
{
    detail::bandwidth_allreduce(comm, data, count, [&](net::counters& c, int p, int me, std::size_t n) {
        const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
        const int r = p - q;
        std::vector<T> incoming(n);
        const int v = detail::fold_extra_ranks(comm, data, incoming, op, c, me, r);
        auto real = [&](int w) { return detail::participant_rank(w, r); };
        if (v >= 0) {
            // Recursive halving: keep the half on my side of the partner, send the other.
            std::size_t lo = 0;
            std::size_t hi = n;
            std::vector<std::pair<std::size_t, std::size_t>> kept; // segment before each halving
            for (int d = q / 2; d >= 1; d /= 2) {
                const int partner = real(v ^ d);
                const std::size_t mid = lo + (hi - lo) / 2;
                kept.push_back({lo, hi});
                const bool lower = (v & d) == 0;
                const std::size_t kb = lower ? lo : mid;
                const std::size_t ke = lower ? mid : hi;
                const std::size_t sb = lower ? mid : lo;
                const std::size_t se = lower ? hi : mid;
                detail::ring_step(comm, partner, data.data() + sb, se - sb, partner, incoming.data(), ke - kb, c);
                detail::combine_range(data, kb, ke, incoming.data(), op, lower);
                lo = kb;
                hi = ke;
            }
            // Recursive doubling allgather: undo the halvings in reverse order.
            for (int d = 1, k = static_cast<int>(kept.size()) - 1; d < q; d *= 2, --k) {
                const int partner = real(v ^ d);
                const auto [plo, phi] = kept[static_cast<std::size_t>(k)];
                const bool lower = (v & d) == 0;
                const std::size_t mid = plo + (phi - plo) / 2;
                const std::size_t rb = lower ? mid : plo;
                const std::size_t re = lower ? phi : mid;
                detail::ring_step(comm, partner, data.data() + lo, hi - lo, partner, data.data() + rb, re - rb, c);
                lo = plo;
                hi = phi;
            }
        }
        detail::unfold_extra_ranks(comm, data, c, me, r);
    });
}

/// Butterfly allreduce (recursive doubling of whole vectors: log2 q exchange-and-combine
/// rounds among q = 2^floor(log2 p) ranks; for p not a power of two the first 2r ranks pair up
/// first, as in rabenseifner_allreduce), in place, with an element-wise commutative and
/// associative operator. Partners combine the same two operands (in swapped order), so a
/// commutative operator leaves every rank with the same bits. Moves the whole vector every
/// round: log2 q · n values per rank against about 2n for ring and Rabenseifner.
template <class T, class Op>
void butterfly_allreduce(comm_view comm, std::span<T> data, Op op, net::counters* count = nullptr)
{
    detail::bandwidth_allreduce(comm, data, count, [&](net::counters& c, int p, int me, std::size_t n) {
        const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
        const int r = p - q;
        std::vector<T> incoming(n);
        const int v = detail::fold_extra_ranks(comm, data, incoming, op, c, me, r);
        if (v >= 0) {
            for (int d = 1; d < q; d *= 2) {
                const int partner = detail::participant_rank(v ^ d, r);
                detail::ring_step(comm, partner, data.data(), n, partner, incoming.data(), n, c);
                detail::combine_range(data, 0, n, incoming.data(), op, (v & d) == 0);
            }
        }
        detail::unfold_extra_ranks(comm, data, c, me, r);
    });
}

/// Elements per message of the pipelined allreduces unless the caller says otherwise: 2^15
/// (256 KiB of doubles), a quarter of Open MPI's 1 MB ring segment, so that a matrix of
/// N = M = 1000 still crosses a two-rank ring in 16 pieces.
inline constexpr std::size_t pipeline_segment = std::size_t{1} << 15;

namespace detail {

/// [b, e) cut into pieces of at most `segment` elements: `body(piece_begin, piece_end)` for
/// each, in order. Sender and receiver cut the same range the same way.
template <class Body>
void for_segments(std::size_t b, std::size_t e, std::size_t segment, Body&& body)
{
    for (std::size_t s = b; s < e; s += segment) {
        body(s, std::min(e, s + segment));
    }
}

inline void check_segment(std::size_t segment)
{
    if (segment == 0) {
        throw std::invalid_argument("treefold: the pipeline segment must hold at least one element");
    }
}

} // namespace detail

/// ring_allreduce with every chunk sent as pieces of `segment` elements, and each piece
/// passed on as soon as it is added: while piece j is being added, piece j + 1 is in flight,
/// and the next step starts before this one has ended. The same chunks, the same operands in
/// the same order: the result has exactly ring_allreduce's bits. Throws std::invalid_argument
/// (before any message) when `segment` is 0.
template <class T, class Op>
void pipelined_ring_allreduce(comm_view comm, std::span<T> data, Op op, std::size_t segment = pipeline_segment,
                              net::counters* count = nullptr)
{
    detail::check_segment(segment);
    detail::bandwidth_allreduce(comm, data, count, [&](net::counters& c, int p, int me, std::size_t n) {
        const int right = (me + 1) % p;
        const int left = (me + p - 1) % p;
        std::vector<T> incoming(n / static_cast<std::size_t>(p) + 1);
        auto chunk = [&](int i) { return detail::ring_chunk(n, p, i); };
        detail::transfers t(comm);
        // sent[s]: the transfers that read chunk (me - s), which the allgather later overwrites.
        std::vector<std::pair<std::size_t, std::size_t>> sent;
        auto send_chunk_piece = [&](std::size_t sb, std::size_t se) { t.send(right, data.data() + sb, se - sb, c); };
        {
            const auto [sb, se] = chunk(me);
            const std::size_t first = t.started();
            detail::for_segments(sb, se, segment, send_chunk_piece);
            sent.emplace_back(first, t.started());
        }
        // Reduce-scatter: at step s chunk (me - s - 1) arrives piece by piece; each piece is
        // added and sent on at once (it is the next step's send, or, after the last step, the
        // allgather's first).
        for (int s = 0; s < p - 1; ++s) {
            // Not a structured binding: clang 14 cannot capture one in the lambdas below.
            const auto received = chunk(me - s - 1);
            const std::size_t rb = received.first;
            const std::size_t re = received.second;
            const std::size_t first_recv = t.started();
            detail::for_segments(rb, re, segment,
                                 [&](std::size_t b, std::size_t e) { t.recv(left, incoming.data() + (b - rb), e - b); });
            std::size_t i = first_recv;
            const std::size_t first_send = t.started();
            detail::for_segments(rb, re, segment, [&](std::size_t b, std::size_t e) {
                t.wait(i++);
                detail::combine_range(data, b, e, incoming.data() + (b - rb), op, false);
                send_chunk_piece(b, e);
            });
            sent.emplace_back(first_send, t.started());
        }
        // Allgather: chunk (me - s) arrives straight into place and each piece moves on.
        for (int s = 0; s < p - 1; ++s) {
            const auto [rb, re] = chunk(me - s);
            t.wait_range(sent[static_cast<std::size_t>(s)].first, sent[static_cast<std::size_t>(s)].second);
            const std::size_t first_recv = t.started();
            detail::for_segments(rb, re, segment,
                                 [&](std::size_t b, std::size_t e) { t.recv(left, data.data() + b, e - b); });
            std::size_t i = first_recv;
            detail::for_segments(rb, re, segment, [&](std::size_t b, std::size_t e) {
                t.wait(i++);
                if (s < p - 2) {
                    send_chunk_piece(b, e);
                }
            });
        }
        t.wait_all();
    });
}

/// butterfly_allreduce with the whole vector sent as pieces of `segment` elements: each piece
/// is combined as it arrives and sent at once to the next round's partner, so the additions
/// of one piece overlap the transfer of the next and the rounds overlap each other. The same
/// operands in the same order as butterfly_allreduce: exactly its bits. Throws
/// std::invalid_argument (before any message) when `segment` is 0.
template <class T, class Op>
void pipelined_butterfly_allreduce(comm_view comm, std::span<T> data, Op op, std::size_t segment = pipeline_segment,
                                   net::counters* count = nullptr)
{
    detail::check_segment(segment);
    detail::bandwidth_allreduce(comm, data, count, [&](net::counters& c, int p, int me, std::size_t n) {
        const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
        const int r = p - q;
        std::vector<T> incoming(n);
        const int v = detail::fold_extra_ranks(comm, data, incoming, op, c, me, r);
        if (v >= 0 && q > 1) {
            detail::transfers t(comm);
            auto partner = [&](int d) { return detail::participant_rank(v ^ d, r); };
            std::vector<std::size_t> sends; // this round's send of each piece
            detail::for_segments(0, n, segment, [&](std::size_t b, std::size_t e) {
                sends.push_back(t.send(partner(1), data.data() + b, e - b, c));
            });
            for (int d = 1; d < q; d *= 2) {
                const std::size_t first_recv = t.started();
                detail::for_segments(0, n, segment,
                                     [&](std::size_t b, std::size_t e) { t.recv(partner(d), incoming.data() + b, e - b); });
                std::size_t j = 0;
                detail::for_segments(0, n, segment, [&](std::size_t b, std::size_t e) {
                    t.wait(first_recv + j);
                    t.wait(sends[j]); // the piece is about to change
                    detail::combine_range(data, b, e, incoming.data() + b, op, (v & d) == 0);
                    if (2 * d < q) {
                        sends[j] = t.send(partner(2 * d), data.data() + b, e - b, c);
                    }
                    ++j;
                });
            }
            t.wait_all();
        }
        detail::unfold_extra_ranks(comm, data, c, me, r);
    });
}

} // namespace treefold::collective
