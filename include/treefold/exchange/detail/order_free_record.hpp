#pragma once
/// The record of the native exchange's commutative path: one value of an order-free operator
/// (exactly associative and commutative in its bits, such as ops::binned_plus), or a failure.
///
/// An order-free sum needs no ranges and no frontier: each rank folds its own nodes into one
/// value, and any two values merge in either order with the same bits, so the MPI library may
/// run its commutative allreduce algorithms. The record is an 8-byte head (state, and the
/// failing rank) and room for the value or an encoded failure (its text cut to that room). Two failures keep the one of
/// the lower rank, so the merge stays commutative on failures too. Read and written with
/// memcpy: MPI may hand the operation buffers at any alignment.

#include "treefold/config.hpp"
#include "treefold/exchange/detail/raw_bytes.hpp"
#include "treefold/error.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

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
            if (!own_error) {
                own_error = std::current_exception();
            }
            write_failure(inout, failure::op_threw(rank, std::current_exception()));
        }
    }

    /// A finished record: the value or the failure it carries.
    static maybe_failure read_result(const void* record, T& value)
    {
        const head h = detail::load_raw<head>(record);
        if (h.state == failed) {
            return decode_failure(static_cast<const char*>(record) + head_bytes, h.failure_bytes);
        }
        if (h.state != ok) {
            throw std::logic_error("treefold: an order-free reduction finished without a value (internal error)");
        }
        value = detail::load_raw<T>(static_cast<const char*>(record) + head_bytes);
        return std::nullopt;
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
