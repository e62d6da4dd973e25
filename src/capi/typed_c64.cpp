// The C API's contexts for elements of type std::complex<double> (one type per translation unit, so the
// reducer instantiations compile in parallel).
#include "context.hpp"

namespace treefold::capi::detail {

template std::unique_ptr<context> make_context<std::complex<double>>(const boost::mpi::communicator&, layout::block_layout, operation,
                                                   MPI_Op, MPI_Datatype);

} // namespace treefold::capi::detail
