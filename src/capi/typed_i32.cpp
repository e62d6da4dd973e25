// The C API's contexts for elements of type std::int32_t (one type per translation unit, so the
// reducer instantiations compile in parallel).
#include "context.hpp"

namespace treefold::capi::detail {

template std::unique_ptr<context> make_context<std::int32_t>(const boost::mpi::communicator&, layout::block_layout, operation,
                                                   MPI_Op, MPI_Datatype);

} // namespace treefold::capi::detail
