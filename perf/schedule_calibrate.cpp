// Calibration of the pipelining model from non-blocking multicasts of 8-byte messages.
//
//   mpirun -n <p> schedule_calibrate [--max-b B] [--repetitions R] [--out FILE]
//
// Rank 0 posts b non-blocking sends of 8 bytes to ranks 1..p-1 in turn and waits for a
// one-message acknowledgement from the rank that receives the last message. Under the model
// that takes t(b) = b·α_r + α_p (the multicast) + α_r + α_p (the acknowledgement), so a
// least-squares fit t(b) = A + s·b of the minima over R repetitions gives α_r = s and
// α_p = (A − α_r)/2. A ping-pong of one 8-byte message (one way = α_p + α_r under the model)
// is printed as a cross-check. Writes FILE (default treefold_calibration.txt) for
// `treefold schedule --calibration FILE` and prints the measurements as CSV. At p = 2 every
// message goes to the same peer; beyond 2 ranks this machine (2 cores) is oversubscribed.
#include "treefold/model/pipelining.hpp"

#include <boost/mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace mpi = boost::mpi;

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    int max_b = 16;
    int reps = 2000;
    std::string out = "treefold_calibration.txt";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--max-b") {
            max_b = std::atoi(argv[i + 1]);
        } else if (a == "--repetitions") {
            reps = std::atoi(argv[i + 1]);
        } else if (a == "--out") {
            out = argv[i + 1];
        }
    }
    const int p = world.size();
    const int me = world.rank();
    if (p < 2) {
        if (me == 0) {
            std::fprintf(stderr, "schedule_calibrate: needs at least 2 ranks\n");
        }
        return 2;
    }
    const int tag = 77;
    double payload = 1.0;
    std::vector<double> inbox(static_cast<std::size_t>(max_b));
    std::vector<mpi::request> reqs;
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
    std::vector<double> tmin(static_cast<std::size_t>(max_b) + 1, std::numeric_limits<double>::infinity());
    for (int r = 0; r < reps; ++r) {
        for (int b = 1; b <= max_b; ++b) {
            const int last_peer = 1 + (b - 1) % (p - 1);
            world.barrier();
            if (me == 0) {
                const double t0 = MPI_Wtime();
                reqs.clear();
                for (int j = 0; j < b; ++j) {
                    reqs.push_back(world.isend(1 + j % (p - 1), tag, &payload, 1));
                }
                mpi::wait_all(reqs.begin(), reqs.end());
                world.recv(last_peer, tag + 1, payload);
                tmin[static_cast<std::size_t>(b)] = std::min(tmin[static_cast<std::size_t>(b)], MPI_Wtime() - t0);
            } else {
                reqs.clear();
                int mine = 0;
                for (int j = 0; j < b; ++j) {
                    if (1 + j % (p - 1) == me) {
                        reqs.push_back(world.irecv(0, tag, &inbox[static_cast<std::size_t>(mine++)], 1));
                    }
                }
                mpi::wait_all(reqs.begin(), reqs.end());
                if (me == last_peer) {
                    world.send(0, tag + 1, payload);
                }
            }
        }
    }
    if (me == 0) {
        // Least squares t(b) = A + α_r·b over the minima (microseconds).
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
        const double intercept = (sy - alpha_r * sx) / n;
        const double one_way = pingpong * 1e6 / 2.0;
        treefold::model::params m{std::max(0.0, (intercept - alpha_r) / 2.0), alpha_r};
        const unsigned cores = std::thread::hardware_concurrency();
        char host[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(host, &len);
        std::printf("# schedule_calibrate: p = %d on %s (%u cores)%s, %d repetitions, minima\n", p, host, cores,
                    static_cast<unsigned>(p) > cores ? " OVERSUBSCRIBED" : "", reps);
        std::printf("machine,p,kind,b,min_us\n");
        std::printf("%s,%d,pingpong_one_way,1,%.4f\n", host, p, one_way);
        for (int b = 1; b <= max_b; ++b) {
            std::printf("%s,%d,multicast,%d,%.4f\n", host, p, b, tmin[static_cast<std::size_t>(b)] * 1e6);
        }
        std::printf("# fit: t(b) = %.4f + %.4f b us -> alpha_r = %.4f us, alpha_p = %.4f us, ratio %.3f "
                    "(cross-check: one-way ping-pong %.4f us - alpha_r = %.4f us)\n",
                    intercept, alpha_r, m.alpha_r, m.alpha_p, m.alpha_r > 0 ? m.alpha_p / m.alpha_r : 0.0, one_way,
                    one_way - alpha_r);
        if (!(m.alpha_r > 0)) {
            std::fprintf(stderr, "schedule_calibrate: non-positive slope; not writing %s\n", out.c_str());
            return 1;
        }
        treefold::model::write_calibration(out, m,
                                           "schedule_calibrate on " + std::string(host) + ", p = " + std::to_string(p) +
                                               ", " + std::to_string(reps) + " repetitions (microseconds)");
        std::printf("# wrote %s\n", out.c_str());
    }
    return 0;
}
