// The queue experiments of the large-scale-collectives thesis (§6.4) with treefold's queues:
// rma::mpsc_queue (the thesis's scmp), rma::locked_queue (its rlock: an exclusive window lock
// around each enqueue) and MPI_Send/MPI_Recv (Open MPI's per-peer eager path, the analogue of
// Cray MPI's smsg).
//   --experiment latency  ping-pong between ranks 0 and 1, blocks of --pingpongs round trips,
//                         one-way latency = block time / (2 * pingpongs); sizes 8 B .. 64 KiB;
//                         modes interleaved block by block (Fig. 6.6).
//   --experiment memory   a naive all-to-all (--messages per ordered pair) through each mode;
//                         resident and virtual memory of the process before and after each
//                         (Fig. 6.7); the queues' window bytes; Eq. 6.1 from the measured slope
//                         is computed by perf/plot_queue.py over the runs at several p.
//   --experiment scaling  p - 1 producers each push --messages messages of --bytes bytes to
//                         rank 0 at once; each message's completion time since the producer
//                         left the barrier is recorded (Figs. 6.9-6.12); --reps repetitions,
//                         modes interleaved repetition by repetition.
// Rank 0 prints a summary CSV on stdout and, with --raw FILE, appends every sample to FILE.
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "treefold/rma/locked_queue.hpp"
#include "treefold/rma/mpsc_queue.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

namespace {

/// The three ways a message reaches rank `to`; one object per mode, all built up front.
class channel {
public:
    virtual ~channel() = default;
    /// Sends `payload` to `to` (blocking until the producer may reuse it).
    virtual void send(int to, std::uint64_t key, const std::vector<std::byte>& payload) = 0;
    /// Receives at least one message; returns how many arrived.
    virtual std::size_t receive(std::vector<std::byte>& buffer) = 0;
    /// Bytes of per-process queue memory the mode allocates up front.
    virtual std::size_t window_bytes() const { return 0; }
    /// Sends `messages` copies of `payload` to every other rank of p and receives theirs:
    /// all sends, then receives until every message has arrived.
    virtual void all_to_all(int rank, int p, int messages, const std::vector<std::byte>& payload,
                            std::vector<std::byte>& buffer)
    {
        for (int m = 0; m < messages; ++m) {
            for (int k = 1; k < p; ++k) {
                send((rank + k) % p, static_cast<std::uint64_t>(m), payload);
            }
        }
        const auto expected = static_cast<std::size_t>(messages) * static_cast<std::size_t>(p - 1);
        for (std::size_t got = 0; got < expected;) {
            got += receive(buffer);
        }
    }
};

template <class Queue>
class queue_channel final : public channel {
public:
    queue_channel(const mpi::communicator& comm, std::size_t slots, std::size_t slot_bytes, bool yield)
        : queue_(comm, slots, slot_bytes), yield_(yield)
    {
    }
    void send(int to, std::uint64_t key, const std::vector<std::byte>& payload) override
    {
        // A rank that is also a consumer keeps its own queue moving while it waits.
        queue_.push(to, key, payload, [&] { pending_ += queue_.drain().size(); });
    }
    std::size_t receive(std::vector<std::byte>&) override
    {
        std::size_t got = pending_;
        pending_ = 0;
        while (got == 0) {
            got = queue_.drain().size();
            if (got == 0 && yield_) {
                std::this_thread::yield(); // oversubscribed, the producers need the core
            }
        }
        return got;
    }
    std::size_t window_bytes() const override { return queue_.window_bytes(); }

private:
    Queue queue_;
    std::size_t pending_ = 0; // drained while pushing, not yet reported
    bool yield_;              // poll with sched_yield (oversubscribed, or asked for)
};

class sendrecv_channel final : public channel {
public:
    explicit sendrecv_channel(const mpi::communicator& comm) : comm_(comm) {}
    void send(int to, std::uint64_t, const std::vector<std::byte>& payload) override
    {
        MPI_Send(payload.data(), static_cast<int>(payload.size()), MPI_BYTE, to, 0, comm_);
    }
    std::size_t receive(std::vector<std::byte>& buffer) override
    {
        MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, MPI_ANY_SOURCE, 0, comm_,
                 MPI_STATUS_IGNORE);
        return 1;
    }
    /// Posts every receive first: blocking sends to all before any receive could deadlock
    /// above the eager limit.
    void all_to_all(int rank, int p, int messages, const std::vector<std::byte>& payload,
                    std::vector<std::byte>& buffer) override
    {
        std::vector<std::vector<std::byte>> in(static_cast<std::size_t>(messages) * static_cast<std::size_t>(p - 1),
                                               buffer);
        std::vector<MPI_Request> req(in.size());
        for (std::size_t i = 0; i < in.size(); ++i) {
            MPI_Irecv(in[i].data(), static_cast<int>(buffer.size()), MPI_BYTE, MPI_ANY_SOURCE, 0, comm_, &req[i]);
        }
        for (int m = 0; m < messages; ++m) {
            for (int k = 1; k < p; ++k) {
                send((rank + k) % p, 0, payload);
            }
        }
        MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    }

private:
    const mpi::communicator& comm_;
};

std::unique_ptr<channel> make_channel(const std::string& mode, const mpi::communicator& comm, std::size_t slots,
                                      std::size_t slot_bytes, bool yield)
{
    if (mode == "rma_queue") {
        return std::make_unique<queue_channel<rma::mpsc_queue>>(comm, slots, slot_bytes, yield);
    }
    if (mode == "locked_queue") {
        return std::make_unique<queue_channel<rma::locked_queue>>(comm, slots, slot_bytes, yield);
    }
    if (mode == "send_recv") {
        return std::make_unique<sendrecv_channel>(comm);
    }
    throw std::invalid_argument("queue_experiments: unknown mode '" + mode +
                                "' (rma_queue, locked_queue, send_recv)");
}

/// Resident and virtual bytes of this process (/proc/self/statm).
std::pair<double, double> memory_now()
{
    std::ifstream statm("/proc/self/statm");
    double pages_virtual = 0;
    double pages_resident = 0;
    statm >> pages_virtual >> pages_resident;
    const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
    return {pages_resident * page, pages_virtual * page};
}

/// Opens --raw for appending; writes `header` first when the file is new or empty.
std::ofstream open_raw(const std::string& path, const char* header)
{
    std::ofstream out;
    if (path.empty()) {
        return out;
    }
    std::ifstream probe(path);
    const bool fresh = !probe || probe.peek() == std::ifstream::traits_type::eof();
    out.open(path, std::ios::app);
    if (fresh) {
        out << header << '\n';
    }
    return out;
}

struct options {
    std::vector<std::string> modes;
    std::vector<std::size_t> sizes;
    int blocks = 200;
    int pingpongs = 10;
    int messages = 8;
    int bytes = 16;
    int reps = 100;
    std::size_t slots = 0;
    std::size_t slot_bytes = 64;
    std::string raw;
    bool yield = false; // the queues' consumers poll with sched_yield
};

void latency(const mpi::communicator& world, const options& o,
             std::vector<std::pair<std::string, std::unique_ptr<channel>>>& channels)
{
    std::ofstream raw;
    if (world.rank() == 0) {
        raw = open_raw(o.raw, "machine,p,mode,payload_bytes,block,latency_us");
        std::printf("machine,p,mode,payload_bytes,blocks,median_us,p10_us,p90_us\n");
    }
    const int me = world.rank();
    for (const std::size_t size : o.sizes) {
        const std::vector<std::byte> payload(size, std::byte{3});
        std::vector<std::byte> buffer(size);
        std::map<std::string, std::vector<double>> samples;
        for (int b = 0; b < o.blocks + 1; ++b) { // block 0 is a warm-up
            for (auto& [mode, ch] : channels) {
                world.barrier();
                const double t0 = MPI_Wtime();
                for (int i = 0; i < o.pingpongs && me < 2; ++i) {
                    if (me == 0) {
                        ch->send(1, static_cast<std::uint64_t>(i), payload);
                        ch->receive(buffer);
                    } else {
                        ch->receive(buffer);
                        ch->send(0, static_cast<std::uint64_t>(i), payload);
                    }
                }
                const double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * o.pingpongs);
                if (me == 0 && b > 0) {
                    samples[mode].push_back(us);
                    if (raw) {
                        raw << perf::machine() << ',' << world.size() << ',' << mode << ',' << size << ',' << b << ','
                            << us << '\n';
                    }
                }
            }
        }
        for (const auto& [mode, v] : samples) {
            std::printf("%s,%d,%s,%zu,%zu,%.3f,%.3f,%.3f\n", perf::machine().c_str(), world.size(), mode.c_str(), size,
                        v.size(), perf::quantile(v, 0.5), perf::quantile(v, 0.1), perf::quantile(v, 0.9));
        }
    }
}

/// Every rank sends o.messages messages to every other rank through `ch` and receives theirs.
void all_to_all(const mpi::communicator& world, const options& o, channel& ch)
{
    const std::vector<std::byte> payload(static_cast<std::size_t>(o.bytes), std::byte{5});
    std::vector<std::byte> buffer(static_cast<std::size_t>(o.bytes));
    ch.all_to_all(world.rank(), world.size(), o.messages, payload, buffer);
    world.barrier();
}

void memory(const mpi::communicator& world, const options& o)
{
    if (world.rank() == 0) {
        std::printf("machine,p,oversubscribed,mode,messages_per_pair,payload_bytes,window_bytes,"
                    "rss_delta_median_bytes,rss_delta_max_bytes,vm_delta_median_bytes,vm_delta_max_bytes\n");
    }
    // One mode per phase, in the order given; each phase's delta covers building the mode
    // (the queues' windows) and the all-to-all through it.
    for (const auto& mode : o.modes) {
        world.barrier();
        const auto [rss0, vm0] = memory_now();
        auto ch = make_channel(mode, world, o.slots, o.slot_bytes, o.yield);
        all_to_all(world, o, *ch);
        const auto [rss1, vm1] = memory_now();
        std::vector<double> rss;
        std::vector<double> vm;
        mpi::gather(world, rss1 - rss0, rss, 0);
        mpi::gather(world, vm1 - vm0, vm, 0);
        if (world.rank() == 0) {
            std::printf("%s,%d,%s,%s,%d,%d,%zu,%.0f,%.0f,%.0f,%.0f\n", perf::machine().c_str(), world.size(),
                        perf::oversubscribed(world.size()) ? "yes" : "no", mode.c_str(), o.messages, o.bytes,
                        ch->window_bytes(), perf::quantile(rss, 0.5), perf::quantile(rss, 1.0),
                        perf::quantile(vm, 0.5), perf::quantile(vm, 1.0));
        }
        world.barrier(); // nobody frees a window another rank still drains
    }
}

void scaling(const mpi::communicator& world, const options& o,
             std::vector<std::pair<std::string, std::unique_ptr<channel>>>& channels)
{
    const int p = world.size();
    const bool over = perf::oversubscribed(p);
    std::ofstream raw;
    if (world.rank() == 0) {
        raw = open_raw(o.raw, "machine,p,oversubscribed,mode,rep,rank,message,completion_us");
        std::printf("machine,p,oversubscribed,mode,producers,messages_per_producer,reps,samples,median_us,p10_us,"
                    "p90_us,p99_us,last_median_us,last_p99_us\n");
    }
    const std::vector<std::byte> payload(static_cast<std::size_t>(o.bytes), std::byte{9});
    std::vector<std::byte> buffer(static_cast<std::size_t>(o.bytes));
    const auto expected = static_cast<std::size_t>(o.messages) * static_cast<std::size_t>(p - 1);
    std::map<std::string, std::vector<double>> all;  // every message's completion time
    std::map<std::string, std::vector<double>> last; // each producer's last message
    for (int rep = 0; rep < o.reps + 1; ++rep) { // rep 0 is a warm-up
        for (auto& [mode, ch] : channels) {
            std::vector<double> mine;
            world.barrier();
            const double t0 = MPI_Wtime();
            if (world.rank() == 0) {
                std::size_t got = 0;
                while (got < expected) {
                    got += ch->receive(buffer);
                }
            } else {
                for (int m = 0; m < o.messages; ++m) {
                    ch->send(0, static_cast<std::uint64_t>(m), payload);
                    mine.push_back((MPI_Wtime() - t0) * 1e6);
                }
            }
            std::vector<std::vector<double>> per_rank;
            mpi::gather(world, mine, per_rank, 0);
            if (world.rank() != 0 || rep == 0) {
                continue;
            }
            for (std::size_t r = 1; r < per_rank.size(); ++r) {
                for (std::size_t m = 0; m < per_rank[r].size(); ++m) {
                    all[mode].push_back(per_rank[r][m]);
                    if (raw) {
                        raw << perf::machine() << ',' << p << ',' << (over ? "yes" : "no") << ',' << mode << ',' << rep
                            << ',' << r << ',' << m << ',' << per_rank[r][m] << '\n';
                    }
                }
                if (!per_rank[r].empty()) {
                    last[mode].push_back(per_rank[r].back());
                }
            }
        }
    }
    for (const auto& [mode, v] : all) {
        std::printf("%s,%d,%s,%s,%d,%d,%d,%zu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", perf::machine().c_str(), p,
                    over ? "yes" : "no", mode.c_str(), p - 1, o.messages, o.reps, v.size(), perf::quantile(v, 0.5),
                    perf::quantile(v, 0.1), perf::quantile(v, 0.9), perf::quantile(v, 0.99),
                    perf::quantile(last[mode], 0.5), perf::quantile(last[mode], 0.99));
    }
}

} // namespace

namespace {

int run(int argc, char** argv, const mpi::communicator& world)
{
    options o;
    std::string experiment = "latency";
    std::string modes = "rma_queue,locked_queue,send_recv";
    std::string sizes = "8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536";
    po::options_description desc("queue_experiments");
    desc.add_options()("experiment", po::value(&experiment)->default_value(experiment), "latency, memory or scaling")(
        "modes", po::value(&modes)->default_value(modes), "comma-separated: rma_queue, locked_queue, send_recv")(
        "sizes", po::value(&sizes)->default_value(sizes), "latency: payload sizes in bytes")(
        "blocks", po::value(&o.blocks)->default_value(o.blocks), "latency: blocks per size and mode")(
        "pingpongs", po::value(&o.pingpongs)->default_value(o.pingpongs), "latency: round trips per block")(
        "messages", po::value(&o.messages)->default_value(o.messages), "scaling: per producer; memory: per pair")(
        "bytes", po::value(&o.bytes)->default_value(o.bytes), "scaling, memory: payload bytes")(
        "reps", po::value(&o.reps)->default_value(o.reps), "scaling: repetitions")(
        "slots", po::value(&o.slots)->default_value(0), "queue slots per half (0: 1024, or enough for the largest size)")(
        "slot-bytes", po::value(&o.slot_bytes)->default_value(o.slot_bytes), "queue slot size in bytes")(
        "raw", po::value(&o.raw), "append every sample to this CSV (rank 0)")(
        "yield", po::bool_switch(&o.yield), "queues poll with sched_yield even at p <= cores (always beyond)");
    if (!perf::parse_options(argc, argv, "queue_experiments", desc, world)) {
        return 2;
    }
    o.modes = perf::split_list(modes);
    o.yield = o.yield || perf::oversubscribed(world.size());
    for (const auto s : perf::unsigned_list(sizes, "--sizes")) {
        o.sizes.push_back(static_cast<std::size_t>(s));
    }
    if (o.slots == 0) {
        // The thesis's queues had 1024 slots a half; more when the largest payload needs them.
        std::size_t largest = static_cast<std::size_t>(o.bytes);
        for (const auto s : o.sizes) {
            largest = experiment == "latency" ? std::max(largest, s) : largest;
        }
        o.slots = std::max<std::size_t>(1024, (largest + rma::queue_base::header_bytes + o.slot_bytes - 1) / o.slot_bytes);
    }
    if (world.size() < 2 || o.blocks < 1 || o.pingpongs < 1 || o.messages < 1 || o.reps < 1 || o.bytes < 0) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "queue_experiments: needs p >= 2 and positive --blocks, --pingpongs, --messages, "
                                 "--reps\n");
        }
        return 2;
    }
    for (const auto& m : o.modes) {
        if (m != "rma_queue" && m != "locked_queue" && m != "send_recv") {
            if (world.rank() == 0) {
                std::fprintf(stderr, "queue_experiments: unknown mode '%s' (rma_queue, locked_queue, send_recv)\n",
                             m.c_str());
            }
            return 2;
        }
    }
    if (experiment == "memory") {
        memory(world, o);
        return 0;
    }
    std::vector<std::pair<std::string, std::unique_ptr<channel>>> channels;
    for (const auto& m : o.modes) {
        channels.emplace_back(m, make_channel(m, world, o.slots, o.slot_bytes, o.yield));
    }
    if (experiment == "latency") {
        latency(world, o, channels);
    } else if (experiment == "scaling") {
        scaling(world, o, channels);
    } else {
        if (world.rank() == 0) {
            std::fprintf(stderr, "queue_experiments: unknown --experiment '%s' (latency, memory, scaling)\n",
                         experiment.c_str());
        }
        return 2;
    }
    world.barrier(); // every rank done with every queue before the windows are freed
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    try {
        return run(argc, argv, world);
    } catch (const std::invalid_argument& e) { // the queues' size checks: every rank throws alike
        if (world.rank() == 0) {
            std::fprintf(stderr, "queue_experiments: %s\n", e.what());
        }
        return 2;
    }
}
