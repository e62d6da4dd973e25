#pragma once
/// The one transport of values between ranks, and the one framing of a failure.
///
/// - Values of a trivially copyable T travel as raw bytes; a T with its own codec
///   (has_own_codec, e.g. treefold::row) through it; any other T through Boost.Serialization
///   (a packed archive holding a count and the values). `codec<T>` is the only place that
///   turns values into bytes and back; an encoding or decoding that throws is that rank's
///   failure (codec_error), framed like any other.
/// - A failure travels as an empty message tagged tag::failure followed by the failure record
///   tagged tag::failure_record. The empty message fits any receive a peer has posted (typed
///   or raw, pre-posted or probed), so every receiver learns of the failure from the tag and
///   then takes the record. The success path carries no header.
/// - Every tag carries the number of the call it belongs to (net/tags.hpp): the thread's
///   current call, set by a call_scope around each reducer call. A receive discards a
///   message an earlier call left behind and throws std::logic_error on one of a later call
///   (the ranks disagree about the calls: an erroneous program), so a message is never
///   taken by another call.
/// - A rank that cannot go on still sends exactly one such framed message wherever values were
///   expected, so nobody is left waiting and no message is left for the next call.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/net/tags.hpp"

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>
#include <boost/mpi/packed_iarchive.hpp>
#include <boost/mpi/packed_oarchive.hpp>
#include <boost/serialization/vector.hpp>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace treefold::net {

/// What this rank sent during the last call: treefold's own point-to-point messages and
/// their payload bytes, and the MPI library's collectives it called (their messages are the
/// library's own and are not counted) with the bytes of their send buffers.
struct counters {
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    std::uint64_t collectives = 0;
    std::uint64_t collective_bytes = 0;
};

[[noreturn]] inline void unexpected_size()
{
    throw std::logic_error("treefold: message of unexpected size (internal error)");
}

/// The number of the call this thread is making (0 outside any call_scope: the C entry
/// points and typed tree reductions, which keep no call count).
inline std::uint32_t& current_call() noexcept
{
    thread_local std::uint32_t call = 0;
    return call;
}

/// What encoding or decoding a value threw on this thread in the current call (the peers got
/// a failure in its place; the reducer rethrows it on this rank), or nullptr.
inline std::exception_ptr& codec_error() noexcept
{
    thread_local std::exception_ptr error;
    return error;
}

/// Makes `call` the thread's current call, with no codec error yet, for its lifetime
/// (restoring the previous one, so a reducer called from inside another's operator is fine).
/// A call whose values never pass a codec (`encodes` false: raw values) leaves the codec
/// error alone.
class call_scope {
public:
    explicit call_scope(std::uint32_t call, bool encodes = true) noexcept : saved_(current_call()), encodes_(encodes)
    {
        current_call() = call;
        if (!encodes_) {
            return;
        }
        if (std::exception_ptr& e = codec_error()) { // (an outer call's; the common case is none)
            saved_error_ = std::move(e);
            e = nullptr;
        }
    }
    ~call_scope()
    {
        current_call() = saved_;
        if (!encodes_) {
            return;
        }
        if (std::exception_ptr& e = codec_error(); e || saved_error_) {
            e = std::move(saved_error_);
        }
    }
    call_scope(const call_scope&) = delete;
    call_scope& operator=(const call_scope&) = delete;

private:
    std::uint32_t saved_;
    bool encodes_;
    std::exception_ptr saved_error_;
};

/// The failure of a value's encoding or decoding that threw on this rank (call inside the
/// catch): kept as the call's codec_error() and returned for the peers.
failure codec_failure(const boost::mpi::communicator& comm);

/// The tag of a message of `kind` in the current call.
inline int tag_of(int kind) { return tag::of_call(kind, current_call()); }

/// Receives and drops a message of an earlier call, or throws on one of a later call; false
/// when `st` belongs to the current call.
bool skip_other_call(const boost::mpi::communicator& comm, int source, const boost::mpi::status& st);

/// Probes the next message of the current call from `source` (earlier calls' are dropped).
boost::mpi::status probe_call(const boost::mpi::communicator& comm, int source);

/// Values of type T to bytes and back. A type with an encoding of its own specializes it
/// (with the same members, raw false) and says so through treefold::has_own_codec
/// (concepts.hpp); treefold::row is one (row_reducer.hpp).
template <class T>
struct codec {
    static constexpr bool raw = std::is_trivially_copyable_v<T>;

    /// Appends the encoding of values[0, n) to `out`.
    static void append(const boost::mpi::communicator& comm, const T* values, std::size_t n, std::vector<char>& out)
    {
        if constexpr (raw) {
            const std::size_t at = out.size();
            out.resize(at + n * sizeof(T));
            if (n > 0) {
                std::memcpy(out.data() + at, static_cast<const void*>(values), n * sizeof(T));
            }
        } else {
            boost::mpi::packed_oarchive archive(comm);
            archive << static_cast<std::uint64_t>(n);
            for (std::size_t i = 0; i < n; ++i) {
                archive << values[i];
            }
            const auto* bytes = static_cast<const char*>(archive.address());
            out.insert(out.end(), bytes, bytes + archive.size());
        }
    }

    /// A raw payload of `size` bytes must hold whole values, at most `max` of them.
    static void check_raw(std::size_t size, std::size_t max)
    {
        if (size % sizeof(T) != 0 || size / sizeof(T) > max) {
            unexpected_size();
        }
    }

    /// Decodes bytes [data, data + size) into out[0, max); returns the count. A count above
    /// `max` or a ragged size is an internal error.
    static std::size_t read(const boost::mpi::communicator& comm, const char* data, std::size_t size, T* out,
                            std::size_t max)
    {
        if constexpr (raw) {
            check_raw(size, max);
            if (size > 0) {
                std::memcpy(static_cast<void*>(out), data, size);
            }
            return size / sizeof(T);
        } else {
            boost::mpi::packed_iarchive archive(comm, size);
            if (size > 0) {
                std::memcpy(archive.address(), data, size);
            }
            std::uint64_t n = 0;
            archive >> n;
            if (n > max) {
                unexpected_size();
            }
            for (std::uint64_t i = 0; i < n; ++i) {
                archive >> out[i];
            }
            return static_cast<std::size_t>(n);
        }
    }
};

/// The buffer an encoded message is staged in on its way out or in: the thread's own, kept
/// with its capacity from message to message, so the encoded paths allocate only while
/// messages grow. A nested use (a serialize() that itself sends) gets a fresh one.
class staging_buffer {
public:
    staging_buffer() : bytes_(claim()) { bytes_->clear(); }
    ~staging_buffer()
    {
        if (bytes_ == &shared()) {
            busy() = false;
        }
    }
    staging_buffer(const staging_buffer&) = delete;
    staging_buffer& operator=(const staging_buffer&) = delete;

    std::vector<char>& bytes() noexcept { return *bytes_; }

private:
    static std::vector<char>& shared() noexcept
    {
        thread_local std::vector<char> bytes;
        return bytes;
    }
    static bool& busy() noexcept
    {
        thread_local bool in_use = false;
        return in_use;
    }
    std::vector<char>* claim() noexcept
    {
        if (busy()) {
            return &own_;
        }
        busy() = true;
        return &shared();
    }

    std::vector<char> own_; // used only when nested
    std::vector<char>* bytes_;
};

/// Sends a failure to `dest` where values were expected (counted as one message).
void send_failure(const boost::mpi::communicator& comm, int dest, const failure& f, counters& count);

/// Sends values[0, n) to `dest` as one message (raw values straight from their storage). An
/// encoding that throws sends the failure instead (codec_failure).
template <class T>
void send_values(const boost::mpi::communicator& comm, int dest, const T* values, std::size_t n, counters& count)
{
    const char* bytes = reinterpret_cast<const char*>(values);
    std::size_t size = n * sizeof(T);
    std::optional<staging_buffer> encoded;
    if constexpr (!codec<T>::raw) {
        try {
            codec<T>::append(comm, values, n, encoded.emplace().bytes());
        } catch (...) {
            send_failure(comm, dest, codec_failure(comm), count);
            return;
        }
        bytes = encoded->bytes().data();
        size = encoded->bytes().size();
    }
    static constexpr char none = 0;
    comm.send(dest, tag_of(tag::values), size > 0 ? bytes : &none, static_cast<int>(size)); // never a null buffer
    ++count.messages;
    count.bytes += size;
}

/// Sends values[0, n) to `dest`, or the failure when there is one.
template <class T>
void send_values_or_failure(const boost::mpi::communicator& comm, int dest, const T* values, std::size_t n,
                            const maybe_failure& failed, counters& count)
{
    if (failed) {
        send_failure(comm, dest, *failed, count);
    } else {
        send_values(comm, dest, values, n, count);
    }
}

/// The record that follows a tag::failure message from `source` (call after receiving it).
failure take_failure_record(const boost::mpi::communicator& comm, int source);

/// Receives the next message from `source` in whole, whatever its size (taken by probe): its
/// payload bytes into `bytes`, or the failure it announces.
maybe_failure recv_message(const boost::mpi::communicator& comm, int source, std::vector<char>& bytes);

/// A receive of raw bytes posted before its message is needed (no probe on the way in): any
/// tag, so it completes for values or for the failure framing's empty message. Raw MPI:
/// Boost.MPI 1.74 allocates a handler for every request, and the reducers' per-call path
/// allocates nothing.
class posted_receive {
public:
    /// Posts the receive of at most `capacity` bytes from `source` into `buffer`.
    void post(const boost::mpi::communicator& comm, int source, char* buffer, std::size_t capacity)
    {
        comm_ = &comm;
        source_ = source;
        buffer_ = buffer;
        capacity_ = static_cast<int>(capacity);
        repost();
    }

    /// Waits for the message of the current call (an earlier call's is dropped and the receive
    /// posted again; a later call's throws std::logic_error). Returns the failure the message
    /// announced (its record taken), or nullopt with the payload's size in `bytes`.
    maybe_failure wait(std::size_t& bytes);

private:
    void repost();

    const boost::mpi::communicator* comm_ = nullptr; // outlives the receive
    int source_ = 0;
    char* buffer_ = nullptr;
    int capacity_ = 0;
    MPI_Request request_ = MPI_REQUEST_NULL;
};

/// Sends that do not block: each message's bytes are staged in a buffer of its own (kept with
/// its capacity from call to call) and stay alive until wait_all(). Raw MPI requests, as for
/// posted_receive.
class send_queue {
public:
    /// The staging buffer of message `m` (cleared), for the caller to fill.
    std::vector<char>& buffer(std::size_t m)
    {
        if (buffers_.size() <= m) {
            buffers_.resize(m + 1);
        }
        buffers_[m].clear();
        return buffers_[m];
    }

    /// Sends buffer(m) to `dest` as values (counted as one message).
    void send(const boost::mpi::communicator& comm, int dest, std::size_t m, counters& count)
    {
        post(comm, dest, tag::values, buffers_[m]);
        ++count.messages;
        count.bytes += buffers_[m].size();
    }

    /// Sends `f` to `dest` where message `m` was expected, in the failure framing.
    void send_failure(const boost::mpi::communicator& comm, int dest, std::size_t m, const failure& f,
                      counters& count);

    /// Completes every send posted since the last wait_all().
    void wait_all()
    {
        if (!requests_.empty()) {
            wait_posted();
        }
    }

private:
    void post(const boost::mpi::communicator& comm, int dest, int kind, const std::vector<char>& bytes);
    void wait_posted(); // wait_all() with sends posted

    std::vector<std::vector<char>> buffers_;
    std::vector<MPI_Request> requests_;
    std::vector<char> empty_;
};

/// Receives one message from `source`: values (stored in out[0, n), n returned, at most
/// `max`) or a failure (stored in `failed`, 0 returned).
template <class T>
std::size_t recv_values(const boost::mpi::communicator& comm, int source, T* out, std::size_t max,
                        maybe_failure& failed)
{
    if constexpr (codec<T>::raw) {
        // Straight into `out`: no staging copy on the hot path.
        const boost::mpi::status st = probe_call(comm, source);
        if (tag::kind_of(st.tag()) == tag::failure) {
            comm.recv(source, st.tag());
            failed = take_failure_record(comm, source);
            return 0;
        }
        const auto size = static_cast<std::size_t>(*st.template count<char>());
        codec<T>::check_raw(size, max);
        char none = 0;
        comm.recv(source, st.tag(), size > 0 ? reinterpret_cast<char*>(out) : &none, static_cast<int>(size));
        return size / sizeof(T);
    } else {
        staging_buffer staged;
        std::vector<char>& encoded = staged.bytes();
        failed = recv_message(comm, source, encoded);
        if (failed) {
            return 0;
        }
        try {
            return codec<T>::read(comm, encoded.data(), encoded.size(), out, max);
        } catch (...) {
            failed = codec_failure(comm);
            return 0;
        }
    }
}

/// The result from `root` to every rank through the MPI library's own broadcast (raw T
/// only): one MPI_Bcast of a 4-byte header and the value, and, when the header announces a
/// failure record of that many bytes, a second MPI_Bcast of the record. A rank keeps its own
/// failure. Counted as collectives; their bytes on the root, the only sender.
template <class T>
void mpi_broadcast(const boost::mpi::communicator& comm, T& value, int root, maybe_failure& failed,
                   counters& count)
{
    static_assert(std::is_trivially_copyable_v<T>, "treefold: MPI_Bcast carries raw values");
    if (comm.size() == 1) {
        return; // the root holds it already
    }
    const bool sender = comm.rank() == root;
    char frame[4 + sizeof(T)];
    std::vector<char> record;
    std::uint32_t announced = 0;
    if (sender) {
        if (failed) {
            record = encode(*failed);
            announced = static_cast<std::uint32_t>(record.size());
        } else {
            std::memcpy(frame + 4, static_cast<const void*>(&value), sizeof(T));
        }
        std::memcpy(frame, &announced, 4);
    }
    boost::mpi::broadcast(comm, frame, static_cast<int>(sizeof frame), root);
    std::memcpy(&announced, frame, 4);
    ++count.collectives;
    count.collective_bytes += sender ? sizeof frame : 0;
    if (announced > 0) {
        record.resize(announced);
        boost::mpi::broadcast(comm, record.data(), static_cast<int>(announced), root);
        ++count.collectives;
        count.collective_bytes += sender ? announced : 0;
        if (!failed) {
            failed = decode_failure(record.data(), record.size());
        }
    } else if (!sender) {
        std::memcpy(static_cast<void*>(&value), frame + 4, sizeof(T));
    }
}

/// n values of type T at `data` as the unit a broadcast or a tree walk moves: sends them (or
/// a failure) and receives exactly n of them (fewer is a local_size failure of the sender).
template <class T>
struct values_channel {
    const boost::mpi::communicator& comm;
    counters& count;
    T* data;
    std::size_t n;

    maybe_failure recv(int source)
    {
        maybe_failure failed;
        const std::size_t got = recv_values(comm, source, data, n, failed);
        if (!failed && got != n) {
            failed = failure::local_size(source, got, n);
        }
        return failed;
    }

    void send(int dest, const maybe_failure& failed)
    {
        send_values_or_failure(comm, dest, data, n, failed, count);
    }
};

} // namespace treefold::net
