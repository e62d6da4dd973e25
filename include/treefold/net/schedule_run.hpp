#pragma once
/// The one executor of allreduce schedules, generic over what a partial value is.
///
/// Ranks are visited by position (rank_of[position]); a partial value always covers a
/// contiguous range of positions and is combined left to right, so the executor serves
/// non-commutative operators. A codec (concept schedule_codec) says what a partial is made
/// of; the values travel through net::codec like every other message:
///
///     using value_type = ...;                           // what travels
///     using partial = ...;
///     std::size_t count(int lo, int hi) const;          // values of the partial of [lo, hi)
///     std::span<const value_type> values(const partial&) const;
///     partial make(std::span<value_type> values, int lo, int hi); // from received values
///     void combine(partial& left, partial&& right);     // left := left ∘ right (may throw)
///
/// Raw payloads (trivially copyable values) travel bare, into receives posted up front;
/// others are taken by probe in order. A failure travels in the one framing of
/// net/transport.hpp. A rank that failed (or learned of a failure) keeps sending failures
/// wherever values were expected and receives everything owed to it, so no peer waits. Sends
/// are non-blocking (a multicast of f−1 messages). The runner uses every tag of the
/// communicator it is given: give it a private one (net/comm.hpp).

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/topology/schedule.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>
#include <boost/mpi/status.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <exception>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace treefold::net {

/// The contract of a schedule runner's codec (see the file comment).
template <class C>
concept schedule_codec = requires(C& c, const C& cc, typename C::partial& part, std::span<typename C::value_type> vs) {
    { cc.count(0, 1) } -> std::convertible_to<std::size_t>;
    { cc.values(part) } -> std::convertible_to<std::span<const typename C::value_type>>;
    { c.make(vs, 0, 1) } -> std::same_as<typename C::partial>;
    c.combine(part, std::move(part));
};

/// Executes one schedule for one rank (see the file comment). Built once, run many times.
class schedule_runner {
public:
    /// `rank_of[position]` is the rank at each position (empty: position = rank).
    /// Throws std::invalid_argument (the same on every rank) if the schedule does not fit.
    schedule_runner(const boost::mpi::communicator& comm, const topology::schedule& s, std::vector<int> rank_of = {})
        : comm_(comm), sched_(s), p_(comm.size()), rank_of_(std::move(rank_of))
    {
        s.check(p_);
        if (rank_of_.empty()) {
            rank_of_.resize(static_cast<std::size_t>(p_));
            std::iota(rank_of_.begin(), rank_of_.end(), 0);
        }
        if (static_cast<int>(rank_of_.size()) != p_) {
            throw std::invalid_argument("treefold: schedule runner needs one position per rank");
        }
        for (int i = 0; i < p_; ++i) {
            if (rank_of_[static_cast<std::size_t>(i)] == comm.rank()) {
                me_ = i;
            }
        }
        steps_ = topology::rounds_of(s, p_, me_);
    }

    const topology::schedule& plan() const { return sched_; }
    int position() const { return me_; }

    /// Runs the schedule: on return `mine` holds the combination of all p partial values
    /// (positions 0..p-1, left to right) unless the returned failure is set. `failed` on
    /// entry marks this rank's value as unusable; `own_error` receives what combine threw here.
    template <schedule_codec Codec>
    std::optional<failure> run(typename Codec::partial& mine, Codec& codec, std::optional<failure> failed,
                               counters& count, std::exception_ptr& own_error)
    {
        for (const step& st : steps_) {
            stage(codec, mine, failed, count, own_error, st);
        }
        return failed;
    }

private:
    using source = topology::round_plan::source;
    using step = topology::round_plan;

    int rank(int position) const { return rank_of_[static_cast<std::size_t>(position)]; }

    /// Posts `mine` (or the failure) to `dest` without blocking.
    void post(int dest, const std::optional<failure>& failed, counters& count)
    {
        static constexpr char none = 0; // never a null buffer
        if (failed) {
            record_ = encode(*failed);
            sends_.push_back(comm_.isend(dest, tag_of(tag::failure), &none, 0));
            sends_.push_back(comm_.isend(dest, tag_of(tag::failure_record), record_.data(), static_cast<int>(record_.size())));
            count.bytes += record_.size();
        } else {
            sends_.push_back(comm_.isend(dest, tag_of(tag::values), out_.empty() ? &none : out_.data(),
                                         static_cast<int>(out_.size())));
            count.bytes += out_.size();
        }
        ++count.messages;
    }

    /// Posts the receive of in_[i] from `source` (any tag: values or a failure).
    boost::mpi::request post_recv(std::size_t i, int source)
    {
        return comm_.irecv(source, boost::mpi::any_tag, in_[i].data(), static_cast<int>(in_[i].size() - 1));
    }

    /// Receives the message of `source` into in_[i] (raw payloads: completes the receive
    /// posted up front); returns the failure it carried, if any.
    template <class Codec>
    std::optional<failure> take(std::size_t i, int source)
    {
        if constexpr (codec<typename Codec::value_type>::raw) {
            boost::mpi::status st = recvs_[i].wait();
            while (tag::call_order(st.tag(), current_call()) != 0) {
                // An earlier call's message took the posted receive: post it again (a later
                // call's throws: the ranks disagree about the calls).
                if (tag::call_order(st.tag(), current_call()) > 0) {
                    throw std::logic_error("treefold: a message of a later call arrived: the ranks disagree about the calls");
                }
                recvs_[i] = post_recv(i, source);
                st = recvs_[i].wait();
            }
            if (tag::kind_of(st.tag()) == tag::failure) {
                return take_failure_record(comm_, source);
            }
            sizes_[i] = static_cast<std::size_t>(*st.template count<char>());
            return std::nullopt;
        } else {
            auto failed = recv_message(comm_, source, in_[i]);
            sizes_[i] = in_[i].size();
            return failed;
        }
    }

    /// The partial covering [lo, hi) from the bytes in in_[i].
    template <class Codec>
    typename Codec::partial decode(Codec& c, std::size_t i, int lo, int hi)
    {
        using value_type = typename Codec::value_type;
        auto& buf = scratch<value_type>();
        buf.resize(c.count(lo, hi));
        if (codec<value_type>::read(comm_, in_[i].data(), sizes_[i], buf.data(), buf.size()) != buf.size()) {
            unexpected_size();
        }
        return c.make(std::span<value_type>(buf), lo, hi);
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
    void stage(Codec& c, typename Codec::partial& mine, std::optional<failure>& failed, counters& count,
               std::exception_ptr& own_error, const step& st)
    {
        using value_type = typename Codec::value_type;
        const std::vector<source>& from = st.from;
        out_.clear();
        if (!failed && !st.to.empty()) {
            const auto vs = c.values(mine);
            codec<value_type>::append(comm_, vs.data(), vs.size(), out_);
        }
        sends_.clear();
        for (const int q : st.to) {
            post(rank(q), failed, count);
        }
        if (in_.size() < from.size()) {
            in_.resize(from.size());
        }
        sizes_.assign(from.size(), 0);
        recvs_.clear();
        if constexpr (codec<value_type>::raw) {
            for (std::size_t i = 0; i < from.size(); ++i) {
                in_[i].resize(c.count(from[i].lo, from[i].hi) * sizeof(value_type) + 1); // + 1: never a null buffer
                recvs_.push_back(post_recv(i, rank(from[i].position)));
            }
        }
        for (std::size_t i = 0; i < from.size(); ++i) {
            if (auto f = take<Codec>(i, rank(from[i].position))) {
                failed = failed ? failed : f;
            }
        }
        if (!from.empty() && !failed) {
            try {
                std::vector<typename Codec::partial> parts;
                parts.reserve(from.size() + 1);
                for (std::size_t i = 0; i < from.size(); ++i) {
                    parts.push_back(decode(c, i, from[i].lo, from[i].hi));
                }
                if (st.own) {
                    parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(st.self_at), std::move(mine));
                }
                for (std::size_t i = 1; i < parts.size(); ++i) {
                    c.combine(parts[0], std::move(parts[i]));
                }
                mine = std::move(parts[0]);
            } catch (...) {
                own_error = std::current_exception();
                failed = failure::op_threw(comm_.rank(), own_error);
            }
        }
        boost::mpi::wait_all(sends_.begin(), sends_.end());
    }

    boost::mpi::communicator comm_;
    topology::schedule sched_;
    int p_;
    std::vector<int> rank_of_;
    int me_ = 0;
    std::vector<step> steps_;
    // Per-call buffers (capacity kept between calls).
    std::vector<char> out_;
    std::vector<std::vector<char>> in_;
    std::vector<boost::mpi::request> sends_;
    std::vector<boost::mpi::request> recvs_;
    std::vector<std::size_t> sizes_;
    std::vector<char> record_; // the failure being sent (alive until the sends complete)
};

} // namespace treefold::net
