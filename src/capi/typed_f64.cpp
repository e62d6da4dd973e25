// The C API's contexts and one-call reductions for elements of type double (one type per
// translation unit, so the reducer instantiations compile in parallel).
#include "context.hpp"

namespace treefold::capi::detail {

template std::unique_ptr<context> make_context<double>(const boost::mpi::communicator&, layout::block_layout,
                                                   operation, MPI_Op, MPI_Datatype);
template void one_call<double>(const boost::mpi::communicator&, const void*, std::uint64_t, operation, MPI_Op,
                           MPI_Datatype, void*);

} // namespace treefold::capi::detail
