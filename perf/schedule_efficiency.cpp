// The efficiency figure: for p = 2..P (default 1024) and α_p/α_r (default 0.88/0.38), the
// modelled time of the best schedule divided by that of recursive doubling, treefold's
// heuristic and the thesis's (sorted and unsorted). Prints one CSV row per p, the averages as
// '#' lines, and with --svg FILE draws the ratios against p. No MPI communication.
//
//   schedule_efficiency [--max-p P] [--alpha-p X] [--alpha-r Y] [--receives free|conflicts]
//                       [--thesis-space] [--svg FILE]
//
// --thesis-space: "best" is the best in the thesis's space (model::search_space::thesis()).
#include "treefold/topology/schedule.hpp"
#include "treefold/model/pipelining.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace topology = treefold::topology;
namespace model = treefold::model;

int main(int argc, char** argv)
{
    int max_p = 1024;
    model::params m{0.88, 0.38};
    std::string svg;
    model::search_space space;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--thesis-space") {
            space = model::search_space::thesis();
            continue;
        }
        if (i + 1 >= argc) {
            break;
        }
        ++i;
        if (a == "--receives") {
            m.receives = std::string(argv[i]) == "conflicts" ? model::receive_cost::conflicts : model::receive_cost::free;
        } else if (a == "--max-p") {
            max_p = std::atoi(argv[i]);
        } else if (a == "--alpha-p") {
            m.alpha_p = std::atof(argv[i]);
        } else if (a == "--alpha-r") {
            m.alpha_r = std::atof(argv[i]);
        } else if (a == "--svg") {
            svg = argv[i];
        }
    }
    m.check();
    std::vector<double> vs_rd;
    std::vector<double> vs_heur;
    std::vector<double> vs_sorted;
    std::vector<double> vs_unsorted;
    double worst_search = 0;
    std::printf("p,rd_us,heuristic_us,best_us,best_over_rd,best_over_heuristic,best_over_thesis_sorted,"
                "best_over_thesis_unsorted,best,heuristic,thesis_sorted\n");
    for (int p = 2; p <= max_p; ++p) {
        const auto rd = treefold::topology::recursive_doubling(p);
        const auto h = model::heuristic(p, m);
        const auto hs = model::thesis_heuristic(p, m, true);
        const auto hu = model::thesis_heuristic(p, m, false);
        const auto t0 = std::chrono::steady_clock::now();
        const auto b = model::best(p, m, space);
        worst_search = std::max(worst_search, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        const double trd = model::modelled_time(rd, p, m);
        const double th = model::modelled_time(h, p, m);
        const double tb = model::modelled_time(b, p, m);
        vs_rd.push_back(tb / trd);
        vs_heur.push_back(tb / th);
        vs_sorted.push_back(tb / model::modelled_time(hs, p, m));
        vs_unsorted.push_back(tb / model::modelled_time(hu, p, m));
        std::printf("%d,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%s,%s,%s\n", p, trd, th, tb, tb / trd, tb / th,
                    vs_sorted.back(), vs_unsorted.back(), b.to_string().c_str(), h.to_string().c_str(),
                    hs.to_string().c_str());
    }
    auto mean = [](const std::vector<double>& v) {
        double s = 0;
        for (const double x : v) {
            s += x;
        }
        return s / static_cast<double>(v.size());
    };
    auto minimum = [](const std::vector<double>& v) {
        double s = 1e300;
        for (const double x : v) {
            s = std::min(s, x);
        }
        return s;
    };
    std::printf("# alpha_p = %g, alpha_r = %g, p = 2..%d\n", m.alpha_p, m.alpha_r, max_p);
    std::printf("# mean best/recursive_doubling = %.4f (min %.4f)\n", mean(vs_rd), minimum(vs_rd));
    std::printf("# mean best/heuristic = %.4f (min %.4f)\n", mean(vs_heur), minimum(vs_heur));
    std::printf("# mean best/thesis sorted = %.4f (min %.4f)\n", mean(vs_sorted), minimum(vs_sorted));
    std::printf("# mean best/thesis unsorted = %.4f (min %.4f)\n", mean(vs_unsorted), minimum(vs_unsorted));
    std::printf("# slowest exact search: %.3f ms\n", worst_search * 1e3);
    if (!svg.empty()) {
        std::ofstream f(svg);
        const double w = 800, h = 400, left = 60, bottom = 40, top = 20, right = 20;
        auto x = [&](int p) { return left + (w - left - right) * (p - 2) / static_cast<double>(max_p - 2); };
        auto y = [&](double r) { return top + (h - top - bottom) * (1.0 - (r - 0.4) / 0.6); }; // 0.4 .. 1.0
        f << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
          << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
        for (double r = 0.4; r <= 1.0001; r += 0.1) {
            f << "<line x1='" << left << "' x2='" << w - right << "' y1='" << y(r) << "' y2='" << y(r)
              << "' stroke='#ddd'/><text x='5' y='" << y(r) + 4 << "'>" << std::to_string(r).substr(0, 3) << "</text>\n";
        }
        for (int p = 128; p <= max_p; p += 128) {
            f << "<text x='" << x(p) - 10 << "' y='" << h - 20 << "'>" << p << "</text>\n";
        }
        auto line = [&](const std::vector<double>& v, const char* colour) {
            f << "<polyline fill='none' stroke='" << colour << "' stroke-width='1' points='";
            for (std::size_t i = 0; i < v.size(); ++i) {
                f << x(static_cast<int>(i) + 2) << "," << y(v[i]) << " ";
            }
            f << "'/>\n";
        };
        line(vs_rd, "#1f77b4");
        line(vs_unsorted, "#ff7f0e");
        line(vs_sorted, "#2ca02c");
        line(vs_heur, "#d62728");
        f << "<text x='" << left + 10 << "' y='" << h - 5 << "'>p   best / recursive doubling (blue, mean "
          << mean(vs_rd) << "), / heuristic (red, " << mean(vs_heur) << "), / thesis sorted (green, "
          << mean(vs_sorted) << "), unsorted (orange, " << mean(vs_unsorted) << ")</text>\n</svg>\n";
    }
    return 0;
}
