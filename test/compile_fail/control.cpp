// Must compile: the same uses as the files that must not, with parameters that fit.
#include "common.hpp"

namespace {

struct text {
    std::string s;
    template <class Archive>
    void serialize(Archive& ar, unsigned /*version*/)
    {
        ar & s;
    }
};

} // namespace

void control(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout,
             const std::vector<double>& local)
{
    const double scale = 0.5;
    auto op = [scale](const double& a, const double& b) { return a * scale + b; };
    treefold::reducer<double, decltype(op), treefold::kernel::scalar, treefold::exchange::tree<>> r(world, layout, op);
    (void)r.all_reduce(local);
    treefold::reducer<double, std::plus<double>, treefold::kernel::best,
                      treefold::exchange::scheduled<treefold::exchange::schedules::recursive_doubling>>
        s(world, layout);
    (void)s.all_reduce(local);
    auto join = [](const text& a, const text& b) { return text{a.s + b.s}; };
    treefold::reducer<text, decltype(join), treefold::kernel::scalar> t(world, layout, join);
    treefold::row_reducer<double> rows(world, layout, 3);
    auto named = treefold::make_reducer<double>(world, layout, treefold::exchange::tree<>{}, op);
    (void)named.all_reduce(local);
    auto sized = treefold::make_reducer<double>(world, std::uint64_t{100}, treefold::dist::aligned{0.1});
    (void)sized.local_block();
    (void)treefold::collective::tree_reduce<treefold::topology::fibonacci>(world, 1.0, std::plus<double>{}, 0);
    (void)treefold::collective::tree_all_reduce<treefold::topology::binomial>(world, 1.0, std::plus<double>{});
}
