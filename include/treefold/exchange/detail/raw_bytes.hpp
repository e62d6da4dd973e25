#pragma once
/// Trivially copyable values at any address of a byte buffer (the records MPI hands an
/// operation need not be aligned for T): read and written with memcpy.

#include "treefold/config.hpp"

#include <cstring>
#include <type_traits>

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

} // namespace treefold::detail
