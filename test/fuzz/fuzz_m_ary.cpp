// The fuzzer's checks (fuzz_check.hpp) for the truncated_binary tree, the 4- and 8-ary trees
// (with treefold's broadcast and with MPI_Bcast) and one_sided.
#include "fuzz_check.hpp"

using namespace treefold;

TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::truncated_binary>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::m_ary<4>>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::m_ary<8>>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::m_ary<4>, exchange::result_broadcast::mpi>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::m_ary<8>, exchange::result_broadcast::mpi>);
TREEFOLD_FUZZ_EXCHANGE(rma::one_sided);
