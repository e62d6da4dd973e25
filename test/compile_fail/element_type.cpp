// Must not compile: the element type is neither trivially copyable nor serialisable
// (no serialize member, no free serialize, not a Boost.Serialization primitive).
#include "common.hpp"

namespace {
struct opaque {
    std::string s;
};
} // namespace

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    auto join = [](const opaque& a, const opaque& b) { return opaque{a.s + b.s}; };
    treefold::reducer<opaque, decltype(join), treefold::kernel::scalar> r(world, layout, join);
}
