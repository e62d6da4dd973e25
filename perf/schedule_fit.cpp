// A fit of the pipelining model's constants from non-blocking multicasts of 8-byte messages, and
// with --sizes of the size-aware model (model/size_model.hpp) over message sizes.
//
//   mpirun -n <p> schedule_fit [--max-b B] [--repetitions R] [--out FILE] [--sizes]
//
// Rank 0 posts b non-blocking sends of 8 bytes to ranks 1..p-1 in turn and waits for a
// one-message acknowledgement from the rank that receives the last message. Under the model
// that takes t(b) = b·α_r + α_p (the multicast) + α_r + α_p (the acknowledgement), so a
// least-squares fit t(b) = A + s·b of the minima over R repetitions gives α_r = s and
// α_p = (A − α_r)/2. A ping-pong of one 8-byte message (one way = α_p + α_r under the model)
// is printed as a cross-check. Writes FILE (default treefold_constants.txt) for
// `treefold schedule --constants FILE` and prints the measurements as CSV. At p = 2 every
// message goes to the same peer; beyond 2 ranks this machine (2 cores) is oversubscribed.
//
// --sizes repeats the measurement for messages of 8 B … 64 KiB (powers of two, and points
// around Open MPI's shared-memory eager limit of 4 KiB), prints α_p and α_r fitted per size
// (the form of the thesis's Table 4.1) and fits α_p, α_r, β and the eager/rendezvous step to
// all samples at once (model::fit_size_model); FILE then holds the size-aware model.
#include "treefold/model/pipelining.hpp"
#include "treefold/model/size_model.hpp"

#include <boost/mpi.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mpi = boost::mpi;

namespace {

/// Minimum over `reps` repetitions of a multicast of b messages of `bytes` bytes from rank 0
/// (to ranks 1..p-1 in turn) and the acknowledgement back, for b = 1..max_b (seconds; index b).
std::vector<double> measure(const mpi::communicator& world, std::size_t bytes, int max_b, int reps)
{
    const int tag = 77;
    const int p = world.size();
    const int me = world.rank();
    std::vector<char> payload(bytes, 'x');
    std::vector<char> inbox(bytes * static_cast<std::size_t>(max_b));
    double ack = 1.0;
    std::vector<mpi::request> reqs;
    const int count = static_cast<int>(bytes);
    std::vector<double> tmin(static_cast<std::size_t>(max_b) + 1, std::numeric_limits<double>::infinity());
    for (int r = 0; r < reps; ++r) {
        for (int b = 1; b <= max_b; ++b) {
            const int last_peer = 1 + (b - 1) % (p - 1);
            world.barrier();
            if (me == 0) {
                const double t0 = MPI_Wtime();
                reqs.clear();
                for (int j = 0; j < b; ++j) {
                    reqs.push_back(world.isend(1 + j % (p - 1), tag, payload.data(), count));
                }
                mpi::wait_all(reqs.begin(), reqs.end());
                world.recv(last_peer, tag + 1, ack);
                tmin[static_cast<std::size_t>(b)] = std::min(tmin[static_cast<std::size_t>(b)], MPI_Wtime() - t0);
            } else {
                reqs.clear();
                std::size_t mine = 0;
                for (int j = 0; j < b; ++j) {
                    if (1 + j % (p - 1) == me) {
                        reqs.push_back(world.irecv(0, tag, inbox.data() + bytes * mine++, count));
                    }
                }
                mpi::wait_all(reqs.begin(), reqs.end());
                if (me == last_peer) {
                    world.send(0, tag + 1, ack);
                }
            }
        }
    }
    return tmin;
}

/// Eq. 4.6 with the acknowledgement, t(b) = 2α_p + (b+1)·α_r, fitted to the minima of one size
/// (least squares t(b) = A + α_r·b, α_p = (A − α_r)/2; microseconds). `intercept` gets A.
treefold::model::params fit_one_size(const std::vector<double>& tmin, double& intercept)
{
    const int max_b = static_cast<int>(tmin.size()) - 1;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int b = 1; b <= max_b; ++b) {
        const double x = b;
        const double y = tmin[static_cast<std::size_t>(b)] * 1e6;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double n = max_b;
    const double alpha_r = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    intercept = (sy - alpha_r * sx) / n;
    return {(intercept - alpha_r) / 2.0, alpha_r};
}

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    int max_b = 16;
    int reps = 2000;
    bool sizes = false;
    std::string out = "treefold_constants.txt";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sizes") {
            sizes = true;
        } else if (i + 1 < argc && a == "--max-b") {
            max_b = std::atoi(argv[++i]);
        } else if (i + 1 < argc && a == "--repetitions") {
            reps = std::atoi(argv[++i]);
        } else if (i + 1 < argc && a == "--out") {
            out = argv[++i];
        }
    }
    const int p = world.size();
    const int me = world.rank();
    if (p < 2) {
        if (me == 0) {
            std::fprintf(stderr, "schedule_fit: needs at least 2 ranks\n");
        }
        return 2;
    }
    const int tag = 77;
    double payload = 1.0;
    // One-way latency: ping-pong between ranks 0 and 1.
    double pingpong = std::numeric_limits<double>::infinity();
    for (int r = 0; r < reps; ++r) {
        world.barrier();
        if (me == 0) {
            const double t0 = MPI_Wtime();
            world.send(1, tag, payload);
            world.recv(1, tag, payload);
            pingpong = std::min(pingpong, MPI_Wtime() - t0);
        } else if (me == 1) {
            world.recv(0, tag, payload);
            world.send(0, tag, payload);
        }
    }
    std::vector<std::size_t> grid{8};
    if (sizes) {
        for (std::size_t n = 16; n <= 65536; n *= 2) {
            grid.push_back(n);
        }
        // Around the shared-memory eager limit (4096 B with the match header inside it).
        grid.insert(grid.end(), {3072, 3584, 4000, 4032, 4064, 4160, 4608, 6144});
        std::sort(grid.begin(), grid.end());
    }
    std::vector<std::vector<double>> tmins;
    for (const std::size_t n : grid) {
        tmins.push_back(measure(world, n, max_b, reps));
    }
    if (me == 0) {
        const unsigned cores = std::thread::hardware_concurrency();
        char host[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(host, &len);
        const bool over = static_cast<unsigned>(p) > cores;
        std::printf("# schedule_fit: p = %d on %s (%u cores)%s, %d repetitions, minima\n", p, host, cores,
                    over ? " OVERSUBSCRIBED" : "", reps);
        std::printf("machine,p,kind,bytes,b,min_us\n");
        const double one_way = pingpong * 1e6 / 2.0;
        std::printf("%s,%d,pingpong_one_way,8,1,%.4f\n", host, p, one_way);
        std::vector<treefold::model::size_sample> samples;
        for (std::size_t i = 0; i < grid.size(); ++i) {
            for (int b = 1; b <= max_b; ++b) {
                const double us = tmins[i][static_cast<std::size_t>(b)] * 1e6;
                std::printf("%s,%d,multicast,%zu,%d,%.4f\n", host, p, grid[i], b, us);
                samples.push_back({b, grid[i], us});
            }
        }
        double intercept = 0;
        treefold::model::params m = fit_one_size(tmins[0], intercept);
        m.alpha_p = std::max(0.0, m.alpha_p);
        std::printf("# fit: t(b) = %.4f + %.4f b us -> alpha_r = %.4f us, alpha_p = %.4f us, ratio %.3f "
                    "(cross-check: one-way ping-pong %.4f us - alpha_r = %.4f us)\n",
                    intercept, m.alpha_r, m.alpha_r, m.alpha_p, m.alpha_r > 0 ? m.alpha_p / m.alpha_r : 0.0, one_way,
                    one_way - m.alpha_r);
        if (!sizes && !(m.alpha_r > 0)) {
            std::fprintf(stderr, "schedule_fit: non-positive slope; not writing %s\n", out.c_str());
            return 1;
        }
        const std::string comment = "schedule_fit on " + std::string(host) + ", p = " + std::to_string(p) +
                                    (over ? " (oversubscribed)" : "") + ", " + std::to_string(reps) +
                                    " repetitions (microseconds)";
        if (!sizes) {
            treefold::model::write_constants(out, m, comment);
            std::printf("# wrote %s\n", out.c_str());
            return 0;
        }
        // Table 4.1's form: α_p and α_r fitted per size. The acknowledgement is an 8-byte
        // message at every size, so α_p(n) = (A(n) − α_r(8 B))/2 (taking α_r(n) there would
        // charge the acknowledgement the large message's cost and push α_p below zero).
        std::printf("# per size (Table 4.1 form)%s\ntable,bytes,alpha_p_us,alpha_r_us,ratio\n",
                    over ? ", OVERSUBSCRIBED" : "");
        for (std::size_t i = 0; i < grid.size(); ++i) {
            double a = 0;
            const auto f = fit_one_size(tmins[i], a);
            const double alpha_p = (a - m.alpha_r) / 2.0;
            std::printf("table,%zu,%.4f,%.4f,%.4f\n", grid[i], alpha_p, f.alpha_r, alpha_p / f.alpha_r);
        }
        const treefold::model::size_fit fit = treefold::model::fit_size_model(samples);
        const auto& s = fit.model;
        std::printf("# size model: alpha_p = %.4f us, alpha_r = %.4f us, beta = %.6f us/B (%.3f GB/s)", s.base.alpha_p,
                    s.base.alpha_r, s.beta, s.beta > 0 ? 1e-3 / s.beta : 0.0);
        if (s.sized() && s.eager_limit != std::numeric_limits<std::uint64_t>::max()) {
            std::printf(", above %llu B: %+.4f us latency, %+.4f us per message, %+.6f us/B",
                        static_cast<unsigned long long>(s.eager_limit), s.rendezvous_p, s.rendezvous_r,
                        s.rendezvous_beta);
        } else {
            std::printf(", no eager/rendezvous step found");
        }
        std::printf("; rms relative residual %.2f %% over %zu samples\n", 100.0 * fit.rms_relative_residual,
                    fit.samples);
        try {
            s.check();
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "schedule_fit: fitted size model is not usable (%s); not writing %s\n",
                         e.what(), out.c_str());
            return 1;
        }
        treefold::model::write_size_constants(out, s, comment + ", sizes 8 B .. 64 KiB");
        std::printf("# wrote %s\n", out.c_str());
    }
    return 0;
}
