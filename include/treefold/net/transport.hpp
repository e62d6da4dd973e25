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
/// - Every tag carries the number of the call it belongs to (below): the thread's
///   current call, set by a call_scope around each reducer call. A receive discards a
///   message an earlier call left behind and throws std::logic_error on one of a later call
///   (the ranks disagree about the calls: an erroneous program), so a message is never
///   taken by another call.
/// - A rank that cannot go on still sends exactly one such framed message wherever values were
///   expected, so nobody is left waiting and no message is left for the next call.
///
/// The whole network layer of the core, in sections: the private communicators, native's
/// MPI_Op, the tree walk, the tags, the transport itself, the agreements.

#include "treefold/config.hpp"
#include "treefold/error.hpp"

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>
#include <boost/mpi/packed_iarchive.hpp>
#include <boost/mpi/packed_oarchive.hpp>
#include <boost/serialization/vector.hpp>
#include <mpi.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

// The private communicators treefold's collectives talk on, so that their messages never
// meet the caller's or another library's.
namespace treefold::net {

/// Why `comm` cannot carry a treefold call — MPI_COMM_NULL, a handle MPI rejects, an
/// intercommunicator (treefold reduces within one group), or a process the other MPI
/// implementation's launcher started that initialised MPI alone (src/net/launcher.hpp) — or
/// nullptr when it can. Every
/// entry point's one communicator check (C++: std::invalid_argument; C: MPI_ERR_COMM). Local.
const char* unusable_communicator(MPI_Comm comm);

/// The private duplicate of `comm` (errors return instead of aborting). Created on the first
/// call with `comm` (collective: every rank of comm must call) and cached on `comm` as an
/// attribute, freed when `comm` is freed; duplicates of `comm` get their own. Returns an MPI
/// error code, MPI_SUCCESS when *out is set.
int private_comm(MPI_Comm comm, MPI_Comm* out);

/// The private communicator as a Boost.MPI communicator (not owning it); throws
/// std::runtime_error if it cannot be created.
inline boost::mpi::communicator private_communicator(const boost::mpi::communicator& comm)
{
    MPI_Comm dup = MPI_COMM_NULL;
    const int rc = private_comm(static_cast<MPI_Comm>(comm), &dup);
    if (rc != MPI_SUCCESS) {
        throw std::runtime_error("treefold: could not duplicate the communicator (MPI error " +
                                 std::to_string(rc) + ")");
    }
    return boost::mpi::communicator(dup, boost::mpi::comm_attach);
}

/// A plan kept on a user's communicator by the one-call functions (type-erased).
struct cached_plan {
    virtual ~cached_plan() = default;
};

/// The slot for `key` in the plan cache attached to `comm` (an empty pointer until the caller
/// fills it). The cache is an attribute of `comm`: duplicates of `comm` start with their own,
/// and its plans are destroyed when `comm` is freed or, at the latest, when MPI_Finalize
/// starts (while MPI can still free the plans' communicators). Not collective; not
/// thread-safe for concurrent calls on the same communicator. Throws std::runtime_error if
/// MPI refuses the attribute.
std::unique_ptr<cached_plan>& cached_plan_slot(MPI_Comm comm, const std::type_info& key);

} // namespace treefold::net

// The handles that let the MPI library's own reductions run treefold's merge: a datatype of
// one record that carries the call's state as an attribute, and a user-defined
// operation (non-commutative; commutative for order-free operators). Raw MPI: Boost.MPI
// cannot attach state to an operation (its user-defined operations lose functor state, which
// treefold must not). MPI passes the
// reduction's datatype handle to the operation, so the operation finds its state there.
namespace treefold::net {

/// Throws boost::mpi::exception naming `routine` unless rc is MPI_SUCCESS.
void check_mpi(const char* routine, int rc);

/// A committed datatype of `bytes` contiguous bytes carrying `state` (freed on destruction;
/// not copyable or movable, since MPI holds its address).
class bound_datatype {
public:
    bound_datatype(std::size_t bytes, void* state);
    ~bound_datatype();
    bound_datatype(const bound_datatype&) = delete;
    bound_datatype& operator=(const bound_datatype&) = delete;

    MPI_Datatype get() const { return type_; }
    /// The state attached to `type` (nullptr if it has none).
    static void* state_of(MPI_Datatype type);

private:
    MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// A user-defined operation, non-commutative unless `commutative` (freed on destruction).
class user_op {
public:
    explicit user_op(MPI_User_function* f, bool commutative = false);
    ~user_op();
    user_op(const user_op&) = delete;
    user_op& operator=(const user_op&) = delete;

    MPI_Op get() const { return op_; }

private:
    MPI_Op op_ = MPI_OP_NULL;
};

/// One element of `type` from every rank of `comm` combined under `op` on every rank:
/// MPI_Allreduce, or MPI_Iallreduce when `request` is given (complete it with test_request
/// or wait_request). Throws boost::mpi::exception.
void reduce_one(const void* send, void* recv, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request* request = nullptr);
/// True when `request` has completed (it is then MPI_REQUEST_NULL).
bool test_request(MPI_Request& request);
/// Waits for `request`.
void wait_request(MPI_Request& request);

} // namespace treefold::net

// The two communication patterns that move a result, each written once and generic over what
// travels (a `channel`): the binomial broadcast of a result and the delivery of a result to
// another root. (The collective component's walk of a tree position: collective/detail/walk.hpp.)
//
// Failures: a rank that has failed, or learned of a failure, keeps receiving everything owed
// to it and sends a failure wherever values were expected, so no peer waits and no message is
// left behind. A rank keeps the first failure it knows of.
namespace treefold::net {

/// What a broadcast or a delivery moves: the unit receives from a rank into its storage (a
/// failure from that rank is returned) and sends its storage, or the failure, to a rank.
/// net::values_channel (transport.hpp) is the typed one; the C entry points have their own.
template <class C>
concept channel = requires(C& c, int rank, const maybe_failure& f) {
    { c.recv(rank) } -> std::same_as<maybe_failure>;
    c.send(rank, f);
};

/// Binomial broadcast from `root` over ranks 0..p-1 (rank `me` calls it). A rank that
/// already failed forwards its own failure.
template <channel C>
void broadcast(C& ch, int p, int me, int root, maybe_failure& failed)
{
    const int rel = (me - root + p) % p; // position relative to the root
    int mask = 1;
    while (mask < p) {
        if ((rel & mask) != 0) {
            const maybe_failure remote = ch.recv((rel - mask + root) % p);
            failed = failed ? failed : remote;
            break;
        }
        mask <<= 1;
    }
    // Children: positions rel + m for every power of two m below rel's lowest set bit.
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < p) {
            ch.send((rel + mask + root) % p, failed);
        }
    }
}

/// Moves the result (or a failure) from `from` to `root`; nothing when they are the same.
template <channel C>
void deliver(C& ch, int me, int from, int root, maybe_failure& failed)
{
    if (from == root) {
        return;
    }
    if (me == from) {
        ch.send(root, failed);
    } else if (me == root) {
        const maybe_failure remote = ch.recv(from);
        failed = failed ? failed : remote;
    }
}

} // namespace treefold::net

// Every tag treefold puts on a message, in one place. All of them travel on treefold's
// private communicators (above), except `ring`, which the bandwidth allreduces of
// collective/allreduce.hpp use on the caller's communicator (they have no failure path).
//
// The framing's tags carry the call they belong to: kind in the low two bits, the call's
// sequence number (modulo call_span) above, so a message one call left behind (only an
// erroneous program, such as ranks passing different roots, leaves one) is never taken by
// a later call (net/transport.hpp discards it).
namespace treefold::net::tag {

inline constexpr int values = 1;         ///< kind: a payload of values (any count, any codec)
inline constexpr int failure = 2;        ///< kind: an empty message: no values follow, a record does
inline constexpr int failure_record = 3; ///< kind: the failure record itself (right after `failure`)
inline constexpr int self_copy = 0;      ///< C entry points: a rank copying a derived datatype to itself
inline constexpr int ring = 0x5cee;      ///< ring / Rabenseifner allreduce steps

/// Call numbers a tag tells apart: the tags stay below 2^14, within MPI's guaranteed 32767.
inline constexpr std::uint32_t call_span = 4096;

/// The tag of a message of `kind` in call number `call`.
constexpr int of_call(int kind, std::uint32_t call)
{
    return static_cast<int>(call % call_span) << 2 | kind;
}

/// The kind of a framing tag.
constexpr int kind_of(int t) { return t & 3; }

/// Whether a message tagged `t` belongs to call `call` (0), an earlier call (< 0) or a later
/// one (> 0): the distance modulo call_span, half of the span each way.
constexpr int call_order(int t, std::uint32_t call)
{
    const std::uint32_t d = (static_cast<std::uint32_t>(t >> 2) - call) % call_span;
    return d == 0 ? 0 : d < call_span / 2 ? 1 : -1;
}

/// The one-sided queue carries keys, not tags: a key's low byte is a tree level, and this
/// one stands for an empty rank's report to the finisher (a message with no node).
inline constexpr unsigned queue_report_level = 254;

} // namespace treefold::net::tag

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

// Collective agreements a call makes where its exchange alone cannot tell every rank: that
// some rank failed (an operator throwing in a rank's last combine of an allreduce schedule,
// where no message follows), and the opt-in checks that the ranks made the same call.
namespace treefold::net {

/// Collective: afterwards every rank holds a failure if any rank did (a rank keeps a
/// `complete` one; the others take the failure of the lowest rank with a complete one, or
/// with any one where none is). A failure read from a fixed-size record whose text may have
/// been cut is not complete. One MPI_Allreduce of an int while nothing failed, plus a
/// broadcast of the record when something did.
void agree_on_failure(const boost::mpi::communicator& comm, maybe_failure& failed, counters& count,
                      bool complete = true);

/// What the opt-in checks compare across ranks, per call.
struct call_signature {
    std::int64_t root = -1;      ///< reduce's root; -1 for all_reduce
    std::int64_t values = 0;     ///< the size of this rank's span
    std::int64_t expected = 0;   ///< the size of this rank's block
    std::uint64_t op_identity = 0; ///< a hash of the operator's type name
    std::uint64_t element_identity = 0; ///< a hash of the element type's name and size
    bool nonblocking = false;    ///< iall_reduce / ireduce rather than all_reduce / reduce
};

/// Collective (one MPI_Allgather of 40 bytes per rank): throws the same exception on every
/// rank if the ranks' roots, call forms, element types or operator types differ
/// (call_mismatch) or any rank's size is wrong (local_size_error). Every rank decides from the
/// same gathered data, so all throw or none does.
void check_same_call(const boost::mpi::communicator& comm, const call_signature& mine, counters& count);

} // namespace treefold::net
