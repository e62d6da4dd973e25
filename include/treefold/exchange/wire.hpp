#pragma once
/// How values travel between ranks, and how a failure on one rank reaches all the others.
///
/// Trivially copyable types go as raw bytes; any other type through Boost.Serialization
/// (packed archives). A message carries either values (tag_values) or a failure record
/// (tag_failure), so a rank that cannot go on still sends exactly one message where values
/// were expected and nobody is left waiting.

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/packed_iarchive.hpp>
#include <boost/mpi/packed_oarchive.hpp>
#include <boost/serialization/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace treefold::exchange {

/// Messages and bytes this rank sent during the last call.
struct counters {
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
};

/// Why a call could not complete, as it travels between ranks.
struct failure {
    enum class code : std::int32_t { none = 0, local_size = 1, op_threw = 2 };
    code what = code::none;
    std::int32_t rank = -1;   ///< the rank where it happened (in the reducer's communicator)
    std::uint64_t got = 0;    ///< local_size: the size that rank passed
    std::uint64_t want = 0;   ///< local_size: the size its block has

    /// The message every rank throws for this failure.
    std::string message() const
    {
        if (what == code::local_size) {
            return "treefold: rank " + std::to_string(rank) + " passed " + std::to_string(got) +
                   " local values but its block holds " + std::to_string(want);
        }
        return "treefold: the reduction operator threw on rank " + std::to_string(rank);
    }
};

/// Thrown on the other ranks when the operator threw on one rank (that rank rethrows the
/// operator's own exception).
class remote_failure : public std::runtime_error {
public:
    explicit remote_failure(const failure& f) : std::runtime_error(f.message()), info(f) {}
    failure info;
};

inline constexpr int tag_values = 1;
inline constexpr int tag_failure = 2;

/// The transport of values of type T.
template <class T>
class wire {
public:
    static constexpr bool raw = std::is_trivially_copyable_v<T>;

    /// Sends n values to `dest` as one message.
    static void send(const boost::mpi::communicator& comm, int dest, const T* values, std::size_t n,
                     counters& count)
    {
        if constexpr (raw) {
            const auto bytes = n * sizeof(T);
            comm.send(dest, tag_values, reinterpret_cast<const char*>(values), static_cast<int>(bytes));
            count.bytes += bytes;
        } else {
            boost::mpi::packed_oarchive archive(comm);
            const std::uint64_t count_n = n;
            archive << count_n;
            for (std::size_t i = 0; i < n; ++i) {
                archive << values[i];
            }
            comm.send(dest, tag_values, archive);
            count.bytes += archive.size();
        }
        ++count.messages;
    }

    /// Sends a failure record to `dest` instead of values.
    static void send_failure(const boost::mpi::communicator& comm, int dest, const failure& f,
                             counters& count)
    {
        comm.send(dest, tag_failure, reinterpret_cast<const char*>(&f), static_cast<int>(sizeof f));
        ++count.messages;
        count.bytes += sizeof f;
    }

    /// Receives one message from `source`: values (stored in out[0..n), n returned, at most
    /// `max`) or a failure (returned in `failed`, 0 values).
    static std::size_t recv(const boost::mpi::communicator& comm, int source, T* out, std::size_t max,
                            std::optional<failure>& failed)
    {
        const boost::mpi::status st = comm.probe(source, boost::mpi::any_tag);
        if (st.tag() == tag_failure) {
            failure f;
            comm.recv(source, tag_failure, reinterpret_cast<char*>(&f), static_cast<int>(sizeof f));
            failed = f;
            return 0;
        }
        if constexpr (raw) {
            const auto bytes = static_cast<std::size_t>(*st.template count<char>());
            if (bytes % sizeof(T) != 0 || bytes / sizeof(T) > max) {
                throw std::logic_error("treefold: message of unexpected size (internal error)");
            }
            comm.recv(source, tag_values, reinterpret_cast<char*>(out), static_cast<int>(bytes));
            return bytes / sizeof(T);
        } else {
            boost::mpi::packed_iarchive archive(comm);
            comm.recv(source, tag_values, archive);
            std::uint64_t n = 0;
            archive >> n;
            if (n > max) {
                throw std::logic_error("treefold: message of unexpected size (internal error)");
            }
            for (std::uint64_t i = 0; i < n; ++i) {
                archive >> out[i];
            }
            return static_cast<std::size_t>(n);
        }
    }
};

/// A call's outcome on one rank: a value, a failure, or (on most ranks mid-way) neither.
template <class T>
struct outcome {
    std::optional<T> value;
    std::optional<failure> failed;
};

/// Turns a finished call's errors into exceptions: this rank's own exception first, then a
/// wrong local size (std::invalid_argument naming the rank and sizes), then any other rank's
/// failure (remote_failure). Returns normally when the call succeeded.
template <class T>
void throw_if_failed(const outcome<T>& out, const std::exception_ptr& own_error)
{
    if (own_error) {
        std::rethrow_exception(own_error);
    }
    if (out.failed) {
        if (out.failed->what == failure::code::local_size) {
            throw std::invalid_argument(out.failed->message());
        }
        throw remote_failure(*out.failed);
    }
}

/// Binomial broadcast of an outcome from `root` (which holds a value or a failure) to every
/// rank of `comm`; messages are counted.
template <class T>
void broadcast_outcome(const boost::mpi::communicator& comm, int root, outcome<T>& out, counters& count)
{
    const int p = comm.size();
    const int me = (comm.rank() - root + p) % p; // position relative to the root
    int mask = 1;
    while (mask < p) {
        if ((me & mask) != 0) {
            const int parent = (me - mask + root) % p;
            std::optional<failure> failed;
            T v{};
            if (wire<T>::recv(comm, parent, &v, 1, failed) == 1) {
                out.value = std::move(v);
            }
            out.failed = failed;
            break;
        }
        mask <<= 1;
    }
    // Children: positions me + m for every power of two m below my lowest set bit.
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (me + mask < p) {
            const int child = (me + mask + root) % p;
            if (out.failed) {
                wire<T>::send_failure(comm, child, *out.failed, count);
            } else {
                wire<T>::send(comm, child, &*out.value, 1, count);
            }
        }
    }
}

} // namespace treefold::exchange
