// Many-to-one traffic: p - 1 producers each send --messages messages of --bytes bytes to rank 0
// through (a) treefold's one-sided queue, (b) MPI_Send / MPI_Recv(MPI_ANY_SOURCE), (c) one
// MPI_Gather per message round. Each repetition: barrier, MPI_Wtime around the whole
// exchange, max over ranks; --reps repetitions after one warm-up; median, p10, p90. Also the
// median latency of one successful queue insertion (producer side) and memory per process.
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "treefold/rma/mpsc_queue.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>
#include <boost/serialization/vector.hpp>

#include <cstdio>
#include <thread>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    int messages = 200;
    int bytes = 16;
    int reps = 30;
    std::size_t slots = 1024;
    po::options_description desc("queue_bench");
    desc.add_options()("messages", po::value(&messages)->default_value(messages), "messages per producer")(
        "bytes", po::value(&bytes)->default_value(bytes), "payload bytes")(
        "reps", po::value(&reps)->default_value(reps), "repetitions")(
        "slots", po::value(&slots)->default_value(slots), "queue slots per half");
    if (!perf::parse_options(argc, argv, "queue_bench", desc, world)) {
        return 2;
    }
    const int p = world.size();
    const auto total = static_cast<std::size_t>(messages) * static_cast<std::size_t>(p - 1);
    const std::vector<std::byte> payload(static_cast<std::size_t>(bytes), std::byte{7});
    rma::mpsc_queue queue(world, slots, 32);
    std::vector<char> recv_buffer(static_cast<std::size_t>(bytes) * static_cast<std::size_t>(p));

    if (world.rank() == 0) {
        std::printf("machine,p,oversubscribed,mode,messages_per_producer,payload_bytes,reps,median_us,p10_us,p90_us,"
                    "us_per_message,messages_per_s,memory_bytes_per_process\n");
    }
    auto report = [&](const char* mode, std::vector<double> t, std::size_t memory) {
        if (world.rank() != 0) {
            return;
        }
        const double median = perf::quantile(t, 0.5);
        const double per_message = total > 0 ? median / static_cast<double>(messages) : 0.0;
        std::printf("%s,%d,%s,%s,%d,%d,%zu,%.2f,%.2f,%.2f,%.3f,%.0f,%zu\n", perf::machine().c_str(), p,
                    perf::oversubscribed(p) ? "yes" : "no", mode, messages, bytes, t.size(), median,
                    perf::quantile(t, 0.1), perf::quantile(t, 0.9), per_message,
                    total > 0 ? static_cast<double>(total) / (median * 1e-6) : 0.0, memory);
    };
    auto timed = [&](auto&& body) {
        std::vector<double> t;
        for (int r = 0; r <= reps; ++r) {
            world.barrier();
            const double t0 = MPI_Wtime();
            body();
            const double dt = mpi::all_reduce(world, MPI_Wtime() - t0, mpi::maximum<double>());
            if (r > 0) {
                t.push_back(dt * 1e6);
            }
        }
        return t;
    };

    std::vector<double> push_latency;
    const auto queue_times = timed([&] {
        if (world.rank() == 0) {
            std::size_t got = 0;
            while (got < total) {
                got += queue.drain().size();
            }
        } else {
            for (int m = 0; m < messages; ++m) {
                const double t0 = MPI_Wtime();
                while (!queue.try_push(0, static_cast<std::uint64_t>(m), payload)) {
                    std::this_thread::yield(); // oversubscribed runs need the consumer scheduled
                }
                push_latency.push_back((MPI_Wtime() - t0) * 1e6);
            }
        }
    });
    report("rma_queue", queue_times, queue.window_bytes());

    const auto sendrecv_times = timed([&] {
        if (world.rank() == 0) {
            for (std::size_t k = 0; k < total; ++k) {
                world.recv(mpi::any_source, 0, recv_buffer.data(), bytes);
            }
        } else {
            for (int m = 0; m < messages; ++m) {
                world.send(0, 0, reinterpret_cast<const char*>(payload.data()), bytes);
            }
        }
    });
    report("send_recv", sendrecv_times, 0);

    const auto gather_times = timed([&] {
        for (int m = 0; m < messages; ++m) {
            MPI_Gather(payload.data(), bytes, MPI_BYTE, recv_buffer.data(), bytes, MPI_BYTE, 0, world);
        }
    });
    report("gather", gather_times, static_cast<std::size_t>(bytes) * static_cast<std::size_t>(p));

    // Median single-insertion latency over all producers.
    // Producers hold different numbers of samples (the consumer none): gather whole vectors.
    std::vector<std::vector<double>> per_rank;
    mpi::gather(world, push_latency, per_rank, 0);
    std::vector<double> all_latency;
    for (const auto& v : per_rank) {
        all_latency.insert(all_latency.end(), v.begin(), v.end());
    }
    if (world.rank() == 0 && !all_latency.empty()) {
        std::printf("# rma_queue insertion latency (producer side, one try_push that succeeds): median %.2f us, "
                    "p10 %.2f us, p90 %.2f us over %zu insertions\n",
                    perf::quantile(all_latency, 0.5), perf::quantile(all_latency, 0.1), perf::quantile(all_latency, 0.9),
                    all_latency.size());
    }
    return 0;
}
