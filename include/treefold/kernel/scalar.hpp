#pragma once
/// The scalar local kernel: the value of one tree node from the elements it covers.
///
/// A local kernel is a policy type K with
///     template <class T, class Op> static T K::reduce_node(const T* first, std::uint64_t len, Op& op);
/// returning the value of a node whose cover [x, x + len) starts at `first` (x is aligned
/// to the node's level, and len is 2^level, or less when the cover is clipped at N). The
/// tree inside depends on len alone, so the caller need not pass x. The SIMD kernels
/// (kernel/simd.hpp) implement the same contract and must return the same bits.

#include "treefold/config.hpp"

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace treefold::kernel {

/// A fixed-capacity stack of values in raw storage: no allocation, no default constructor
/// needed. One entry per tree level is enough.
template <class T, std::size_t Capacity = 65>
class value_stack {
public:
    value_stack() = default;
    value_stack(const value_stack&) = delete;
    value_stack& operator=(const value_stack&) = delete;
    ~value_stack() { clear(); }

    /// Pushes `v` (size() must be below Capacity).
    void push(T v)
    {
        assert(size_ < Capacity);
        ::new (static_cast<void*>(slot(size_))) T(std::move(v));
        ++size_;
    }
    /// Removes the top value and returns it (the stack must not be empty).
    T pop()
    {
        assert(size_ > 0);
        --size_;
        T v = std::move(*slot(size_));
        std::destroy_at(slot(size_));
        return v;
    }
    /// The top value (the stack must not be empty).
    T& top() { return *slot(size_ - 1); }
    /// The number of values held.
    std::size_t size() const { return size_; }
    /// Whether no value is held.
    bool empty() const { return size_ == 0; }
    /// Destroys every value held.
    void clear()
    {
        while (size_ > 0) {
            --size_;
            std::destroy_at(slot(size_));
        }
    }

private:
    T* slot(std::size_t i) { return std::launder(reinterpret_cast<T*>(storage_ + i * sizeof(T))); }
    alignas(T) unsigned char storage_[Capacity * sizeof(T)];
    std::size_t size_ = 0;
};

/// Scalar kernel: a binary counter over the elements. After element j (0-based) is pushed,
/// ctz(j + 1) complete sibling pairs sit on top of the stack and are combined, exactly as
/// the tree pairs them. What is left at the end are the clipped right edge's nodes, each a
/// left child whose right sibling is partial; folding them right to left applies the
/// pass-through rule (a lone left child is copied, never combined with an identity).
///
/// scalar_tree is that counter over leaves made on the fly (`leaf(j)`, j in [0, len), len > 0):
/// the sums of products (kernel/dot.hpp) use it on products never stored.
template <class T, class Leaf, class Op>
T scalar_tree(std::uint64_t len, Leaf&& leaf, Op& op)
{
    assert(len > 0);
    value_stack<T> stack;
    for (std::uint64_t j = 0; j < len; ++j) {
        T acc = leaf(j);
        for (int pairs = std::countr_zero(j + 1); pairs > 0; --pairs) {
            acc = op(std::as_const(stack.top()), std::as_const(acc));
            stack.pop();
        }
        stack.push(std::move(acc));
    }
    T acc = stack.pop();
    while (!stack.empty()) {
        acc = op(std::as_const(stack.top()), std::as_const(acc));
        stack.pop();
    }
    return acc;
}

/// The scalar kernel policy (see scalar_tree).
struct scalar {
    /// Value of the node covering first[0, len) (len > 0), one element at a time.
    template <class T, class Op>
    static T reduce_node(const T* first, std::uint64_t len, Op& op)
    {
        return scalar_tree<T>(len, [first](std::uint64_t j) -> const T& { return first[j]; }, op);
    }
};

/// The tree over the N values at x (N >= 1) as straight-line code: the left child covers
/// the largest power of two below N, the right child the rest, passed through where it is
/// a lone left child (the tree of kernel::scalar, hence its bits).
template <std::uint64_t N, class T, class Op>
T unrolled_node(const T* x, Op& op)
{
    if constexpr (N == 1) {
        return x[0];
    } else {
        constexpr std::uint64_t half = std::bit_ceil(N) / 2;
        const T left = unrolled_node<half>(x, op);
        const T right = unrolled_node<N - half>(x + half, op);
        return op(left, right);
    }
}

namespace detail {
/// The node over x[0, len), 1 <= len <= 2^Levels: the tree of its level-`Levels` cover. Where
/// the right child is empty (len <= 2^(Levels-1)) the left one passes through; otherwise the
/// full left child is straight-line code and the right child the same recursion one level down.
template <unsigned Levels, class T, class Op>
T clipped_node(const T* x, std::uint64_t len, Op& op)
{
    if constexpr (Levels == 0) {
        return x[0];
    } else {
        constexpr std::uint64_t half = std::uint64_t{1} << (Levels - 1);
        if (len <= half) {
            return clipped_node<Levels - 1>(x, len, op);
        }
        const T left = unrolled_node<half>(x, op);
        const T right = clipped_node<Levels - 1>(x + half, len - half, op);
        return op(left, right);
    }
}
} // namespace detail

/// kernel::scalar::reduce_node for 1 <= len <= Max <= 256: straight-line code for the node's
/// full subtrees, one comparison per level of its cover, without the counter's stack.
template <std::uint64_t Max, class T, class Op>
T small_node(const T* x, std::uint64_t len, Op& op)
{
    static_assert(Max >= 1 && Max <= 256, "small_node: the unrolled trees stop at 256 values");
    assert(len >= 1 && len <= Max);
    return detail::clipped_node<static_cast<unsigned>(std::bit_width(Max - 1))>(x, len, op);
}

} // namespace treefold::kernel
