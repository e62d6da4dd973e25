#pragma once
/// treefold's one error vocabulary: why a collective call could not complete, how that
/// travels between ranks (a record of 24 bytes, the exception's type name and its text), and the one mapping
/// from a failure to the exception every C++ entry point throws. No MPI here.

#include "treefold/config.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treefold {

/// Why a call could not complete, as it travels between ranks.
struct failure {
    /// What went wrong (the record's first field; none: no failure).
    enum class code : std::int32_t {
        none = 0,
        local_size = 1, ///< a rank passed the wrong number of values (got, want)
        op_threw = 2,   ///< the operator threw (text: its what(), truncated)
        bad_buffer = 3,  ///< C entry points: a null or aliased buffer on some rank
        out_of_order = 4, ///< an MPI library combined ranges that do not meet (got: left end, want: right start)
        codec_threw = 5,  ///< encoding or decoding a value threw (its serialize(), a pickle; text as op_threw)
        bad_root = 6      ///< a reduce root that is not a rank (got: the root, want: p)
    };
    /// The operator's message is kept up to this many bytes.
    static constexpr std::size_t text_bytes = 95;
    /// The exception's type name is kept up to this many bytes (its end: the class name
    /// matters more than the namespaces).
    static constexpr std::size_t type_bytes = 24;
    /// Bytes of the record before the type name: code, rank, got, want.
    static constexpr std::size_t head_bytes = 24;
    /// The longest record: head, the type name's length (a byte), type name, text.
    static constexpr std::size_t max_record_bytes = head_bytes + 1 + type_bytes + text_bytes;
    /// The shortest record: the head and the type name's length (no name, no text). The native
    /// exchange's fixed-size records keep this much room for a failure and cut the text and the
    /// type name to the room they have (encode's limit).
    static constexpr std::size_t min_record_bytes = head_bytes + 1;

    code what = code::none;   ///< the kind of failure
    std::int32_t rank = -1;   ///< the rank where it happened (in the call's communicator)
    std::uint64_t got = 0;    ///< local_size: the size that rank passed
    std::uint64_t want = 0;   ///< local_size: the size its block has
    std::string text;         ///< op_threw: the exception's message, truncated to text_bytes
    std::string type;         ///< op_threw: the exception's type name (demangled), truncated to type_bytes

    /// A wrong local size on `rank`.
    static failure local_size(int rank, std::uint64_t got, std::uint64_t want)
    {
        return {.what = code::local_size, .rank = rank, .got = got, .want = want, .text = {}, .type = {}};
    }

    /// Ranges that do not meet, handed to the merge on `rank`: [.., left_end) and [right_begin, ..).
    static failure out_of_order(int rank, std::uint64_t left_end, std::uint64_t right_begin)
    {
        failure f = local_size(rank, left_end, right_begin);
        f.what = code::out_of_order;
        return f;
    }

    /// The exception `e` thrown by the operator on `rank` (its text kept, truncated).
    static failure op_threw(int rank, const std::exception_ptr& e);

    /// The exception `e` thrown while encoding or decoding a value on `rank`.
    static failure codec_threw(int rank, const std::exception_ptr& e)
    {
        failure f = op_threw(rank, e);
        f.what = code::codec_threw;
        return f;
    }

    /// A reduce root outside [0, p) passed on `rank`.
    static failure bad_root(int rank, int root, int p)
    {
        return {.what = code::bad_root, .rank = rank, .got = static_cast<std::uint64_t>(static_cast<std::int64_t>(root)),
                .want = static_cast<std::uint64_t>(p), .text = {}, .type = {}};
    }

    /// The demangled type of the exception being handled (call inside a catch), truncated.
    static std::string current_type_name();

    /// The message every rank throws for this failure.
    std::string message() const;
};

/// A failure or none: the interface of std::optional<failure> that treefold uses, one pointer
/// wide. Every call carries one from rank to rank; g++ 12 fills the whole storage of a
/// std::optional<failure> (96 bytes) with zeros each time it makes one (at p = 1, N = 460 the
/// swap took a call's cost beyond its kernel from about 26 to 20 ns), while this holds a
/// pointer and allocates only when a call fails.
class maybe_failure {
public:
    /// None.
    maybe_failure() noexcept = default;
    /// None.
    maybe_failure(std::nullopt_t) noexcept {}
    /// A copy of `f`.
    maybe_failure(failure f) : f_(std::make_unique<failure>(std::move(f))) {}
    /// A copy of `other`'s failure, if any.
    maybe_failure(const maybe_failure& other) : f_(other.f_ ? std::make_unique<failure>(*other.f_) : nullptr) {}
    /// Takes `other`'s failure, if any (`other` is left with none).
    maybe_failure(maybe_failure&&) noexcept = default;
    /// Takes a copy of `other`'s failure, if any.
    maybe_failure& operator=(const maybe_failure& other)
    {
        if (this != &other) {
            f_ = other.f_ ? std::make_unique<failure>(*other.f_) : nullptr;
        }
        return *this;
    }
    /// Takes `other`'s failure, if any (`other` is left with none).
    maybe_failure& operator=(maybe_failure&&) noexcept = default;
    ~maybe_failure() = default;

    /// Whether there is a failure.
    explicit operator bool() const noexcept { return f_ != nullptr; }
    /// Whether there is a failure.
    bool has_value() const noexcept { return f_ != nullptr; }
    /// The failure (there must be one).
    failure& operator*() noexcept { return *f_; }
    /// The failure (there must be one).
    const failure& operator*() const noexcept { return *f_; }
    /// The failure's members (there must be one).
    failure* operator->() noexcept { return f_.get(); }
    /// The failure's members (there must be one).
    const failure* operator->() const noexcept { return f_.get(); }
    /// Back to none.
    void reset() noexcept { f_.reset(); }

private:
    std::unique_ptr<failure> f_;
};

/// The record as it travels: code, rank, got, want (24 bytes), the type name's length (a
/// byte), the type name, then the text; at most `limit` bytes (>= failure::min_record_bytes),
/// the text kept before the type name where both do not fit.
std::vector<char> encode(const failure& f, std::size_t limit = failure::max_record_bytes);

/// The failure from `n` bytes written by encode() (a short record is an internal error).
failure decode_failure(const char* data, std::size_t n);

/// Thrown on the ranks that learn of another rank's failure (the rank where the operator
/// threw rethrows the operator's own exception).
class remote_failure : public std::runtime_error {
public:
    /// Carries `f`; what() is f.message().
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

/// The ranks did not make the same call: a reduce root out of range (on any rank), or, under
/// the checking level, roots, calls, call forms (blocking against nonblocking), element types
/// or operators that differ between ranks. Thrown on every rank.
class call_mismatch : public std::invalid_argument {
public:
    /// What differs or is wrong (form: a blocking call on some ranks, a nonblocking one on others).
    enum class kind { root, element, op, form };
    /// What differs (`k`) and the message naming it (`what`).
    call_mismatch(kind k, const std::string& what) : std::invalid_argument(what), what_differs(k) {}
    /// What differs or is wrong.
    kind what_differs;
};

/// The opt-in checking level of a reducer (its constructor's last argument).
enum class checking {
    /// TREEFOLD_CHECK=1 in the environment (of any rank) turns the checks on, else off.
    from_environment,
    /// No per-call checks. A root, a call (all_reduce against reduce) or an operator that
    /// differs between ranks is an erroneous program, as in MPI, but costs no hang: every rank
    /// completes the call and no message of it ever reaches another call (a rank naming itself
    /// the root gets the result). An element type that differs between ranks is undefined.
    off,
    /// Every call first checks collectively (one MPI_Allgather of 40 bytes per rank) that
    /// all ranks make the same call (all_reduce, or reduce to the same root, blocking on every
    /// rank or nonblocking on every rank), with the same element type (its type name and size) and operator type and the right local sizes,
    /// and otherwise throws the same std::invalid_argument (call_mismatch, or
    /// local_size_error for a size) on every rank before any message is sent.
    on
};

/// A reduce root outside [0, p): call_mismatch naming both (where the root is known on every rank).
void check_root(int root, int p);

/// The one mapping from a failed call's errors to exceptions: this rank's own exception
/// first, then a wrong local size (local_size_error naming the rank and sizes), a root out
/// of range (call_mismatch), then any other failure (remote_failure). Returns normally when
/// the call succeeded.
[[noreturn]] void throw_failure(const maybe_failure& failed, const std::exception_ptr& own_error);

/// throw_failure() when the call failed on this rank or reached it as a failure (inline: a
/// call that succeeded pays one test).
inline void throw_if_failed(const maybe_failure& failed, const std::exception_ptr& own_error)
{
    if (own_error || failed) {
        throw_failure(failed, own_error);
    }
}

} // namespace treefold
