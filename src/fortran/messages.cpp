// The Fortran module's own part of the C API's conventions (src/fortran/treefold.f90): the
// reasons only the module knows (array sizes, contiguity), kept per thread as the C API keeps
// treefold_last_error(), and the local buffer that makes a context call take part as this
// rank's failure.

#include "treefold/treefold.h"

#include <cstddef>
#include <string>

namespace {

thread_local std::string message; // this thread's module-side reason ("" when none)

} // namespace

extern "C" {

/// Sets this thread's module-side reason to text[0, length) (length 0 clears it).
void treefold_f_set_message(const char* text, std::size_t length)
{
    message.assign(text, length);
}

/// This thread's module-side reason (NUL-terminated), or NULL when there is none.
const char* treefold_f_message(void)
{
    return message.empty() ? nullptr : message.c_str();
}

/// C's MPI_IN_PLACE (Fortran's is another address): as a context call's local buffer it makes
/// this rank take part in the call as a failure, which every rank's call then returns.
const void* treefold_f_failed_local(void)
{
    return MPI_IN_PLACE;
}

} // extern "C"
