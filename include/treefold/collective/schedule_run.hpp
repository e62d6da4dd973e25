#pragma once
/// The one executor of allreduce schedules, generic over what a partial value is.
///
/// Ranks are visited by position (rank_of[position]); a partial value always covers a
/// contiguous range of positions and is combined left to right, so the executor serves
/// non-commutative operators. A Codec supplies the partial type and how it travels:
///
///     using partial = ...;
///     std::size_t fixed_bytes(int lo, int hi) const;   // payload size for positions [lo,hi),
///                                                      // or 0 when only a probe can tell
///     void write(const partial&, std::vector<char>& out) const;   // append payload bytes
///     partial read(const char* data, std::size_t n, int lo, int hi) const;
///     void combine(partial& left, partial&& right);    // left := left ∘ right (may throw)
///
/// Every message is an 8-byte header (failure code and rank) followed by the payload or,
/// for a failure, the failure's two counts; a rank that failed (or learned of a failure)
/// keeps sending failure records wherever values were expected and receives everything
/// owed to it, so no peer waits. Sends are non-blocking (a multicast of f−1 messages);
/// receives are posted up front when the payload size is known and taken by probe in
/// order otherwise.

#include "treefold/collective/schedule.hpp"
#include "treefold/exchange/wire.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>
#include <boost/mpi/status.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace treefold::collective {

/// The tag every schedule message carries (reserved on communicators a schedule runs on).
inline constexpr int schedule_tag = 0x5ced;

namespace detail {

/// Executes one schedule for one rank (see the file comment). Built once, run many times.
class schedule_runner {
public:
    /// `rank_of[position]` is the rank at each position (empty: position = rank).
    /// Throws std::invalid_argument (the same on every rank) if the schedule does not fit.
    schedule_runner(const boost::mpi::communicator& comm, const schedule& s, std::vector<int> rank_of = {})
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
        starts_ = s.segment_starts(p_);
        segment_ = static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), me_) - starts_.begin()) - 1;
        plan_steps();
    }

    const schedule& plan() const { return sched_; }
    int position() const { return me_; }

    /// Runs the schedule: on return `mine` holds the combination of all p partial values
    /// (positions 0..p-1, left to right) unless the returned failure is set. `failed` on
    /// entry marks this rank's value as unusable; `own_error` receives what combine threw here.
    template <class Codec>
    std::optional<exchange::failure> run(typename Codec::partial& mine, Codec& codec,
                                         std::optional<exchange::failure> failed, exchange::counters& count,
                                         std::exception_ptr& own_error)
    {
        for (const step& st : steps_) {
            stage(codec, mine, failed, count, own_error, st);
        }
        if (result_from_ >= 0) {
            receive_result(codec, mine, failed, result_from_);
        }
        return failed;
    }

private:
    struct source {
        int position; // who sends
        int lo, hi;   // the positions its partial covers
    };
    /// One round for this rank: send to `to`, receive `from`, combine with mine at `self_at`.
    struct step {
        std::vector<int> to;
        std::vector<source> from;
        std::size_t self_at = 0;
    };

    /// This rank's rounds: fold, factor stages (representatives only), unfold.
    void plan_steps()
    {
        const int seg_lo = starts_[static_cast<std::size_t>(segment_)];
        const int seg_hi = starts_[static_cast<std::size_t>(segment_) + 1];
        // Fold: members send to their representative, which combines the segment.
        if (seg_hi - seg_lo > 1) {
            step st;
            if (me_ != seg_lo) {
                st.to.push_back(seg_lo);
            } else {
                for (int q = seg_lo + 1; q < seg_hi; ++q) {
                    st.from.push_back({q, q, q + 1});
                }
            }
            steps_.push_back(std::move(st));
        }
        if (me_ != seg_lo) {
            result_from_ = seg_lo; // unfold: the result comes from the representative
            return;
        }
        // Factor stages among representatives (active index = segment).
        const int a = segment_;
        int stride = 1;
        for (const int f : sched_.factors()) {
            const int digit = (a / stride) % f;
            const int base = a - digit * stride;
            const int block = (a / (stride * f)) * (stride * f); // first active index of the group's range
            step st;
            for (int t = 1; t < f; ++t) { // rotated order spreads arrivals over the peers
                st.to.push_back(starts_[static_cast<std::size_t>(base + ((digit + t) % f) * stride)]);
            }
            for (int j = 0; j < f; ++j) {
                if (j != digit) {
                    const int lo = block + j * stride;
                    st.from.push_back({starts_[static_cast<std::size_t>(base + j * stride)],
                                       starts_[static_cast<std::size_t>(lo)],
                                       starts_[static_cast<std::size_t>(lo + stride)]});
                }
            }
            st.self_at = static_cast<std::size_t>(digit);
            steps_.push_back(std::move(st));
            stride *= f;
        }
        // Unfold: the representative sends the result to the rest of its segment.
        if (seg_hi - seg_lo > 1) {
            step st;
            for (int q = seg_lo + 1; q < seg_hi; ++q) {
                st.to.push_back(q);
            }
            steps_.push_back(std::move(st));
        }
    }

    static constexpr std::size_t header_bytes = 8;
    static constexpr std::size_t failure_bytes = header_bytes + 16;

    int rank(int position) const { return rank_of_[static_cast<std::size_t>(position)]; }

    template <class Codec>
    void encode(const Codec& codec, const typename Codec::partial& v, const std::optional<exchange::failure>& failed,
                std::vector<char>& out) const
    {
        out.assign(header_bytes, 0);
        std::int32_t head[2] = {0, -1};
        if (failed) {
            head[0] = static_cast<std::int32_t>(failed->what);
            head[1] = failed->rank;
            std::memcpy(out.data(), head, header_bytes);
            out.resize(failure_bytes);
            std::memcpy(out.data() + header_bytes, &failed->got, 8);
            std::memcpy(out.data() + header_bytes + 8, &failed->want, 8);
            return;
        }
        std::memcpy(out.data(), head, header_bytes);
        codec.write(v, out);
    }

    /// The failure a message carries, if any.
    static std::optional<exchange::failure> decode_failure(const std::vector<char>& in, std::size_t n)
    {
        if (n < header_bytes) {
            throw std::logic_error("treefold: schedule message without header (internal error)");
        }
        std::int32_t head[2];
        std::memcpy(head, in.data(), header_bytes);
        if (head[0] == 0) {
            return std::nullopt;
        }
        exchange::failure f;
        f.what = static_cast<exchange::failure::code>(head[0]);
        f.rank = head[1];
        if (n >= failure_bytes) {
            std::memcpy(&f.got, in.data() + header_bytes, 8);
            std::memcpy(&f.want, in.data() + header_bytes + 8, 8);
        }
        return f;
    }

    /// Sends `mine` to positions st.to (non-blocking) and receives the partials of st.from;
    /// when st.from is not empty, combines [from before self] mine [from after self] left to
    /// right (st.self_at is where mine sits among the values).
    template <class Codec>
    void stage(Codec& codec, typename Codec::partial& mine, std::optional<exchange::failure>& failed,
               exchange::counters& count, std::exception_ptr& own_error, const step& st)
    {
        const std::vector<int>& to = st.to;
        const std::vector<source>& from = st.from;
        const std::size_t self_at = st.self_at;
        encode(codec, mine, failed, out_);
        sends_.clear();
        for (const int q : to) {
            sends_.push_back(comm_.isend(rank(q), schedule_tag, out_.data(), static_cast<int>(out_.size())));
            ++count.messages;
            count.bytes += out_.size();
        }
        if (in_.size() < from.size()) {
            in_.resize(from.size());
        }
        recvs_.clear();
        bool posted = true;
        for (std::size_t i = 0; i < from.size(); ++i) {
            const std::size_t fixed = codec.fixed_bytes(from[i].lo, from[i].hi);
            if (fixed == 0) {
                posted = false;
                break;
            }
            in_[i].resize(std::max(header_bytes + fixed, failure_bytes));
            recvs_.push_back(comm_.irecv(rank(from[i].position), schedule_tag, in_[i].data(),
                                         static_cast<int>(in_[i].size())));
        }
        std::vector<std::size_t>& sizes = sizes_;
        sizes.assign(from.size(), 0);
        for (std::size_t i = 0; i < from.size(); ++i) {
            if (posted) {
                const boost::mpi::status st = recvs_[i].wait();
                sizes[i] = static_cast<std::size_t>(*st.template count<char>());
            } else {
                const boost::mpi::status st = comm_.probe(rank(from[i].position), schedule_tag);
                sizes[i] = static_cast<std::size_t>(*st.template count<char>());
                in_[i].resize(sizes[i]);
                comm_.recv(rank(from[i].position), schedule_tag, in_[i].data(), static_cast<int>(sizes[i]));
            }
        }
        if (!from.empty()) {
            std::vector<typename Codec::partial> parts;
            parts.reserve(from.size() + 1);
            for (std::size_t i = 0; i < from.size(); ++i) {
                if (auto f = decode_failure(in_[i], sizes[i])) {
                    failed = failed ? failed : f;
                }
            }
            if (!failed) {
                try {
                    for (std::size_t i = 0; i < from.size(); ++i) {
                        if (i == self_at) {
                            parts.push_back(std::move(mine));
                        }
                        parts.push_back(codec.read(in_[i].data() + header_bytes, sizes[i] - header_bytes, from[i].lo,
                                                   from[i].hi));
                    }
                    if (self_at == from.size()) {
                        parts.push_back(std::move(mine));
                    }
                    typename Codec::partial acc = std::move(parts[0]);
                    for (std::size_t i = 1; i < parts.size(); ++i) {
                        codec.combine(acc, std::move(parts[i]));
                    }
                    mine = std::move(acc);
                } catch (...) {
                    own_error = std::current_exception();
                    failed = exchange::failure{exchange::failure::code::op_threw, comm_.rank(), 0, 0};
                }
            }
        }
        boost::mpi::wait_all(sends_.begin(), sends_.end());
    }

    template <class Codec>
    void receive_result(Codec& codec, typename Codec::partial& mine, std::optional<exchange::failure>& failed,
                        int from)
    {
        const boost::mpi::status st = comm_.probe(rank(from), schedule_tag);
        const auto n = static_cast<std::size_t>(*st.template count<char>());
        if (in_.empty()) {
            in_.resize(1);
        }
        in_[0].resize(n);
        comm_.recv(rank(from), schedule_tag, in_[0].data(), static_cast<int>(n));
        if (auto f = decode_failure(in_[0], n)) {
            failed = failed ? failed : f;
            return;
        }
        if (!failed) {
            mine = codec.read(in_[0].data() + header_bytes, n - header_bytes, 0, p_);
        }
    }

    boost::mpi::communicator comm_;
    schedule sched_;
    int p_;
    std::vector<int> rank_of_;
    int me_ = 0;
    std::vector<int> starts_; // segment starts by active index, plus p
    int segment_ = 0;
    std::vector<step> steps_;
    int result_from_ = -1; // position the result comes from (segment members), else -1
    // Per-call buffers (capacity kept between calls).
    std::vector<char> out_;
    std::vector<std::vector<char>> in_;
    std::vector<boost::mpi::request> sends_;
    std::vector<boost::mpi::request> recvs_;
    std::vector<std::size_t> sizes_;
};

} // namespace detail
} // namespace treefold::collective
