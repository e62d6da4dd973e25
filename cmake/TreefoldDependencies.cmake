# Everything comes from Debian packages installed by scripts/setup; nothing is downloaded.
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(Boost 1.74 REQUIRED COMPONENTS mpi serialization)
# xsimd is header-only. Debian's exported xsimd target also names an `xtl` link library
# that is only needed for xtl's complex types, so treefold takes just its include path.
find_package(xsimd REQUIRED)
get_target_property(TREEFOLD_XSIMD_INCLUDE xsimd INTERFACE_INCLUDE_DIRECTORIES)
