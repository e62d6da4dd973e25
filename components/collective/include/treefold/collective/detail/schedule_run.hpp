#pragma once
/// The collective component's executor of allreduce schedules (schedule_allreduce), generic
/// over what a partial value is. (The reducers' exchanges run on exchange/executor.hpp.)
///
/// A rank's position is its rank; a partial value always covers a contiguous range of
/// positions and is combined left to right, so the executor serves non-commutative
/// operators. A codec (concept schedule_codec) says what a partial is made of; the values
/// travel through net::codec like every other message:
///
///     using value_type = ...;                           // what travels
///     using partial = ...;
///     std::size_t count(int lo, int hi) const;          // values of the partial of [lo, hi)
///     std::span<const value_type> values(const partial&) const;
///     void assign(partial& out, std::span<value_type> values, int lo, int hi); // from received values
///     void combine(partial& left, partial&& right);     // left := left ∘ right (may throw)
///
/// Raw payloads (trivially copyable values) travel bare, into receives posted up front;
/// others are taken by probe in order. The byte buffers are kept between calls (the received
/// partials are made per call), and the requests are raw MPI requests
/// (net::posted_receive; Boost.MPI 1.74 allocates a handler per request). A failure travels
/// in the one framing of net/transport.hpp. A rank that failed (or learned of a failure) keeps sending failures
/// wherever values were expected and receives everything owed to it, so no peer waits. Sends
/// are non-blocking (a multicast of f−1 messages). The runner uses every tag of the
/// communicator it is given: give it a private one (net/transport.hpp).

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/topology/schedule.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace treefold::collective::detail {

/// The contract of a schedule runner's codec (see the file comment).
template <class C>
concept schedule_codec = requires(C& c, const C& cc, typename C::partial& part, std::span<typename C::value_type> vs) {
    { cc.count(0, 1) } -> std::convertible_to<std::size_t>;
    { cc.values(part) } -> std::convertible_to<std::span<const typename C::value_type>>;
    c.assign(part, vs, 0, 1);
    c.combine(part, std::move(part));
};

/// Executes one schedule for one rank (see the file comment). Built once, run many times.
class schedule_runner {
public:
    /// Throws std::invalid_argument (the same on every rank) if the schedule does not fit.
    schedule_runner(const boost::mpi::communicator& comm, const topology::schedule& s)
        : comm_(comm), sched_(s)
    {
        s.check(comm.size());
        steps_ = topology::rounds_of(s, comm.size(), comm.rank());
    }

    const topology::schedule& plan() const { return sched_; }

    /// Runs the schedule: on return `mine` holds the combination of all p partial values
    /// (positions 0..p-1, left to right) unless the returned failure is set. `failed` on
    /// entry marks this rank's value as unusable; `own_error` receives what combine threw here.
    template <schedule_codec Codec>
    maybe_failure run(typename Codec::partial& mine, Codec& codec, maybe_failure failed,
                               net::counters& count, std::exception_ptr& own_error)
    {
        std::vector<typename Codec::partial> received; // the partials received in a stage
        for (const step& st : steps_) {
            stage(codec, mine, failed, count, own_error, st, received);
        }
        return failed;
    }

private:
    using source = topology::round_plan::source;
    using step = topology::round_plan;

    /// Posts `bytes` bytes at `data` to `dest` with the current call's tag of `kind`.
    void isend(int dest, int kind, const char* data, std::size_t bytes)
    {
        static constexpr char none = 0; // never a null buffer
        sends_.emplace_back();
        net::check_mpi("MPI_Isend", MPI_Isend(bytes > 0 ? data : &none, static_cast<int>(bytes), MPI_BYTE, dest,
                                         net::tag_of(kind), comm_, &sends_.back()));
    }

    /// Posts `mine` (or the failure, encoded in record_) to `dest` without blocking.
    void post(int dest, const maybe_failure& failed, net::counters& count)
    {
        if (failed) {
            isend(dest, net::tag::failure, nullptr, 0);
            isend(dest, net::tag::failure_record, record_.data(), record_.size());
            count.bytes += record_.size();
        } else {
            isend(dest, net::tag::values, out_.data(), out_.size());
            count.bytes += out_.size();
        }
        ++count.messages;
    }


    /// Receives the message of `source` into in_[i] (raw payloads: completes the receive
    /// posted up front); returns the failure it carried, if any.
    template <class Codec>
    maybe_failure take(std::size_t i, int source)
    {
        if constexpr (net::codec<typename Codec::value_type>::raw) {
            return recvs_[i].wait(sizes_[i]);
        } else {
            auto failed = net::recv_message(comm_, source, in_[i]);
            sizes_[i] = in_[i].size();
            return failed;
        }
    }

    /// `out` := the partial covering [lo, hi) from the bytes in in_[i].
    template <class Codec>
    void decode(Codec& c, std::size_t i, int lo, int hi, typename Codec::partial& out)
    {
        using value_type = typename Codec::value_type;
        auto& buf = scratch<value_type>();
        buf.resize(c.count(lo, hi));
        if (net::codec<value_type>::read(comm_, in_[i].data(), sizes_[i], buf.data(), buf.size()) != buf.size()) {
            net::unexpected_size();
        }
        c.assign(out, std::span<value_type>(buf), lo, hi);
    }

    template <class V>
    static std::vector<V>& scratch()
    {
        thread_local std::vector<V> buf;
        return buf;
    }

    /// Sends `mine` to positions st.to (non-blocking) and receives the partials of st.from;
    /// when st.from is not empty, combines [from before self] mine [from after self] left to
    /// right (st.self_at is where mine sits among the values), or the received partials
    /// alone when !st.own.
    template <class Codec>
    void stage(Codec& c, typename Codec::partial& mine, maybe_failure& failed, net::counters& count,
               std::exception_ptr& own_error, const step& st, std::vector<typename Codec::partial>& parts)
    {
        using value_type = typename Codec::value_type;
        const std::vector<source>& from = st.from;
        out_.clear();
        if (!failed && !st.to.empty()) {
            const auto vs = c.values(mine);
            try {
                net::codec<value_type>::append(comm_, vs.data(), vs.size(), out_);
            } catch (...) {
                failed = net::codec_failure(comm_);
                own_error = net::codec_error();
            }
        }
        sends_.clear();
        if (failed && !st.to.empty()) {
            record_ = encode(*failed); // once: it must stay unchanged while its sends are in flight
        }
        for (const int q : st.to) {
            post(q, failed, count);
        }
        if (in_.size() < from.size()) {
            in_.resize(from.size());
        }
        sizes_.assign(from.size(), 0);
        if constexpr (net::codec<value_type>::raw) {
            recvs_.resize(std::max(recvs_.size(), from.size()));
            for (std::size_t i = 0; i < from.size(); ++i) {
                in_[i].resize(c.count(from[i].lo, from[i].hi) * sizeof(value_type) + 1); // + 1: never a null buffer
                recvs_[i].post(comm_, from[i].position, in_[i].data(), in_[i].size() - 1);
            }
        }
        for (std::size_t i = 0; i < from.size(); ++i) {
            if (auto f = take<Codec>(i, from[i].position)) {
                failed = failed ? failed : f;
            }
        }
        if (!from.empty() && !failed) {
            try {
                if (parts.size() < from.size()) {
                    parts.resize(from.size());
                }
                for (std::size_t i = 0; i < from.size(); ++i) {
                    decode(c, i, from[i].lo, from[i].hi, parts[i]);
                }
                // The pieces in combining order: the received ones with mine at self_at.
                const std::size_t pieces = from.size() + (st.own ? 1 : 0);
                auto piece = [&](std::size_t k) -> typename Codec::partial& {
                    if (!st.own || k < st.self_at) {
                        return parts[k];
                    }
                    return k == st.self_at ? mine : parts[k - 1];
                };
                for (std::size_t k = 1; k < pieces; ++k) {
                    c.combine(piece(0), std::move(piece(k)));
                }
                if (&piece(0) != &mine) {
                    std::swap(mine, piece(0)); // (a swap, not a move: both keep storage for the next call)
                }
            } catch (...) {
                own_error = std::current_exception();
                failed = failure::op_threw(comm_.rank(), own_error);
            }
        }
        net::check_mpi("MPI_Waitall", MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE));
    }

    boost::mpi::communicator comm_;
    topology::schedule sched_;
    std::vector<step> steps_;
    // Per-call buffers (capacity kept between calls).
    std::vector<char> out_;
    std::vector<std::vector<char>> in_;
    std::vector<MPI_Request> sends_;
    std::vector<net::posted_receive> recvs_;
    std::vector<std::size_t> sizes_;
    std::vector<char> record_; // the failure being sent (alive until the sends complete)
};

} // namespace treefold::collective::detail
