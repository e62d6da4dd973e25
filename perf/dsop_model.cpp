// The DSOP LogGP model's predictions (dsop/cost.hpp) for every algorithm, as CSV: the
// parts in ms and the predicted speedup over allreduce. No MPI; the parameters are given, not
// fitted (see doc/performance.md for the sets used there).
//   dsop_model --procs 2,16,48 --sizes 1000,8000 --L 5e-6 --o 1e-6 --G 8e-10 --t-add 2.5e-10 --t-mul 2.5e-10
#include "bench_util.hpp"
#include "treefold/dsop/cost.hpp"

#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace po = boost::program_options;
using namespace treefold;

int main(int argc, char** argv)
{
    std::string procs_text = "2,4,16,48";
    std::string sizes_text = "1000,2000,4000,8000";
    model::loggp m{5e-6, 1e-6, 8e-10, 2.5e-10, 2.5e-10, 8};
    po::options_description desc("dsop_model");
    desc.add_options()("procs", po::value(&procs_text)->default_value(procs_text), "p values, comma separated")(
        "sizes", po::value(&sizes_text)->default_value(sizes_text), "N = M values, comma separated")(
        "L", po::value(&m.L)->default_value(m.L), "latency (s)")("o", po::value(&m.o)->default_value(m.o),
                                                                 "send + receive overhead (s)")(
        "G", po::value(&m.G)->default_value(m.G), "gap per byte (s)")(
        "t-add", po::value(&m.t_add)->default_value(m.t_add), "one addition (s)")(
        "t-mul", po::value(&m.t_mul)->default_value(m.t_mul), "one multiplication (s)");
    try {
        po::variables_map vm;
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::fprintf(stderr, "dsop_model: %s\n", e.what());
        std::cerr << desc;
        return 2;
    }
    constexpr dsop::dsop_model all[] = {
        dsop::dsop_model::allreduce,          dsop::dsop_model::allreduce_ring,
        dsop::dsop_model::allreduce_ring_pipelined, dsop::dsop_model::butterfly,
        dsop::dsop_model::butterfly_pipelined, dsop::dsop_model::allgather,
        dsop::dsop_model::allgather_async,    dsop::dsop_model::bruck_async,
        dsop::dsop_model::generalized_rabenseifner, dsop::dsop_model::generalized_rabenseifner_pipelined};
    constexpr const char* names[] = {"allreduce",          "allreduce_ring",
                                     "allreduce_ring_pipelined", "butterfly",
                                     "butterfly_pipelined", "allgather",
                                     "allgather_async",    "bruck_async",
                                     "generalized_rabenseifner", "generalized_rabenseifner_pipelined"};
    std::printf("p,N,algorithm,communication_ms,work_ms,overlapped_ms,total_ms,speedup_vs_allreduce\n");
    for (const auto& pt : perf::split_list(procs_text)) {
        const int p = std::stoi(pt);
        for (const auto& nt : perf::split_list(sizes_text)) {
            const double n = std::stod(nt);
            const double base = dsop::predict_dsop(dsop::dsop_model::allreduce, n, n, p, m).total();
            for (std::size_t i = 0; i < std::size(all); ++i) {
                const auto c = dsop::predict_dsop(all[i], n, n, p, m);
                std::printf("%d,%.0f,%s,%.3f,%.3f,%.3f,%.3f,%.2f\n", p, n, names[i], c.communication * 1e3,
                            (c.additions + c.multiplications) * 1e3, c.overlapped * 1e3, c.total() * 1e3,
                            base / c.total());
            }
        }
    }
    return 0;
}
