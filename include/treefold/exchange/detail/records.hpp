#pragma once
/// The native exchange's records: the frontier record below, and the order-free record of its
/// commutative path (after it).
///
/// A frontier as one fixed-size record of bytes, and the exact merge of two records: the unit
/// the native exchange hands to the MPI library's own reductions as a user-defined operation.
///
/// The nodes of the frontier of [begin, end) follow from the range alone (index_tree/node.hpp),
/// so a record carries the range and the values only: a 24-byte head (begin, end, state) and
/// room for the most values a merged range's frontier can have, and at least for a failure's
/// head (failure::min_record_bytes): the message stays as small as the merge allows, and a
/// failure's text is cut to the room there is (the native exchange's blocking calls
/// complete it from the rank where it happened).
/// An empty range is the merge's identity. Records are read and written with memcpy because
/// an MPI library may hand the operation buffers at any alignment.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/frontier.hpp"
#include "treefold/index_tree/node.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

// Trivially copyable values at any address of a byte buffer (the records MPI hands an
// operation need not be aligned for T): read and written with memcpy.
namespace treefold::detail {

/// The T stored at `at`.
template <class T>
T load_raw(const void* at)
{
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(static_cast<void*>(&value), at, sizeof(T));
    return value;
}

/// Stores `value` at `at`.
template <class T>
void store_raw(void* at, const T& value)
{
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(at, static_cast<const void*>(&value), sizeof(T));
}

/// What a finished record carries after its head of `head_bytes`: the failure of
/// `failure_bytes` bytes when `failed`, else the value (stored in `value`).
template <class T>
maybe_failure read_payload(const void* record, std::size_t head_bytes, bool failed, std::size_t failure_bytes,
                           T& value)
{
    const char* payload = static_cast<const char*>(record) + head_bytes;
    if (failed) {
        return decode_failure(payload, failure_bytes);
    }
    value = load_raw<T>(payload);
    return std::nullopt;
}

/// The failure a record's merge writes when the operator threw on `rank` (call inside the
/// catch); the first such exception of the call is kept in `own_error`.
inline failure merge_threw(int rank, std::exception_ptr& own_error)
{
    if (!own_error) {
        own_error = std::current_exception();
    }
    return failure::op_threw(rank, std::current_exception());
}

} // namespace treefold::detail

namespace treefold {

/// The record format for frontiers of T in a tree of n elements (T trivially copyable).
template <class T>
class frontier_record {
    static_assert(std::is_trivially_copyable_v<T>, "treefold: frontier records hold raw values");

public:
    /// Bytes before the values: begin, end (8 bytes each), state and failure length (4 each).
    static constexpr std::size_t head_bytes = 24;

    /// Records for a tree of n elements with room for `capacity` values (0: for any range's
    /// frontier, 2 ceil(log2 N); less when the caller knows which ranges can be merged).
    explicit frontier_record(index_tree::index_t n, std::size_t capacity = 0)
        : n_(n), capacity_(capacity > 0 ? capacity : std::max<std::size_t>(1, 2 * std::size_t{index_tree::root_level(n)})),
          bytes_(head_bytes + std::max(capacity_ * sizeof(T), failure::min_record_bytes)),
          scratch_(n)
    {
    }

    /// Size of one record: what the message size of the MPI reduction is.
    std::size_t bytes() const { return bytes_; }
    /// Values a record has room for (by default 2 ceil(log2 N), the most nodes a frontier can have).
    std::size_t capacity() const { return capacity_; }

    /// Writes the frontier of [s, e): `values` holds one value per maximal node, in index order.
    void write(void* record, index_tree::index_t s, index_tree::index_t e, const T* values) const
    {
        const std::size_t count = index_tree::maximal_node_count(s, e, n_);
        if (count > capacity_) {
            throw std::logic_error("treefold: frontier larger than its record (internal error)");
        }
        detail::store_raw(record, head{s, e, ok, 0});
        if (count > 0) {
            std::memcpy(static_cast<char*>(record) + head_bytes, static_cast<const void*>(values), count * sizeof(T));
        }
    }

    /// Writes a failure in place of values (its text cut to the record's room).
    void write_failure(void* record, const failure& f) const
    {
        const std::vector<char> bytes = encode(f, bytes_ - head_bytes);
        detail::store_raw(record, head{0, 0, failed, static_cast<std::uint32_t>(bytes.size())});
        std::memcpy(static_cast<char*>(record) + head_bytes, bytes.data(), bytes.size());
    }

    /// Replaces `right` by the merge of `left` (lower indices) and `right`, as an MPI
    /// reduction's inoutvec = invec op inoutvec. A failure in either operand is kept (the
    /// left one first). Operands whose ranges do not meet become an out_of_order failure
    /// rather than wrong bits; an exception from `op` becomes an op_threw failure of `rank`,
    /// the exception itself kept in `own_error` (the first one, if several).
    template <class Op>
    void merge(const void* left, void* right, Op& op, int rank, std::exception_ptr& own_error)
    {
        const head l = detail::load_raw<head>(left);
        const head r = detail::load_raw<head>(right);
        if (l.state == failed) {
            std::memcpy(right, left, head_bytes + l.failure_bytes);
            return;
        }
        if (r.state == failed || l.begin == l.end) {
            return;
        }
        if (r.begin == r.end) {
            std::memcpy(right, left, head_bytes + values_bytes(l));
            return;
        }
        if (l.end != r.begin) {
            write_failure(right, failure::out_of_order(rank, l.end, r.begin));
            return;
        }
        try {
            scratch_.reset(n_);
            push_all(left, l, op);
            push_all(right, r, op);
            const auto values = scratch_.values();
            detail::store_raw(right, head{l.begin, r.end, ok, 0});
            std::memcpy(static_cast<char*>(right) + head_bytes, static_cast<const void*>(values.data()),
                        values.size() * sizeof(T));
        } catch (...) {
            write_failure(right, detail::merge_threw(rank, own_error));
        }
    }

    /// A finished record: the root's value (the frontier of [0, N) is the root alone) or the
    /// failure it carries.
    maybe_failure read_result(const void* record, T& value) const
    {
        const head h = detail::load_raw<head>(record);
        if (h.state != failed && (h.begin != 0 || h.end != n_ || n_ == 0)) {
            throw std::logic_error("treefold: a reduction finished without the whole range (internal error)");
        }
        return detail::read_payload(record, head_bytes, h.state == failed, h.failure_bytes, value);
    }

private:
    static constexpr std::uint32_t ok = 0;
    static constexpr std::uint32_t failed = 1;

    struct head {
        std::uint64_t begin;
        std::uint64_t end;
        std::uint32_t state;
        std::uint32_t failure_bytes;
    };
    static_assert(sizeof(head) == head_bytes);

    std::size_t values_bytes(const head& h) const { return index_tree::maximal_node_count(h.begin, h.end, n_) * sizeof(T); }

    template <class Op>
    void push_all(const void* record, const head& h, Op& op)
    {
        const char* at = static_cast<const char*>(record) + head_bytes;
        index_tree::for_each_maximal_node(h.begin, h.end, n_, [&](index_tree::node v) {
            scratch_.push(v, detail::load_raw<T>(at), op);
            at += sizeof(T);
        });
    }

    index_tree::index_t n_;
    std::size_t capacity_;
    std::size_t bytes_;
    frontier<T> scratch_; // the merge's working frontier (capacity kept)
};

} // namespace treefold

// The record of the native exchange's commutative path: one value of an order-free operator
// (exactly associative and commutative in its bits, such as ops::binned_plus), or a failure.
//
// An order-free sum needs no ranges and no frontier: each rank folds its own nodes into one
// value, and any two values merge in either order with the same bits, so the MPI library may
// run its commutative allreduce algorithms. The record is an 8-byte head (state, and the
// failing rank) and room for the value or an encoded failure (its text cut to that room).
// Two failures keep the one of the lower rank, so the merge stays commutative on failures
// too. Read and written with memcpy: MPI may hand the operation buffers at any alignment.
namespace treefold {

/// Whether `Op` declares itself order-free (`static constexpr bool order_free = true;`):
/// op(a, b) has the bits of op(b, a), and every bracketing of a sequence the same bits.
template <class Op>
inline constexpr bool order_free_op = requires { requires Op::order_free; };

/// The record format of the commutative path for values of T (trivially copyable).
template <class T>
class order_free_record {
    static_assert(std::is_trivially_copyable_v<T>, "treefold: order-free records hold raw values");

public:
    /// Bytes before the value: state, failure length (2 each) and the failing rank (4).
    static constexpr std::size_t head_bytes = 8;
    /// Size of one record: the MPI reduction's message size.
    static constexpr std::size_t bytes = head_bytes + std::max(sizeof(T), failure::min_record_bytes);

    /// A rank's own value.
    static void write(void* record, const T& value)
    {
        detail::store_raw(record, head{ok, 0, -1});
        detail::store_raw(static_cast<char*>(record) + head_bytes, value);
    }
    /// A rank without values: the merge's identity.
    static void write_empty(void* record) { detail::store_raw(record, head{empty, 0, -1}); }
    /// A failure in place of the value.
    static void write_failure(void* record, const failure& f)
    {
        const std::vector<char> encoded = encode(f, bytes - head_bytes);
        detail::store_raw(record, head{failed, static_cast<std::uint16_t>(encoded.size()), f.rank});
        std::memcpy(static_cast<char*>(record) + head_bytes, encoded.data(), encoded.size());
    }

    /// inout = in merged with inout, in either order (an MPI reduction's inoutvec). A throw
    /// from `op` becomes an op_threw failure of `rank`, the exception kept in `own_error`.
    template <class Op>
    static void merge(const void* in, void* inout, Op& op, int rank, std::exception_ptr& own_error)
    {
        const head a = detail::load_raw<head>(in);
        const head b = detail::load_raw<head>(inout);
        if (a.state == empty || (b.state == failed && (a.state != failed || b.rank <= a.rank))) {
            return;
        }
        if (b.state == empty || a.state == failed) {
            std::memcpy(inout, in, bytes);
            return;
        }
        try {
            const T x = detail::load_raw<T>(static_cast<const char*>(in) + head_bytes);
            const T y = detail::load_raw<T>(static_cast<const char*>(inout) + head_bytes);
            write(inout, op(x, y));
        } catch (...) {
            write_failure(inout, detail::merge_threw(rank, own_error));
        }
    }

    /// A finished record: the value or the failure it carries.
    static maybe_failure read_result(const void* record, T& value)
    {
        const head h = detail::load_raw<head>(record);
        if (h.state != failed && h.state != ok) {
            throw std::logic_error("treefold: an order-free reduction finished without a value (internal error)");
        }
        return detail::read_payload(record, head_bytes, h.state == failed, h.failure_bytes, value);
    }

private:
    static constexpr std::uint16_t ok = 0;
    static constexpr std::uint16_t failed = 1;
    static constexpr std::uint16_t empty = 2;

    struct head {
        std::uint16_t state;
        std::uint16_t failure_bytes;
        std::int32_t rank;
    };
    static_assert(sizeof(head) == head_bytes);

};

} // namespace treefold
