#pragma once
/// treefold's one error vocabulary: why a collective call could not complete, how that
/// travels between ranks (a record of 24 bytes and the operator's text), and the one mapping
/// from a failure to the exception every C++ entry point throws. No MPI here.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace treefold {

/// Why a call could not complete, as it travels between ranks.
struct failure {
    enum class code : std::int32_t {
        none = 0,
        local_size = 1, ///< a rank passed the wrong number of values (got, want)
        op_threw = 2,   ///< the operator threw (text: its what(), truncated)
        bad_buffer = 3,  ///< C entry points: a null or aliased buffer on some rank
        out_of_order = 4 ///< an MPI library combined ranges that do not meet (got: left end, want: right start)
    };
    /// The operator's message is kept up to this many bytes.
    static constexpr std::size_t text_bytes = 95;
    /// Bytes of the record before the text: code, rank, got, want.
    static constexpr std::size_t head_bytes = 24;

    code what = code::none;
    std::int32_t rank = -1;   ///< the rank where it happened (in the call's communicator)
    std::uint64_t got = 0;    ///< local_size: the size that rank passed
    std::uint64_t want = 0;   ///< local_size: the size its block has
    std::string text;         ///< op_threw: the exception's message, truncated to text_bytes

    /// A wrong local size on `rank`.
    static failure local_size(int rank, std::uint64_t got, std::uint64_t want)
    {
        return {.what = code::local_size, .rank = rank, .got = got, .want = want, .text = {}};
    }

    /// Ranges that do not meet, handed to the merge on `rank`: [.., left_end) and [right_begin, ..).
    static failure out_of_order(int rank, std::uint64_t left_end, std::uint64_t right_begin)
    {
        failure f = local_size(rank, left_end, right_begin);
        f.what = code::out_of_order;
        return f;
    }

    /// The exception `e` thrown by the operator on `rank` (its text kept, truncated).
    static failure op_threw(int rank, const std::exception_ptr& e)
    {
        failure f{.what = code::op_threw, .rank = rank, .got = 0, .want = 0, .text = {}};
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& ex) {
            f.text.assign(ex.what(), std::min(std::strlen(ex.what()), text_bytes));
        } catch (...) {
        }
        return f;
    }

    /// The message every rank throws for this failure.
    std::string message() const
    {
        switch (what) {
        case code::local_size:
            return "treefold: rank " + std::to_string(rank) + " passed " + std::to_string(got) +
                   " local values but its block holds " + std::to_string(want);
        case code::bad_buffer:
            return "treefold: rank " + std::to_string(rank) + " passed an invalid buffer";
        case code::out_of_order:
            return "treefold: the MPI library combined non-adjacent ranges on rank " + std::to_string(rank) +
                   " (one ending at index " + std::to_string(got) + ", the next starting at " + std::to_string(want) +
                   "): it broke rank order, no result";
        default: {
            std::string m = "treefold: the reduction operator threw on rank " + std::to_string(rank);
            if (!text.empty()) {
                m += ": " + text;
            }
            return m;
        }
        }
    }
};

/// The record as it travels: code, rank, got, want (24 bytes), then the text.
inline std::vector<char> encode(const failure& f)
{
    std::vector<char> out(failure::head_bytes + f.text.size());
    const std::int32_t head[2] = {static_cast<std::int32_t>(f.what), f.rank};
    std::memcpy(out.data(), head, 8);
    std::memcpy(out.data() + 8, &f.got, 8);
    std::memcpy(out.data() + 16, &f.want, 8);
    std::memcpy(out.data() + failure::head_bytes, f.text.data(), f.text.size());
    return out;
}

/// The failure from `n` bytes written by encode() (a short record is an internal error).
inline failure decode_failure(const char* data, std::size_t n)
{
    if (n < failure::head_bytes) {
        throw std::logic_error("treefold: failure record of unexpected size (internal error)");
    }
    failure f;
    std::int32_t head[2];
    std::memcpy(head, data, 8);
    f.what = static_cast<failure::code>(head[0]);
    f.rank = head[1];
    std::memcpy(&f.got, data + 8, 8);
    std::memcpy(&f.want, data + 16, 8);
    f.text.assign(data + failure::head_bytes, std::min(n - failure::head_bytes, failure::text_bytes));
    return f;
}

/// Thrown on the ranks that learn of another rank's failure (the rank where the operator
/// threw rethrows the operator's own exception).
class remote_failure : public std::runtime_error {
public:
    explicit remote_failure(const failure& f) : std::runtime_error(f.message()), info(f) {}
    /// The record as it arrived: code, originating rank, sizes, the operator's text.
    failure info;
};

/// A rank passed a span whose size is not its block's count: thrown on every rank (a
/// std::invalid_argument naming the rank and both sizes).
class local_size_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// A reduce root outside [0, p): std::invalid_argument naming both (every C++ rooted call).
inline void check_root(int root, int p)
{
    if (root < 0 || root >= p) {
        throw std::invalid_argument("treefold: reduce root " + std::to_string(root) +
                                    " is not a rank of a communicator of size " + std::to_string(p));
    }
}

/// The one mapping from a finished call's errors to exceptions: this rank's own exception
/// first, then a wrong local size (local_size_error naming the rank and sizes), then any
/// other failure (remote_failure). Returns normally when the call succeeded.
inline void throw_if_failed(const std::optional<failure>& failed, const std::exception_ptr& own_error)
{
    if (own_error) {
        std::rethrow_exception(own_error);
    }
    if (failed) {
        if (failed->what == failure::code::local_size) {
            throw local_size_error(failed->message());
        }
        throw remote_failure(*failed);
    }
}

} // namespace treefold
