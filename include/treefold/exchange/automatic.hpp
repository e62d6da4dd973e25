#pragma once
/// exchange::automatic: the exchange that is fastest here for this (N, p, T), chosen once per
/// plan. Every candidate gives the same bits, so the choice changes only the time.
///
/// The choice, made collectively when the plan is built:
/// 1. TREEFOLD_EXCHANGE=NAME in the environment (or a C context's "exchange" option) forces
///    one of `automatic_candidates` (it must be the same on every rank, else every rank throws).
///    The candidates are core exchanges only: native, binomial, direct, dual4, schedule_rd.
/// 2. Otherwise the choice TREEFOLD_CALIBRATION's file holds for this (p, ceil(log2 N),
///    sizeof(T)), if any (written by `treefold calibrate`, which names the MPI library it timed:
///    readable on every rank, and of this MPI library, or every rank throws).
/// 3. Otherwise a short calibration times each candidate's whole all_reduce (exchange and
///    result broadcast, without the local kernel and without calling the user's operator)
///    on the plan's own communicator and layout (above 2^16 values on some rank, on an even
///    layout of 2^16 values per rank instead: the messages depend on N only through its
///    frontiers, of O(log N) values): 2 warm-up and 15 timed rounds, candidates
///    interleaved; a sample is as many calls back to back after a barrier as fill 16 µs, at
///    most 16, by the warm-up's slowest call (one short call after a barrier times the
///    barrier's uneven exit more than the exchange: doc/performance.md, automatic's regret;
///    a long call, as on an oversubscribed node, needs no more than one);
///    of the candidates whose median on the slowest rank is within 3 % of the least
///    (choice_tolerance), the first in `automatic_candidates` (simplest first) wins, so noise
///    between near-equal candidates does not decide. The choice is cached per (p,
///    ceil(log2 N), sizeof(T)) for the process, and a cached choice is used only when every
///    rank has it (rank 0's value is taken).
/// On one rank, or for N = 0, the tree exchange is taken without calibration; for a type with
/// its own codec (row_reducer's rows), the direct exchange.

#include "treefold/concepts.hpp"
#include "treefold/config.hpp"
#include "treefold/exchange/executor.hpp"
#include "treefold/exchange/list.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/timer.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

// exchange::automatic's process-wide state, compiled into the library (src/exchange/
// automatic_choice.cpp): the environment override, the calibration file and the cache of
// choices. Not API.
namespace treefold::exchange::detail {

/// What a calibrated choice is kept under: (p, ceil(log2 N), sizeof(T), 0 for serialised T).
struct choice_key {
    int p = 0;
    unsigned level = 0;
    std::size_t bytes = 0;
};

/// The candidate forced on this rank (an index into `names`): the one a forced_choice_scope of
/// this thread names, else the one TREEFOLD_EXCHANGE names; -1 when neither is set, -2 when the
/// name is no candidate.
int forced_candidate(std::span<const std::string_view> names);

/// While alive, the plans of exchange::automatic built on this thread take `name` as if
/// TREEFOLD_EXCHANGE said so (the C API's per-context exchange option); an empty name forces
/// nothing. Scopes do not nest.
class forced_choice_scope {
public:
    explicit forced_choice_scope(std::string_view name);
    ~forced_choice_scope();
    forced_choice_scope(const forced_choice_scope&) = delete;
    forced_choice_scope& operator=(const forced_choice_scope&) = delete;
};

/// The MPI library this process runs, as calibration files name it: the first line of
/// MPI_Get_library_version with its blanks collapsed.
std::string mpi_library();

/// Adds the choices of the file TREEFOLD_CALIBRATION names (written by `treefold calibrate`:
/// lines "p level bytes exchange", '#' starts a comment line, and a line "mpi LIBRARY" naming
/// the MPI library it was timed under) to the cache, once per path; they replace choices
/// calibrated before. False when the file cannot be read, is not a regular file, holds a line
/// not of that form or naming no candidate, or names another MPI library than mpi_library().
bool load_calibration_file(std::span<const std::string_view> names);

/// The cached choice for `key` on this rank, or -1.
int cached_choice(const choice_key& key);
/// Caches `choice` for `key`.
void remember_choice(const choice_key& key, int choice);
/// Forgets every cached choice (`treefold calibrate` measures afresh).
void forget_calibration();

} // namespace treefold::exchange::detail

namespace treefold::exchange {

/// The exchanges automatic chooses from, by their registry names, simplest first: core
/// exchanges only, so a program whose reducers use automatic links no component. The
/// candidates other than native run the schedules exchange::core_schedule makes inside the
/// library; exchange/registry.hpp lists their types (automatic_candidate_types) and checks
/// the names.
struct automatic_candidates {
    /// The names, in order.
    static constexpr std::array<std::string_view, 5> names{"native", "binomial", "direct", "dual4", "schedule_rd"};
    /// The number of candidates.
    static constexpr std::size_t size = names.size();
};

namespace detail {

/// A kernel for calibration runs: every node is a default-constructed value (no data read).
struct calibration_kernel {
    template <class T, class Op>
    static T reduce_node(const T* /*first*/, std::uint64_t /*len*/, Op& /*op*/)
    {
        return T{};
    }
};

/// The first of `times` (candidates listed simplest first) within `tolerance` of the least:
/// a candidate that wins by less than the timing noise is not worth its complexity, and a
/// noisy contest between near-equal candidates then settles on the same one every time.
inline int simplest_within(const std::vector<double>& times, double tolerance)
{
    const double least = *std::min_element(times.begin(), times.end());
    for (std::size_t c = 0; c < times.size(); ++c) {
        if (times[c] <= least * (1.0 + tolerance)) {
            return static_cast<int>(c);
        }
    }
    return 0; // not reached: the least is within any tolerance >= 0 of itself
}

/// Calls per calibration sample, from the slowest warm-up call (seconds, agreed by every rank):
/// as many as fill 16 µs, at least 1 and at most 16 (see the file comment).
inline int calibration_batch(double slowest_call)
{
    constexpr double sample_seconds = 16e-6;
    constexpr double most = 16;
    return slowest_call > 0 ? std::max(1, static_cast<int>(std::min(most, sample_seconds / slowest_call)))
                            : static_cast<int>(most);
}

/// The value size whose calibration libtreefold.a holds compiled, for a T that travels as
/// raw bytes with that size and alignment (4 or 8: float, int32, double, int64, ...), else 0.
/// The calibration reads no value and calls no operator, so its messages are those of any
/// type of that size and alignment.
template <class T>
inline constexpr std::size_t stand_in_bytes =
    net::codec<T>::raw && (sizeof(T) == 4 || sizeof(T) == 8) && alignof(T) == sizeof(T) ? sizeof(T) : 0;

/// The choice of automatic::plan<T> where it needs no calibration (collective; the same on
/// every rank): the forced one (TREEFOLD_EXCHANGE, the calibration file), the tree on one rank
/// or N = 0, direct for a type with its own codec, a choice cached under `key` on every rank;
/// -1 where the candidates must be timed. Throws on every rank for a forced choice or a
/// calibration file that is not usable (src/exchange/automatic.cpp).
int settled_choice(const boost::mpi::communicator& comm, const layout::block_layout& layout, bool own_codec,
                   const choice_key& key);

/// automatic::plan<T>::calibrate for the T of stand_in_bytes<T> == `bytes` (src/exchange/automatic.cpp).
int calibrate_stand_in(const boost::mpi::communicator& comm, const layout::block_layout& layout, std::size_t bytes);

} // namespace detail

/// Exchange policy: the fastest candidate for this plan (see the file comment).
struct automatic {
    /// A candidate this much slower than the fastest (relative, in the calibration's medians)
    /// still wins if it comes earlier in automatic_candidates (simpler first).
    static constexpr double choice_tolerance = 0.03;
    /// The exchange's name (the C API's "exchange" option).
    static constexpr const char* name = "automatic";

    /// The plan of the candidate chosen for this communicator and layout.
    template <class T>
    class plan {
    public:
        /// Chooses a candidate (forced, from the calibration file, cached, or timed: see the
        /// file comment) and plans it. Collective over `comm`.
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        {
            choice_ = choose(comm, layout);
            emplace(choice_, comm, layout);
        }

        /// The chosen candidate's name (one of automatic_candidates::names).
        std::string_view choice() const { return automatic_candidates::names[static_cast<std::size_t>(choice_)]; }
        /// Whether every rank ends with the result (the native exchange for raw T, the schedule).
        bool result_everywhere() const
        {
            return visit([](const auto& p) { return exchange::result_everywhere(p); });
        }
        /// Whether the chosen candidate sends the result out through MPI_Bcast.
        bool broadcast_by_mpi() const
        {
            return visit([](const auto& p) { return broadcasts_by_mpi(p); });
        }
        /// The rank that ends with the result (the chosen candidate's finisher()).
        int finisher() const
        {
            return visit([](const auto& p) { return p.finisher(); });
        }

        /// Whether the chosen candidate is an executor alone on one rank (executor::alone).
        bool alone() const
        {
            return visit([](const auto& p) {
                if constexpr (requires { p.alone(); }) {
                    return p.alone();
                } else {
                    return false;
                }
            });
        }

        /// Runs the chosen candidate's exchange; same contract as direct::plan::run.
        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, maybe_failure failed, net::counters& count,
                       std::exception_ptr& own_error)
        {
            return visit([&](auto& p) { return p.template run<Kernel>(local, op, failed, count, own_error); });
        }

    private:
        // The native plan (raw T only: other T run native's schedule) or the executor of a
        // candidate's schedule: two plan types for five candidates.
        using variant = std::conditional_t<std::is_trivially_copyable_v<T>,
                                           std::variant<std::monostate, native_plan<T>, executor<T>>,
                                           std::variant<std::monostate, executor<T>>>;

        template <class F>
        decltype(auto) visit(F&& f) const
        {
            return const_cast<plan*>(this)->visit(std::forward<F>(f));
        }
        template <class F>
        decltype(auto) visit(F&& f)
        {
            if constexpr (std::is_trivially_copyable_v<T>) {
                if (impl_.index() == 1) {
                    return f(std::get<1>(impl_));
                }
            }
            return f(std::get<executor<T>>(impl_));
        }

        /// Builds candidate `which` (0-based) in place.
        void emplace(int which, const boost::mpi::communicator& comm, const layout::block_layout& layout)
        {
            if constexpr (std::is_trivially_copyable_v<T>) {
                if (which == 0) {
                    impl_.template emplace<native_plan<T>>(comm, layout);
                    return;
                }
            }
            // (native for T that is not raw: its fallback, the binomial tree)
            const std::string_view name = automatic_candidates::names[static_cast<std::size_t>(which == 0 ? 1 : which)];
            impl_.template emplace<executor<T>>(comm, core_schedule(name, layout, comm.rank()));
        }

        static int choose(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        {
            const detail::choice_key key{comm.size(), index_tree::root_level(layout.size()),
                                         std::is_trivially_copyable_v<T> ? sizeof(T) : 0};
            const int settled = detail::settled_choice(comm, layout, has_own_codec<T>::value, key);
            if (settled >= 0) {
                return settled;
            }
            const int choice = calibrate(comm, layout);
            detail::remember_choice(key, choice);
            return choice;
        }

        /// Times every candidate's all_reduce (see the file comment); the same result on every
        /// rank. For a T that travels as the bytes of a stand-in (detail::stand_in_bytes) the
        /// library's compiled calibration of the stand-in runs instead.
        static int calibrate(const boost::mpi::communicator& comm, const layout::block_layout& real)
        {
            if constexpr (detail::stand_in_bytes<T> != 0) {
                return detail::calibrate_stand_in(comm, real, detail::stand_in_bytes<T>);
            } else {
                return calibrate_typed(comm, real);
            }
        }

    public:
        /// calibrate() on T itself (called for the stand-ins by src/exchange/automatic.cpp).
        static int calibrate_typed(const boost::mpi::communicator& comm, const layout::block_layout& real)
        {
            namespace mpi = boost::mpi;
            constexpr std::uint64_t most = std::uint64_t{1} << 16;
            std::uint64_t largest = 0;
            for (int r = 0; r < real.ranks(); ++r) {
                largest = std::max(largest, real.block_of(r).count);
            }
            const layout::block_layout stand_in = layout::block_layout::from_counts(
                layout::even_lower(most * static_cast<std::uint64_t>(comm.size()), comm.size()));
            const layout::block_layout& l = largest <= most ? real : stand_in;
            const std::vector<T> zeros(l.block_of(comm.rank()).count);
            std::vector<std::unique_ptr<plan>> plans;
            for (std::size_t c = 0; c < automatic_candidates::size; ++c) {
                plans.push_back(std::unique_ptr<plan>(new plan(comm, l, static_cast<int>(c))));
            }
            // noexcept, like the built-in operators: an operator that may throw makes native and
            // the schedule agree on failure after each call, which is not the common case timed.
            auto keep_left = [](const T& a, const T&) noexcept { return a; };
            constexpr int warm = 2;
            constexpr int timed = 15;
            int batch = 1; // calls per sample: 1 in the warm-up, then detail::calibration_batch
            double warm_call = 0;
            std::vector<std::vector<double>> times(plans.size());
            for (int round = 0; round < warm + timed; ++round) {
                for (std::size_t c = 0; c < plans.size(); ++c) {
                    net::counters count;
                    std::exception_ptr own_error;
                    comm.barrier();
                    const mpi::timer clock;
                    for (int k = 0; k < batch; ++k) {
                        plans[c]->template calibration_call<detail::calibration_kernel>(comm, zeros.data(), keep_left,
                                                                                        count, own_error);
                    }
                    const double per_call = clock.elapsed() / batch;
                    if (round >= warm) {
                        times[c].push_back(per_call);
                    } else if (round == warm - 1) {
                        warm_call = std::max(warm_call, per_call);
                    }
                }
                if (round == warm - 1) {
                    warm_call = mpi::all_reduce(comm, warm_call, mpi::maximum<double>());
                    batch = detail::calibration_batch(warm_call);
                }
            }
            std::vector<double> medians;
            for (auto& t : times) {
                std::nth_element(t.begin(), t.begin() + timed / 2, t.end());
                medians.push_back(t[timed / 2]);
            }
            std::vector<double> slowest(medians.size());
            mpi::all_reduce(comm, medians.data(), static_cast<int>(medians.size()), slowest.data(),
                            mpi::maximum<double>());
            return detail::simplest_within(slowest, choice_tolerance);
        }

    private:
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout, int which) : choice_(which)
        {
            emplace(which, comm, layout);
        }

        /// One all_reduce as reduction_core runs it: the exchange, then the broadcast where
        /// the result is not already everywhere.
        template <class Kernel, class Op>
        void calibration_call(const boost::mpi::communicator& comm, const T* local, Op& op, net::counters& count,
                              std::exception_ptr& own_error)
        {
            maybe_failure none; // a named empty optional: g++ 12 misreads a nullopt temporary here
            outcome<T> out = run<Kernel>(local, op, none, count, own_error);
            share_result(*this, comm, out, count);
        }

        int choice_ = 0;
        variant impl_;
    };
};

} // namespace treefold::exchange
