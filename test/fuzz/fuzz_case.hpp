#pragma once
/// What the fuzzer's translation units share (test_fuzz.cpp makes the cases; fuzz_<group>.cpp
/// check them): the random stream, one case, and run_group, which runs a case with the
/// exchange E. run_group is only declared here: fuzz_check.hpp defines it and each
/// fuzz_<group>.cpp instantiates it for its exchanges, so no file instantiates a reducer for
/// every exchange × operator group × kernel (one file took 99 s of CPU to compile). An exchange
/// that visit_by_name names and no fuzz_<group>.cpp instantiates fails the link.
#include "support/mpi_test.hpp"
#include "treefold/layout/block_layout.hpp"

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::testing::fuzz {

/// splitmix64: the same stream on every rank and every platform.
struct rng {
    std::uint64_t s;
    std::uint64_t next()
    {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t k) { return next() % k; }
    bool chance(unsigned percent) { return below(100) < percent; }
};

/// One case, the same on every rank.
struct fuzz_case {
    std::uint64_t n = 0;
    std::vector<layout::block> blocks; // by rank
    std::size_t exchange = 0;         // index into exchange_list
    int group = 0;                    // operator and element type (see run_group)
    bool scalar_kernel = false;
    int root = -1;                    // -1: all_reduce
    unsigned special = 0;             // percent of non-finite doubles
    std::uint64_t data_seed = 0;

    std::string describe(const std::vector<std::string_view>& names) const
    {
        std::ostringstream o;
        o << "N " << n << ", exchange " << names[exchange] << ", group " << group << ", kernel "
          << (scalar_kernel ? "scalar" : "best") << ", " << (root < 0 ? "all_reduce" : "reduce to " + std::to_string(root))
          << ", special " << special << "%, blocks";
        for (const auto& b : blocks) {
            o << " [" << b.start << ",+" << b.count << ")";
        }
        return o.str();
    }
};

constexpr int groups = 8;

/// Runs case `c` with exchange E and the case's operator group; true when the reducer gave
/// the oracle's value, else false with the reason in `why` (fuzz_check.hpp).
template <class E>
bool run_group(const boost::mpi::communicator& w, const fuzz_case& c, std::string& why);

} // namespace treefold::testing::fuzz
