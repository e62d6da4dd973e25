// OSU-style reduce latency: treefold_reduce_{binomial,fibonacci,binary,inorder,truncated_*} against
// MPI_Reduce, MPI_FLOAT / MPI_SUM, message sizes 8 B .. 1 MiB.
//
//   mpirun -n <p> osu_reduce [--min B] [--max B] [--iterations N] [--iterations-large N]
//                            [--root R] [--allreduce] [--csv-only] [--step F]
//
// --step F multiplies the size by F from one row to the next (2 by default; --min 4 --max
// 4000000 --step 10 is the reduction-trees document's array-size sweep, 1 .. 10^6 floats).
// --allreduce times treefold_allreduce_* against MPI_Allreduce instead (root ignored).
//
// For every size, each method runs `skip` warm-up calls and then `iterations` timed calls
// (1000, or 100 above 8 KiB), each after a barrier. Like the OSU micro-benchmarks, avg is
// the mean over ranks of each rank's mean latency, min and max the extremes of those
// per-rank means. median / p1 / p99 are over iterations of the slowest rank's time. The
// counts (messages, bytes, rounds) are the whole call's, deterministic at any p. Output:
// an OSU-style table as '#' lines, then one CSV row per (method, size).

#include "treefold/collective/reduce.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace {

using reduce_fn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm);

struct method {
    const char* name;
    reduce_fn fn;
    bool counted; // treefold_rank_ordered_last_counters applies
};

const method reduce_methods[] = {
    {"MPI_Reduce", &MPI_Reduce, false},
    {"binomial", &treefold_rank_ordered_reduce_binomial, true},
    {"fibonacci", &treefold_rank_ordered_reduce_fibonacci, true},
    {"binary", &treefold_rank_ordered_reduce_binary, true},
    {"inorder", &treefold_rank_ordered_reduce_inorder, true},
    {"truncated_fibonacci", &treefold_rank_ordered_reduce_truncated_fibonacci, true},
    {"truncated_binary", &treefold_rank_ordered_reduce_truncated_binary, true},
};

// The allreduce functions behind the reduce signature (the root is ignored).
template <int (*F)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm)>
int as_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int /*root*/, MPI_Comm comm)
{
    return F(sendbuf, recvbuf, count, type, op, comm);
}

const method allreduce_methods[] = {
    {"MPI_Allreduce", &as_reduce<&MPI_Allreduce>, false},
    {"binomial", &as_reduce<&treefold_rank_ordered_allreduce_binomial>, true},
    {"fibonacci", &as_reduce<&treefold_rank_ordered_allreduce_fibonacci>, true},
    {"binary", &as_reduce<&treefold_rank_ordered_allreduce_binary>, true},
    {"inorder", &as_reduce<&treefold_rank_ordered_allreduce_inorder>, true},
    {"truncated_fibonacci", &as_reduce<&treefold_rank_ordered_allreduce_truncated_fibonacci>, true},
    {"truncated_binary", &as_reduce<&treefold_rank_ordered_allreduce_truncated_binary>, true},
};

struct options {
    long min_bytes = 8;
    long max_bytes = 1L << 20;
    int iterations = 1000;
    int iterations_large = 100;
    long large_from = 8192; // sizes above this use iterations_large (as OSU does)
    int root = 0;
    bool allreduce = false;
    bool csv_only = false;
    long step = 2;
};

options parse(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--min" && has_value) {
            o.min_bytes = std::atol(argv[++i]);
        } else if (a == "--max" && has_value) {
            o.max_bytes = std::atol(argv[++i]);
        } else if (a == "--iterations" && has_value) {
            o.iterations = std::atoi(argv[++i]);
        } else if (a == "--iterations-large" && has_value) {
            o.iterations_large = std::atoi(argv[++i]);
        } else if (a == "--root" && has_value) {
            o.root = std::atoi(argv[++i]);
        } else if (a == "--allreduce") {
            o.allreduce = true;
        } else if (a == "--step" && has_value) {
            o.step = std::max(2L, std::atol(argv[++i]));
        } else if (a == "--csv-only") {
            o.csv_only = true;
        } else {
            std::fprintf(stderr, "osu_reduce: unknown argument %s\n", a.c_str());
            std::exit(2);
        }
    }
    o.min_bytes = std::max(o.min_bytes, static_cast<long>(sizeof(float)));
    return o;
}

double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const auto at = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(at, v.size() - 1)];
}

struct row {
    double avg = 0, min = 0, max = 0, median = 0, p1 = 0, p99 = 0;
    long long messages = -1, bytes = -1;
    int rounds = -1;
    bool correct = true;
};

row measure(const method& m, long bytes, int iterations, const options& o, int me, int p)
{
    const int count = static_cast<int>(bytes / static_cast<long>(sizeof(float)));
    std::vector<float> in(static_cast<std::size_t>(count), static_cast<float>(me + 1));
    std::vector<float> out(static_cast<std::size_t>(count), 0.0F);
    const int skip = iterations >= 1000 ? 100 : 10;
    std::vector<double> times(static_cast<std::size_t>(iterations));
    for (int i = -skip; i < iterations; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        m.fn(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, o.root, MPI_COMM_WORLD);
        const double t1 = MPI_Wtime();
        if (i >= 0) {
            times[static_cast<std::size_t>(i)] = (t1 - t0) * 1e6;
        }
    }
    row r;
    if (m.counted) {
        treefold_rank_ordered_counters c{};
        treefold_rank_ordered_last_counters(&c);
        MPI_Allreduce(&c.bytes, &r.bytes, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        r.messages = c.total_messages;
        r.rounds = c.rounds;
    }
    const float want = static_cast<float>(p) * static_cast<float>(p + 1) / 2.0F;
    int ok = (me != o.root && !o.allreduce) || std::all_of(out.begin(), out.end(), [&](float v) { return v == want; }) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    r.correct = ok == 1;

    double mean = 0;
    for (const double t : times) {
        mean += t;
    }
    mean /= static_cast<double>(iterations);
    MPI_Allreduce(&mean, &r.avg, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    r.avg /= p;
    MPI_Allreduce(&mean, &r.min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mean, &r.max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    std::vector<double> slowest(times.size());
    MPI_Allreduce(times.data(), slowest.data(), iterations, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r.median = quantile(slowest, 0.5);
    r.p1 = quantile(slowest, 0.01);
    r.p99 = quantile(slowest, 0.99);
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int me = 0;
    int p = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const options o = parse(argc, argv);
    if (o.root < 0 || o.root >= p) {
        if (me == 0) {
            std::fprintf(stderr, "osu_reduce: root %d outside [0, %d)\n", o.root, p);
        }
        MPI_Finalize();
        return 2;
    }
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int host_len = 0;
    MPI_Get_processor_name(host, &host_len);
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    const bool oversubscribed = static_cast<unsigned>(p) > cores;

    if (me == 0 && !o.csv_only) {
        std::printf("# treefold OSU-style %s latency: p = %d on %s (%u cores)%s, MPI_FLOAT MPI_SUM, root %d\n",
                    o.allreduce ? "allreduce" : "reduce", p, host, cores,
                    oversubscribed ? ", OVERSUBSCRIBED: timings are not representative" : "", o.root);
        std::printf("# %-19s %10s %12s %12s %12s %12s %8s %9s %6s\n", "method", "bytes", "avg(us)", "min(us)",
                    "max(us)", "median(us)", "ratio", "messages", "rounds");
    }
    std::vector<std::string> csv;
    for (long bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= o.step) {
        const int iterations = bytes > o.large_from ? o.iterations_large : o.iterations;
        double baseline = 0;
        for (const auto& m : o.allreduce ? std::span<const method>(allreduce_methods)
                                         : std::span<const method>(reduce_methods)) {
            const row r = measure(m, bytes, iterations, o, me, p);
            if (!m.counted) {
                baseline = r.avg;
            }
            const double ratio = baseline > 0 ? r.avg / baseline : 0.0;
            if (me == 0) {
                if (!o.csv_only) {
                    std::printf("  %-19s %10ld %12.2f %12.2f %12.2f %12.2f %8.2f %9lld %6d%s\n", m.name, bytes, r.avg,
                                r.min, r.max, r.median, ratio, r.messages, r.rounds, r.correct ? "" : "  WRONG RESULT");
                }
                char line[512];
                std::snprintf(line, sizeof line, "%s,%d,%d,%s,%s,%ld,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%lld,%lld,%d,%d",
                              host, p, oversubscribed ? 1 : 0, o.allreduce ? "allreduce" : "reduce", m.name, bytes, o.root, iterations, r.avg, r.min, r.max,
                              r.median, r.p1, r.p99, ratio, r.messages, r.bytes, r.rounds, r.correct ? 1 : 0);
                csv.emplace_back(line);
            }
        }
    }
    if (me == 0) {
        std::printf("machine,p,oversubscribed,mode,method,bytes,root,iterations,avg_us,min_us,max_us,median_us,p1_us,p99_us,"
                    "ratio_to_mpi,messages,bytes_sent,rounds,correct\n");
        for (const auto& line : csv) {
            std::printf("%s\n", line.c_str());
        }
    }
    MPI_Finalize();
    return 0;
}
