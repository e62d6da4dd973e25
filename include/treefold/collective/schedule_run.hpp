#pragma once
/// The one executor of allreduce schedules, generic over what a partial value is.
///
/// Ranks are visited by position (rank_of[position]); a partial value always covers a
/// contiguous range of positions and is combined left to right, so the executor serves
/// non-commutative operators. A Codec supplies the partial type and how it travels:
///
///     using partial = ...;
///     static constexpr bool sized = ...;               // payload size known from the range?
///     std::size_t payload_bytes(int lo, int hi) const;  // (sized) bytes for positions [lo,hi)
///     void write(const partial&, std::vector<char>& out) const;   // append payload bytes
///     partial read(const char* data, std::size_t n, int lo, int hi) const;
///     void combine(partial& left, partial&& right);    // left := left ∘ right (may throw)
///
/// Sized payloads travel bare, into receives posted up front; a failure record (24 bytes)
/// travels in a message 24 bytes longer than the expected payload, so the success path
/// carries no header (a 4 KiB payload stays a 4 KiB message). Other payloads carry a
/// one-byte flag and are taken by probe in order. A rank that failed (or learned of a
/// failure) keeps sending failure records wherever values were expected and receives
/// everything owed to it, so no peer waits. Sends are non-blocking (a multicast of f−1
/// messages).

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
        int lo = 0, hi = 0; // the positions this rank's partial covers when it is sent
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
                st.lo = me_;
                st.hi = me_ + 1;
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
            st.lo = starts_[static_cast<std::size_t>(block + digit * stride)];
            st.hi = starts_[static_cast<std::size_t>(block + (digit + 1) * stride)];
            steps_.push_back(std::move(st));
            stride *= f;
        }
        // Unfold: the representative sends the result to the rest of its segment.
        if (seg_hi - seg_lo > 1) {
            step st;
            for (int q = seg_lo + 1; q < seg_hi; ++q) {
                st.to.push_back(q);
            }
            st.lo = 0;
            st.hi = p_;
            steps_.push_back(std::move(st));
        }
    }

    static constexpr std::size_t record_bytes = 24; // code, rank, got, want

    int rank(int position) const { return rank_of_[static_cast<std::size_t>(position)]; }

    static void write_record(char* at, const exchange::failure& f)
    {
        const std::int32_t head[2] = {static_cast<std::int32_t>(f.what), f.rank};
        std::memcpy(at, head, 8);
        std::memcpy(at + 8, &f.got, 8);
        std::memcpy(at + 16, &f.want, 8);
    }

    static exchange::failure read_record(const char* at)
    {
        std::int32_t head[2];
        std::memcpy(head, at, 8);
        exchange::failure f;
        f.what = static_cast<exchange::failure::code>(head[0]);
        f.rank = head[1];
        std::memcpy(&f.got, at + 8, 8);
        std::memcpy(&f.want, at + 16, 8);
        return f;
    }

    /// The message for `v` (or the failure) covering positions [lo, hi).
    template <class Codec>
    static void encode(const Codec& codec, const typename Codec::partial& v,
                       const std::optional<exchange::failure>& failed, int lo, int hi, std::vector<char>& out)
    {
        out.clear();
        if constexpr (Codec::sized) {
            if (failed) {
                out.resize(codec.payload_bytes(lo, hi) + record_bytes);
                write_record(out.data(), *failed);
            } else {
                codec.write(v, out);
            }
        } else {
            out.push_back(failed ? 1 : 0);
            if (failed) {
                out.resize(1 + record_bytes);
                write_record(out.data() + 1, *failed);
            } else {
                codec.write(v, out);
            }
        }
    }

    /// Splits a received message of n bytes covering [lo, hi) into its failure or payload.
    template <class Codec>
    static std::optional<exchange::failure> decode(const Codec& codec, const std::vector<char>& in, std::size_t n,
                                                   int lo, int hi, const char*& data, std::size_t& size)
    {
        if constexpr (Codec::sized) {
            const std::size_t expected = codec.payload_bytes(lo, hi);
            if (n == expected) {
                data = in.data();
                size = n;
                return std::nullopt;
            }
            if (n == expected + record_bytes) {
                return read_record(in.data());
            }
        } else {
            if (n >= 1 && in[0] == 0) {
                data = in.data() + 1;
                size = n - 1;
                return std::nullopt;
            }
            if (n == 1 + record_bytes) {
                return read_record(in.data() + 1);
            }
        }
        throw std::logic_error("treefold: schedule message of unexpected size (internal error)");
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
        encode(codec, mine, failed, st.lo, st.hi, out_);
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
        if constexpr (Codec::sized) {
            for (std::size_t i = 0; i < from.size(); ++i) {
                in_[i].resize(codec.payload_bytes(from[i].lo, from[i].hi) + record_bytes);
                recvs_.push_back(comm_.irecv(rank(from[i].position), schedule_tag, in_[i].data(),
                                             static_cast<int>(in_[i].size())));
            }
        }
        std::vector<std::size_t>& sizes = sizes_;
        sizes.assign(from.size(), 0);
        for (std::size_t i = 0; i < from.size(); ++i) {
            if constexpr (Codec::sized) {
                const boost::mpi::status got = recvs_[i].wait();
                sizes[i] = static_cast<std::size_t>(*got.template count<char>());
            } else {
                const boost::mpi::status got = comm_.probe(rank(from[i].position), schedule_tag);
                sizes[i] = static_cast<std::size_t>(*got.template count<char>());
                in_[i].resize(sizes[i]);
                comm_.recv(rank(from[i].position), schedule_tag, in_[i].data(), static_cast<int>(sizes[i]));
            }
        }
        if (!from.empty()) {
            payload_.assign(from.size(), {nullptr, 0});
            for (std::size_t i = 0; i < from.size(); ++i) {
                if (auto f = decode(codec, in_[i], sizes[i], from[i].lo, from[i].hi, payload_[i].first,
                                    payload_[i].second)) {
                    failed = failed ? failed : f;
                }
            }
            if (!failed) {
                try {
                    std::vector<typename Codec::partial> parts;
                    parts.reserve(from.size() + 1);
                    for (std::size_t i = 0; i < from.size(); ++i) {
                        if (i == self_at) {
                            parts.push_back(std::move(mine));
                        }
                        parts.push_back(codec.read(payload_[i].first, payload_[i].second, from[i].lo, from[i].hi));
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
        const char* data = nullptr;
        std::size_t size = 0;
        if (auto f = decode(codec, in_[0], n, 0, p_, data, size)) {
            failed = failed ? failed : f;
            return;
        }
        if (!failed) {
            mine = codec.read(data, size, 0, p_);
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
    std::vector<std::pair<const char*, std::size_t>> payload_;
};

} // namespace detail
} // namespace treefold::collective
