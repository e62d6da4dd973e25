// Conjugate gradients on the 3-D Poisson problem (7-point stencil, zero Dirichlet boundary) on
// an n^3 grid, block-distributed over the ranks: each rank owns a contiguous block of the
// global row index g = i + n (j + n k) (even, or ragged with --split ragged), and the
// matrix-vector product computes each row with the same terms in the same order whatever the
// blocks, so it is p-independent by construction. The only p-dependent step left is the dot
// products; this program solves the same problem with each way of computing them:
//
//   treefold    treefold::dot_reducer (and dots_reducer<2> for --algo cg1): the same bits for any p
//   allreduce   local sums in index order + MPI_Allreduce
//   fastsum     local sums in 8 interleaved partial sums (the reassociation -ffast-math allows)
//               + MPI_Allreduce: irreproducible
//   fastmath    only in perf/'s build of this file (cg_bench): the local dot product of
//               perf/kernel_fastmath_ceiling.cpp, compiled with -O3 -ffast-math (32 partial
//               sums, FMAs) + MPI_Allreduce: THE IRREPRODUCIBLE FAST BASELINE
//
// and three algorithms: cg (two dot products per iteration, each its own reduction), cg1
// (Chronopoulos and Gear's variant: one reduction of two dot products per iteration) and
// pipecg (Ghysels and Vanroose's pipelined CG: that reduction nonblocking, overlapped with the
// matrix-vector product: dots_reducer<2>::iall_reduce, or MPI_Iallreduce).
//
//   mpirun -n 4 cg_poisson --grid 24                 # every variant, one line each
//   mpirun -n 3 cg_poisson --grid 24 --split ragged
//   mpirun -n 2 cg_poisson --bench --grid 32,64,128  # time per iteration, variants interleaved
//
// Each line gives the iterations to the tolerance, an FNV-1a hash of the bits of every residual
// norm of the history and of the solution (gathered in index order), and the final residual.

#include "treefold/dot_reducer.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using index = std::uint64_t;

/// FNV-1a over the bits of doubles.
struct bit_hash {
    std::uint64_t h = 1469598103934665603ULL;
    void add(double v)
    {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        for (int b = 0; b < 8; ++b) {
            h = (h ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ULL;
        }
    }
};

/// One rank's part of the problem: its block of rows, the ghosted range its rows read, and
/// the halo messages that fill it.
struct problem {
    int n = 0;
    index rows = 0;  // n^3
    index plane = 0; // n^2
    int rank = 0;
    int size = 1;
    std::vector<index> starts; // block starts per rank, and rows at the end
    index s = 0, e = 0;        // my block [s, e)
    index lo = 0, hi = 0;      // the rows my rows read: [lo, hi)
    struct range {
        int peer;
        index from, to;
    };
    std::vector<range> recvs, sends;

    index count() const { return e - s; }

    problem(int grid, const std::string& split, MPI_Comm comm)
        : n(grid), rows(index(grid) * index(grid) * index(grid)), plane(index(grid) * index(grid))
    {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        // Block sizes: even (the first rows % p blocks one row longer), or ragged (rank r's
        // block proportional to 1 + (r mod 3): blocks of three different sizes).
        std::vector<index> counts(static_cast<std::size_t>(size));
        if (split == "even") {
            for (int r = 0; r < size; ++r) {
                counts[static_cast<std::size_t>(r)] = rows / index(size) + (index(r) < rows % index(size) ? 1 : 0);
            }
        } else if (split == "ragged") {
            index weights = 0;
            for (int r = 0; r < size; ++r) {
                weights += 1 + index(r % 3);
            }
            index given = 0;
            for (int r = 0; r < size; ++r) {
                counts[static_cast<std::size_t>(r)] = r + 1 == size ? rows - given : rows * (1 + index(r % 3)) / weights;
                given += counts[static_cast<std::size_t>(r)];
            }
        } else {
            throw std::invalid_argument("cg_poisson: --split must be even or ragged, not " + split);
        }
        starts.assign(1, 0);
        for (const index c : counts) {
            starts.push_back(starts.back() + c);
        }
        s = starts[static_cast<std::size_t>(rank)];
        e = starts[static_cast<std::size_t>(rank) + 1];
        auto needs = [&](int r, index& from, index& to) {
            const index rs = starts[static_cast<std::size_t>(r)];
            const index re = starts[static_cast<std::size_t>(r) + 1];
            from = rs >= plane ? rs - plane : 0;
            to = std::min(rows, re + plane);
            if (rs == re) {
                from = to = rs;
            }
        };
        needs(rank, lo, hi);
        for (int q = 0; q < size; ++q) {
            if (q == rank) {
                continue;
            }
            const index qs = starts[static_cast<std::size_t>(q)];
            const index qe = starts[static_cast<std::size_t>(q) + 1];
            // what I read of q's block, and what q reads of mine
            if (std::max(lo, qs) < std::min(hi, qe)) {
                recvs.push_back({q, std::max(lo, qs), std::min(hi, qe)});
            }
            index qlo = 0, qhi = 0;
            needs(q, qlo, qhi);
            if (std::max(qlo, s) < std::min(qhi, e)) {
                sends.push_back({q, std::max(qlo, s), std::min(qhi, e)});
            }
        }
    }

    /// Fills the ghosted copy g[0, hi - lo) of a vector from this rank's part v (count()
    /// values) and the neighbours' parts.
    void halo(std::span<const double> v, std::vector<double>& g, MPI_Comm comm) const
    {
        std::copy(v.begin(), v.end(), g.begin() + static_cast<std::ptrdiff_t>(s - lo));
        std::vector<MPI_Request> reqs;
        reqs.reserve(recvs.size() + sends.size());
        for (const auto& r : recvs) {
            reqs.emplace_back();
            MPI_Irecv(g.data() + (r.from - lo), static_cast<int>(r.to - r.from), MPI_DOUBLE, r.peer, 7, comm, &reqs.back());
        }
        for (const auto& r : sends) {
            reqs.emplace_back();
            MPI_Isend(v.data() + (r.from - s), static_cast<int>(r.to - r.from), MPI_DOUBLE, r.peer, 7, comm, &reqs.back());
        }
        MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    }

    /// out = A v for my rows, from the ghosted g (halo() first). Each row: 6 v_g, then the
    /// neighbours present in the order -x, +x, -y, +y, -z, +z.
    void apply(const std::vector<double>& g, std::span<double> out) const
    {
        const index un = index(n);
        index i = s % un;
        index j = (s / un) % un;
        index k = s / plane;
        for (index row = s; row < e; ++row) {
            const double* c = g.data() + (row - lo);
            double v = 6.0 * c[0];
            if (i > 0) {
                v -= c[-1];
            }
            if (i + 1 < un) {
                v -= c[1];
            }
            if (j > 0) {
                v -= c[-static_cast<std::ptrdiff_t>(un)];
            }
            if (j + 1 < un) {
                v -= c[un];
            }
            if (k > 0) {
                v -= c[-static_cast<std::ptrdiff_t>(plane)];
            }
            if (k + 1 < un) {
                v -= c[plane];
            }
            out[row - s] = v;
            if (++i == un) {
                i = 0;
                if (++j == un) {
                    j = 0;
                    ++k;
                }
            }
        }
    }

    /// This rank's part of the right-hand side (the residual of x = 0).
    std::vector<double> rhs_block() const
    {
        std::vector<double> b(count());
        for (index i = 0; i < count(); ++i) {
            b[i] = rhs(s + i);
        }
        return b;
    }

    /// The right-hand side at global row g: a fixed pseudo-random value in [-0.5, 0.5).
    static double rhs(index g)
    {
        std::uint64_t z = g * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ULL;
        z ^= z >> 29;
        return static_cast<double>(z >> 11) * 0x1p-53 - 0.5;
    }
};

/// Dot products through treefold: one reducer for single dots, one for pairs.
struct treefold_dots {
    treefold::dot_reducer<> one;
    treefold::dots_reducer<2> two;
    treefold_dots(MPI_Comm comm, const treefold::layout::block_layout& layout) : one(comm, layout), two(comm, layout) {}
    double dot(std::span<const double> x, std::span<const double> y) { return one.all_reduce(x, y); }
    std::array<double, 2> dot2(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                               std::span<const double> d)
    {
        return two.all_reduce({treefold::dot_term(a, b), treefold::dot_term(c, d)});
    }
    /// Starts dot2 (iall_reduce); finish2 waits for it. The arrays stay untouched meanwhile.
    void start2(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                std::span<const double> d)
    {
        pending.emplace(two.iall_reduce({treefold::dot_term(a, b), treefold::dot_term(c, d)}));
    }
    std::array<double, 2> finish2()
    {
        const std::array<double, 2> out = pending->wait();
        pending.reset();
        return out;
    }
    std::optional<treefold::request<std::array<double, 2>, std::array<double, 2>>> pending;
};

/// Local sums + MPI_Allreduce; `Local` is the local sum.
template <class Local>
struct mpi_dots {
    MPI_Comm comm;
    mpi_dots(MPI_Comm c, const treefold::layout::block_layout&) : comm(c) {}
    double dot(std::span<const double> x, std::span<const double> y)
    {
        const double mine = Local::sum(x, y);
        double out = 0.0;
        MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
        return out;
    }
    std::array<double, 2> dot2(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                               std::span<const double> d)
    {
        const std::array<double, 2> mine = {Local::sum(a, b), Local::sum(c, d)};
        std::array<double, 2> out{};
        MPI_Allreduce(mine.data(), out.data(), 2, MPI_DOUBLE, MPI_SUM, comm);
        return out;
    }
    /// Starts dot2 (MPI_Iallreduce); finish2 waits for it.
    void start2(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                std::span<const double> d)
    {
        mine = {Local::sum(a, b), Local::sum(c, d)};
        MPI_Iallreduce(mine.data(), sums.data(), 2, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
    std::array<double, 2> finish2()
    {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        return sums;
    }
    std::array<double, 2> mine{}, sums{};
    MPI_Request req = MPI_REQUEST_NULL;
};

#ifdef CG_POISSON_FASTMATH
} // namespace
namespace treefold::perf {
double fastmath_dot(const double* x, const double* y, std::size_t n); // perf/kernel_fastmath_ceiling.cpp
}
namespace {
/// The irreproducible baseline: the -ffast-math local dot product.
struct fastmath_sum {
    static double sum(std::span<const double> x, std::span<const double> y)
    {
        return treefold::perf::fastmath_dot(x.data(), y.data(), x.size());
    }
};
constexpr bool have_fastmath = true;
#else
constexpr bool have_fastmath = false;
#endif

/// The plain local sum, in index order.
struct ordered_sum {
    static double sum(std::span<const double> x, std::span<const double> y)
    {
        double s = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            s += x[i] * y[i];
        }
        return s;
    }
};

/// Eight interleaved partial sums (vectorised by the compiler): what -ffast-math lets a
/// compiler do with the ordered sum. Irreproducible across p, like ordered_sum.
struct interleaved_sum {
    static double sum(std::span<const double> x, std::span<const double> y)
    {
        double acc[8] = {};
        std::size_t i = 0;
        for (; i + 8 <= x.size(); i += 8) {
            for (std::size_t l = 0; l < 8; ++l) {
                acc[l] += x[i + l] * y[i + l];
            }
        }
        for (std::size_t l = 0; i < x.size(); ++i, ++l) {
            acc[l] += x[i] * y[i];
        }
        return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    }
};

struct outcome {
    int iterations = 0;
    std::vector<double> history; // ||r|| after each iteration (||r_0|| first)
    std::vector<double> x;       // this rank's part of the solution
};

/// Conjugate gradients from x = 0: two dot products per iteration (p.Ap, then r.r).
template <class Dots>
outcome cg(const problem& P, Dots& dots, int max_iter, double tol, MPI_Comm comm)
{
    const std::size_t m = P.count();
    std::vector<double> x(m, 0.0), r = P.rhs_block(), p(m), q(m), g(P.hi - P.lo);
    p = r;
    double rr = dots.dot(r, r);
    const double stop = tol * tol * rr;
    outcome out;
    out.history.push_back(std::sqrt(rr));
    while (out.iterations < max_iter && rr > stop) {
        P.halo(p, g, comm);
        P.apply(g, q);
        const double alpha = rr / dots.dot(p, q);
        for (std::size_t i = 0; i < m; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const double rr_next = dots.dot(r, r);
        const double beta = rr_next / rr;
        rr = rr_next;
        for (std::size_t i = 0; i < m; ++i) {
            p[i] = r[i] + beta * p[i];
        }
        ++out.iterations;
        out.history.push_back(std::sqrt(rr));
    }
    out.x = std::move(x);
    return out;
}

/// Chronopoulos and Gear's conjugate gradients: r.r and r.Ar in one reduction per iteration.
template <class Dots>
outcome cg1(const problem& P, Dots& dots, int max_iter, double tol, MPI_Comm comm)
{
    const std::size_t m = P.count();
    std::vector<double> x(m, 0.0), r = P.rhs_block(), w(m), p(m, 0.0), s(m, 0.0), g(P.hi - P.lo);
    P.halo(r, g, comm);
    P.apply(g, w);
    auto [gamma, delta] = dots.dot2(r, r, r, w);
    const double stop = tol * tol * gamma;
    double alpha = gamma / delta;
    double beta = 0.0;
    outcome out;
    out.history.push_back(std::sqrt(gamma));
    while (out.iterations < max_iter && gamma > stop) {
        for (std::size_t i = 0; i < m; ++i) {
            p[i] = r[i] + beta * p[i];
            s[i] = w[i] + beta * s[i];
            x[i] += alpha * p[i];
            r[i] -= alpha * s[i];
        }
        P.halo(r, g, comm);
        P.apply(g, w);
        const auto [gamma_next, delta_next] = dots.dot2(r, r, r, w);
        beta = gamma_next / gamma;
        alpha = gamma_next / (delta_next - beta * gamma_next / alpha);
        gamma = gamma_next;
        ++out.iterations;
        out.history.push_back(std::sqrt(gamma));
    }
    out.x = std::move(x);
    return out;
}

/// Ghysels and Vanroose's pipelined conjugate gradients: the reduction of r.r and w.r
/// (w = A r) is started, the matrix-vector product q = A w runs while it is in flight, then the
/// recurrences update z = A s, s = A p and w without another product.
template <class Dots>
outcome pipecg(const problem& P, Dots& dots, int max_iter, double tol, MPI_Comm comm)
{
    const std::size_t m = P.count();
    std::vector<double> x(m, 0.0), r = P.rhs_block(), w(m), q(m), z(m, 0.0), s(m, 0.0), p(m, 0.0), g(P.hi - P.lo);
    P.halo(r, g, comm);
    P.apply(g, w);
    outcome out;
    double gamma_old = 0.0;
    double alpha_old = 0.0;
    double stop = 0.0;
    for (int it = 0;; ++it) {
        dots.start2(r, r, w, r);
        P.halo(w, g, comm); // overlaps the reduction
        P.apply(g, q);
        const auto [gamma, delta] = dots.finish2();
        out.history.push_back(std::sqrt(gamma));
        stop = it == 0 ? tol * tol * gamma : stop;
        if (it >= max_iter || gamma <= stop) {
            break;
        }
        const double beta = it > 0 ? gamma / gamma_old : 0.0;
        const double alpha = it > 0 ? gamma / (delta - beta * gamma / alpha_old) : gamma / delta;
        for (std::size_t i = 0; i < m; ++i) {
            z[i] = q[i] + beta * z[i];
            s[i] = w[i] + beta * s[i];
            p[i] = r[i] + beta * p[i];
            x[i] += alpha * p[i];
            r[i] -= alpha * s[i];
            w[i] -= alpha * z[i];
        }
        gamma_old = gamma;
        alpha_old = alpha;
        ++out.iterations;
    }
    out.x = std::move(x);
    return out;
}

/// The hash of the solution's bits in global index order (on rank 0; 0 elsewhere).
std::uint64_t solution_hash(const problem& P, const std::vector<double>& x, MPI_Comm comm)
{
    std::vector<int> counts, displs;
    std::vector<double> all;
    if (P.rank == 0) {
        for (int r = 0; r < P.size; ++r) {
            counts.push_back(static_cast<int>(P.starts[static_cast<std::size_t>(r) + 1] - P.starts[static_cast<std::size_t>(r)]));
            displs.push_back(static_cast<int>(P.starts[static_cast<std::size_t>(r)]));
        }
        all.resize(P.rows);
    }
    MPI_Gatherv(x.data(), static_cast<int>(x.size()), MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                comm);
    bit_hash h;
    for (const double v : all) {
        h.add(v);
    }
    return P.rank == 0 ? h.h : 0;
}

struct options {
    std::vector<int> grids = {16};
    std::string split = "even";
    std::vector<std::string> dots = {"treefold", "allreduce", "fastsum"};
    std::vector<std::string> algos = {"cg", "cg1", "pipecg"};
    double tol = 1e-10;
    int max_iter = 1000;
    bool bench = false;
    int bench_iters = 20;
    int reps = 5;
};

std::vector<std::string> split_list(const std::string& s)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

options parse(int argc, char** argv)
{
    options o;
    if (have_fastmath) {
        o.dots.push_back("fastmath");
    }
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw std::invalid_argument("cg_poisson: " + a + " needs a value");
            }
            return argv[++i];
        };
        if (a == "--grid") {
            o.grids.clear();
            for (const auto& g : split_list(value())) {
                o.grids.push_back(std::stoi(g));
            }
        } else if (a == "--split") {
            o.split = value();
        } else if (a == "--dots") {
            o.dots = split_list(value());
        } else if (a == "--algo") {
            o.algos = split_list(value());
        } else if (a == "--tol") {
            o.tol = std::stod(value());
        } else if (a == "--max-iter") {
            o.max_iter = std::stoi(value());
        } else if (a == "--bench") {
            o.bench = true;
        } else if (a == "--iters") {
            o.bench_iters = std::stoi(value());
        } else if (a == "--reps") {
            o.reps = std::stoi(value());
        } else {
            throw std::invalid_argument("cg_poisson: unknown option " + a +
                                        " (--grid N[,N..] --split even|ragged --dots treefold,allreduce,fastsum "
                                        "--algo cg,cg1,pipecg --tol T --max-iter K --bench --iters K --reps R)");
        }
    }
    for (const int g : o.grids) {
        if (g < 2) {
            throw std::invalid_argument("cg_poisson: --grid must be at least 2");
        }
    }
    for (const auto& d : o.dots) {
        if (d != "treefold" && d != "allreduce" && d != "fastsum" && (d != "fastmath" || !have_fastmath)) {
            throw std::invalid_argument("cg_poisson: unknown --dots " + d);
        }
    }
    for (const auto& a : o.algos) {
        if (a != "cg" && a != "cg1" && a != "pipecg") {
            throw std::invalid_argument("cg_poisson: unknown --algo " + a);
        }
    }
    return o;
}

/// f(dots) with the variant named `name`, planned for P's blocks.
template <class F>
void with_dots(const std::string& name, const problem& P, MPI_Comm comm, F&& f)
{
    std::vector<treefold::layout::index_t> counts;
    for (int r = 0; r < P.size; ++r) {
        counts.push_back(P.starts[static_cast<std::size_t>(r) + 1] - P.starts[static_cast<std::size_t>(r)]);
    }
    const auto layout = treefold::layout::block_layout::from_counts(counts);
    if (name == "treefold") {
        treefold_dots d(comm, layout);
        f(d);
    } else if (name == "allreduce") {
        mpi_dots<ordered_sum> d(comm, layout);
        f(d);
    } else if (name == "fastsum") {
        mpi_dots<interleaved_sum> d(comm, layout);
        f(d);
    } else {
#ifdef CG_POISSON_FASTMATH
        mpi_dots<fastmath_sum> d(comm, layout);
        f(d);
#endif
    }
}

template <class Dots>
outcome solve(const std::string& algo, const problem& P, Dots& dots, int max_iter, double tol, MPI_Comm comm)
{
    if (algo == "pipecg") {
        return pipecg(P, dots, max_iter, tol, comm);
    }
    return algo == "cg" ? cg(P, dots, max_iter, tol, comm) : cg1(P, dots, max_iter, tol, comm);
}

void run_solves(const options& o, MPI_Comm comm)
{
    for (const int grid : o.grids) {
        const problem P(grid, o.split, comm);
        for (const auto& algo : o.algos) {
            for (const auto& name : o.dots) {
                with_dots(name, P, comm, [&](auto& dots) {
                    const outcome out = solve(algo, P, dots, o.max_iter, o.tol, comm);
                    bit_hash h;
                    for (const double v : out.history) {
                        h.add(v);
                    }
                    const std::uint64_t xs = solution_hash(P, out.x, comm);
                    if (P.rank == 0) {
                        std::printf("cg dots=%s algo=%s grid=%d p=%d split=%s iterations=%d residual_bits=%016llx "
                                    "solution_bits=%016llx relres=%.6e\n",
                                    name.c_str(), algo.c_str(), grid, P.size, o.split.c_str(), out.iterations,
                                    static_cast<unsigned long long>(h.h), static_cast<unsigned long long>(xs),
                                    out.history.back() / out.history.front());
                    }
                });
            }
        }
    }
}

/// Time per iteration of each variant: `reps` rounds, each running every variant for
/// `bench_iters` iterations in turn (interleaved, so load on the machine hits all alike); the
/// median round per variant.
void run_bench(const options& o, MPI_Comm comm)
{
    for (const int grid : o.grids) {
        const problem P(grid, o.split, comm);
        for (const auto& algo : o.algos) {
            std::vector<std::vector<double>> times(o.dots.size()), dot_times(o.dots.size());
            // The dot products alone, as the algorithm makes them per iteration (two single ones,
            // or one pair), on vectors of this rank's length.
            std::vector<double> a(P.count()), b(P.count());
            for (std::size_t i = 0; i < a.size(); ++i) {
                a[i] = problem::rhs(P.s + i);
                b[i] = problem::rhs(P.rows + P.s + i);
            }
            for (int rep = 0; rep < o.reps + 1; ++rep) { // round 0 warms up
                for (std::size_t v = 0; v < o.dots.size(); ++v) {
                    with_dots(o.dots[v], P, comm, [&](auto& dots) {
                        MPI_Barrier(comm);
                        const double t0 = MPI_Wtime();
                        const outcome out = solve(algo, P, dots, o.bench_iters, 0.0, comm);
                        double t = (MPI_Wtime() - t0) / std::max(1, out.iterations);
                        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
                        MPI_Barrier(comm);
                        const double t1 = MPI_Wtime();
                        double sink = 0.0;
                        for (int it = 0; it < o.bench_iters; ++it) {
                            if (algo == "cg") {
                                sink += dots.dot(a, b) + dots.dot(b, b);
                            } else if (algo == "pipecg") {
                                dots.start2(a, a, a, b);
                                const auto two = dots.finish2();
                                sink += two[0] + two[1];
                            } else {
                                const auto two = dots.dot2(a, a, a, b);
                                sink += two[0] + two[1];
                            }
                        }
                        double td = (MPI_Wtime() - t1) / std::max(1, o.bench_iters);
                        MPI_Allreduce(MPI_IN_PLACE, &td, 1, MPI_DOUBLE, MPI_MAX, comm);
                        if (rep > 0) {
                            times[v].push_back(t);
                            dot_times[v].push_back(td + 0.0 * sink);
                        }
                    });
                }
            }
            if (P.rank == 0) {
                auto median = [](std::vector<double> t) {
                    std::sort(t.begin(), t.end());
                    return t[t.size() / 2];
                };
                double base = 0.0;
                double dot_base = 0.0;
                for (std::size_t v = 0; v < o.dots.size(); ++v) {
                    if (o.dots[v] == "allreduce") {
                        base = median(times[v]);
                        dot_base = median(dot_times[v]);
                    }
                }
                for (std::size_t v = 0; v < o.dots.size(); ++v) {
                    const double med = median(times[v]);
                    const double dot_med = median(dot_times[v]);
                    std::printf("bench grid=%d p=%d algo=%s dots=%s us_per_iter=%.1f dots_us_per_iter=%.2f", grid, P.size,
                                algo.c_str(), o.dots[v].c_str(), med * 1e6, dot_med * 1e6);
                    if (base > 0.0) {
                        std::printf(" iter_vs_allreduce=%.3f dots_vs_allreduce=%.3f", med / base, dot_med / dot_base);
                    }
                    std::printf("\n");
                }
            }
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rc = 0;
    try {
        const options o = parse(argc, argv);
        if (o.bench) {
            run_bench(o, MPI_COMM_WORLD);
        } else {
            run_solves(o, MPI_COMM_WORLD);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
