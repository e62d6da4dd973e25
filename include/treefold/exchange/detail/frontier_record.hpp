#pragma once
/// A frontier as one fixed-size record of bytes, and the exact merge of two records: the unit
/// the native exchange hands to the MPI library's own reductions as a user-defined operation.
///
/// The nodes of the frontier of [begin, end) follow from the range alone (tree/decompose.hpp),
/// so a record carries the range and the values only: a 24-byte head (begin, end, state) and
/// room for the most values a merged range's frontier can have, and at least for a failure's
/// head (failure::min_record_bytes): the message stays as small as the merge allows, and a
/// failure's text is cut to the room there is (the native exchange's blocking calls
/// complete it from the rank where it happened).
/// An empty range is the merge's identity. Records are read and written with memcpy because
/// an MPI library may hand the operation buffers at any alignment.

#include "treefold/config.hpp"
#include "treefold/exchange/detail/raw_bytes.hpp"
#include "treefold/error.hpp"
#include "treefold/frontier.hpp"
#include "treefold/index_tree/decompose.hpp"
#include "treefold/index_tree/node.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>

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
            if (!own_error) {
                own_error = std::current_exception();
            }
            write_failure(right, failure::op_threw(rank, std::current_exception()));
        }
    }

    /// A finished record: the root's value (the frontier of [0, N) is the root alone) or the
    /// failure it carries.
    maybe_failure read_result(const void* record, T& value) const
    {
        const head h = detail::load_raw<head>(record);
        if (h.state == failed) {
            return decode_failure(static_cast<const char*>(record) + head_bytes, h.failure_bytes);
        }
        if (h.begin != 0 || h.end != n_ || n_ == 0) {
            throw std::logic_error("treefold: a reduction finished without the whole range (internal error)");
        }
        value = detail::load_raw<T>(static_cast<const char*>(record) + head_bytes);
        return std::nullopt;
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
