// Entry points for the Fortran module (src/fortran/treefold.f90): the C API with Fortran
// handles (MPI_Fint, the %MPI_VAL of mpi_f08's types), converted with MPI_*_f2c; the reasons
// only the module knows (array sizes, contiguity), kept per thread as the C API keeps
// treefold_last_error(); and the local buffer that makes a context call take part as this
// rank's failure. Not in treefold.h: Fortran code reaches them through the module's
// interfaces. (Here, in the core, rather than a C++ file in the Fortran library: that target
// carries the MPI's Fortran compile options, which a C++ compiler may refuse.)

#include "treefold/treefold.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

thread_local std::string module_message; // this thread's module-side reason ("" when none)

} // namespace

extern "C" {

/// Sets this thread's module-side reason to text[0, length) (length 0 clears it).
void treefold_f_set_message(const char* text, std::size_t length)
{
    module_message.assign(text, length);
}

/// This thread's module-side reason (NUL-terminated), or NULL when there is none.
const char* treefold_f_message(void)
{
    return module_message.empty() ? nullptr : module_message.c_str();
}

/// C's MPI_IN_PLACE (Fortran's is another address): as a context call's local buffer it makes
/// this rank take part in the call as a failure, which every rank's call then returns.
const void* treefold_f_failed_local(void)
{
    return MPI_IN_PLACE;
}

int treefold_f_context_create_info(MPI_Fint comm, int has_start, std::int64_t global_start, std::int64_t local_count,
                                   MPI_Fint datatype, MPI_Fint op, MPI_Fint info, treefold_context* ctx)
{
    return treefold_context_create_info(MPI_Comm_f2c(comm), has_start != 0 ? global_start : TREEFOLD_RANK_ORDER,
                                        local_count, MPI_Type_f2c(datatype), MPI_Op_f2c(op), MPI_Info_f2c(info), ctx);
}

int treefold_f_context_create_rows(MPI_Fint comm, int has_start, std::int64_t global_start, std::int64_t local_count,
                                   std::int64_t k, MPI_Fint datatype, MPI_Fint op, treefold_context* ctx)
{
    return treefold_context_create_rows(MPI_Comm_f2c(comm), has_start != 0 ? global_start : TREEFOLD_RANK_ORDER,
                                        local_count, k, MPI_Type_f2c(datatype), MPI_Op_f2c(op), MPI_INFO_NULL, ctx);
}

int treefold_f_allreduce(const void* sendbuf, void* recvbuf, std::int64_t local_count, MPI_Fint datatype, MPI_Fint op,
                         MPI_Fint comm)
{
    return treefold_allreduce_c(sendbuf, recvbuf, local_count, MPI_Type_f2c(datatype), MPI_Op_f2c(op),
                                MPI_Comm_f2c(comm));
}

int treefold_f_reduce(const void* sendbuf, void* recvbuf, std::int64_t local_count, MPI_Fint datatype, MPI_Fint op,
                      int root, MPI_Fint comm)
{
    return treefold_reduce_c(sendbuf, recvbuf, local_count, MPI_Type_f2c(datatype), MPI_Op_f2c(op), root,
                             MPI_Comm_f2c(comm));
}

int treefold_f_dot(const double* x, const double* y, std::int64_t count, std::int64_t y_count, double* result,
                   MPI_Fint comm)
{
    // y of another length than x: a NULL y, an error on every rank
    return treefold_dot(x, y_count == count ? y : nullptr, count, result, MPI_Comm_f2c(comm));
}

// x and y: k columns of `count` values each (column-major); y NULL: sums.
int treefold_f_dots(int k, const double* x, const double* y, std::int64_t count, double* results, MPI_Fint comm)
{
    const double* xs[TREEFOLD_DOTS_MAX] = {};
    const double* ys[TREEFOLD_DOTS_MAX] = {};
    for (int c = 0; c < k && c < TREEFOLD_DOTS_MAX; ++c) {
        xs[c] = x + c * count;
        ys[c] = y == nullptr ? nullptr : y + c * count;
    }
    return treefold_dots(k, xs, ys, count, results, MPI_Comm_f2c(comm));
}

} // extern "C"
