#pragma once
/// exchange::automatic: the exchange that is fastest here for this (N, p, T), chosen once per
/// plan. Every candidate gives the same bits, so the choice changes only the time.
///
/// The choice, made collectively when the plan is built:
/// 1. TREEFOLD_EXCHANGE=NAME in the environment forces one of `automatic_candidates`
///    (for experiments; it must be the same on every rank, else every rank throws).
/// 2. Otherwise the choice TREEFOLD_CALIBRATION's file holds for this (p, ceil(log2 N),
///    sizeof(T)), if any (written by `treefold calibrate`; readable on every rank, or every
///    rank throws).
/// 3. Otherwise a short calibration times each candidate's whole all_reduce (exchange and
///    result broadcast, without the local kernel and without calling the user's operator)
///    on the plan's own communicator and layout (above 2^16 values on some rank, on an even
///    layout of 2^16 values per rank instead: the messages depend on N only through its
///    frontiers, of O(log N) values): 4 warm-up and 25 timed rounds, candidates
///    interleaved, each round after a barrier; the candidate with the smallest median of the
///    slowest rank wins. The choice is cached per (p, ceil(log2 N), sizeof(T)) for the process,
///    and a cached choice is used only when every rank has it (rank 0's value is taken).
/// On one rank, or for N = 0, the tree exchange is taken without calibration.

#include "treefold/config.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/exchange/outcome.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/timer.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

namespace treefold::exchange {

/// The exchanges automatic chooses from (their by_name spellings), in variant order.
/// The scheduled candidate is the schedule the size-aware model picks for the plan's frontier
/// messages (recursive doubling at p = 2 and for small frontiers; fewer, larger rounds past
/// the eager limit).
inline constexpr std::array<std::string_view, 5> automatic_candidates{"native", "binomial", "direct", "dual4",
                                                                        "schedule_best_sized"};

namespace detail {

/// A kernel for calibration runs: every node is a default-constructed value (no data read).
struct calibration_kernel {
    template <class T, class Op>
    static T reduce_node(const T* /*first*/, std::uint64_t /*len*/, Op& /*op*/)
    {
        return T{};
    }
};

/// Choices made by calibration in this process: (p, ceil(log2 N), sizeof(T)) -> candidate.
inline std::map<std::tuple<int, unsigned, std::size_t>, int>& calibrated_choices()
{
    static std::map<std::tuple<int, unsigned, std::size_t>, int> choices;
    return choices;
}
inline std::mutex& calibrated_choices_lock()
{
    static std::mutex m;
    return m;
}

/// The candidate named `name`, or -1.
inline int candidate_index(std::string_view name)
{
    const auto at = std::find(automatic_candidates.begin(), automatic_candidates.end(), name);
    return at == automatic_candidates.end() ? -1 : static_cast<int>(at - automatic_candidates.begin());
}

/// Adds the choices of the file TREEFOLD_CALIBRATION names (written by `treefold calibrate`:
/// lines "p level bytes exchange", '#' starts a comment line) to the cache, once per path;
/// they replace choices calibrated before. False when the file cannot be read or a line is
/// not of that form.
inline bool load_calibration_file()
{
    const char* path = std::getenv("TREEFOLD_CALIBRATION");
    if (path == nullptr || *path == '\0') {
        return true;
    }
    static std::string loaded; // guarded by calibrated_choices_lock()
    const std::lock_guard<std::mutex> lock(calibrated_choices_lock());
    if (loaded == path) {
        return true;
    }
    // Only a regular file: opening a FIFO would block every rank (POSIX stat, no <filesystem>).
    struct stat status {};
    if (::stat(path, &status) != 0 || !S_ISREG(status.st_mode)) {
        return false;
    }
    std::ifstream in(path);
    std::map<std::tuple<int, unsigned, std::size_t>, int> entries;
    std::string line;
    while (in && std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream fields(line);
        int p = 0;
        unsigned level = 0;
        std::size_t bytes = 0;
        std::string name;
        std::string extra;
        if (!(fields >> p >> level >> bytes >> name) || (fields >> extra) || candidate_index(name) < 0) {
            return false;
        }
        entries[{p, level, bytes}] = candidate_index(name);
    }
    if (!in.eof()) {
        return false; // not opened, or a read error
    }
    for (const auto& [key, choice] : entries) {
        calibrated_choices()[key] = choice;
    }
    loaded = path;
    return true;
}

/// Forgets every cached choice (`treefold calibrate` measures afresh).
inline void forget_calibration()
{
    const std::lock_guard<std::mutex> lock(calibrated_choices_lock());
    calibrated_choices().clear();
}

/// The candidate TREEFOLD_EXCHANGE names on this rank: -1 when unset, -2 when unknown.
inline int forced_candidate()
{
    const char* e = std::getenv("TREEFOLD_EXCHANGE");
    if (e == nullptr || *e == '\0') {
        return -1;
    }
    const int at = candidate_index(e);
    return at < 0 ? -2 : at;
}

} // namespace detail

/// Exchange policy: the fastest candidate for this plan (see the file comment).
struct automatic {
    static constexpr const char* name = "automatic";

    template <class T>
    class plan {
    public:
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        {
            choice_ = choose(comm, layout);
            emplace(choice_, comm, layout);
        }

        /// The chosen candidate's name (an entry of automatic_candidates).
        std::string_view choice() const { return automatic_candidates[static_cast<std::size_t>(choice_)]; }
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
        int finisher() const
        {
            return visit([](const auto& p) { return p.finisher(); });
        }

        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, std::optional<failure> failed, net::counters& count,
                       std::exception_ptr& own_error)
        {
            return visit([&](auto& p) { return p.template run<Kernel>(local, op, failed, count, own_error); });
        }

    private:
        // Alternative i + 1 is candidate i (native falls back to a tree for serialised T, so
        // two alternatives may have one type: hence access by index).
        using variant = std::variant<std::monostate, native::plan<T>, tree<>::plan<T>, direct::plan<T>,
                                     typename tree<topology::m_ary<4>, result_broadcast::mpi>::template plan<T>,
                                     typename scheduled<schedules::best_sized>::template plan<T>>;

        template <class F>
        decltype(auto) visit(F&& f) const
        {
            return const_cast<plan*>(this)->visit(std::forward<F>(f));
        }
        template <class F>
        decltype(auto) visit(F&& f)
        {
            switch (impl_.index()) {
            case 1:
                return f(std::get<1>(impl_));
            case 2:
                return f(std::get<2>(impl_));
            case 3:
                return f(std::get<3>(impl_));
            case 4:
                return f(std::get<4>(impl_));
            default:
                return f(std::get<5>(impl_));
            }
        }

        void emplace(int which, const boost::mpi::communicator& comm, const layout::block_layout& layout)
        {
            switch (which) {
            case 0:
                impl_.template emplace<1>(comm, layout);
                break;
            case 1:
                impl_.template emplace<2>(comm, layout);
                break;
            case 2:
                impl_.template emplace<3>(comm, layout);
                break;
            case 3:
                impl_.template emplace<4>(comm, layout);
                break;
            default:
                impl_.template emplace<5>(comm, layout);
                break;
            }
        }

        static int choose(const boost::mpi::communicator& comm, const layout::block_layout& layout)
        {
            namespace mpi = boost::mpi;
            // Agree on the forced choice (equal on every rank, and known) and on the
            // calibration file (readable on every rank): -3 marks a file that is not.
            const int forced = detail::load_calibration_file() ? detail::forced_candidate() : -3;
            const std::pair<int, int> mine{forced, -forced};
            std::pair<int, int> range{};
            mpi::all_reduce(comm, mine, range, [](const std::pair<int, int>& a, const std::pair<int, int>& b) {
                return std::pair<int, int>{std::min(a.first, b.first), std::min(a.second, b.second)};
            });
            if (range.first == -3) {
                throw std::invalid_argument("treefold: TREEFOLD_CALIBRATION names a file that cannot be read, or "
                                            "holds a line other than 'p level bytes exchange', on some rank");
            }
            if (range.first != -range.second) {
                throw std::invalid_argument("treefold: TREEFOLD_EXCHANGE differs between ranks");
            }
            if (range.first == -2) {
                std::string names;
                for (const auto n : automatic_candidates) {
                    names += (names.empty() ? "" : ", ") + std::string(n);
                }
                throw std::invalid_argument("treefold: TREEFOLD_EXCHANGE names no exchange automatic can choose (" +
                                            names + ")");
            }
            if (range.first >= 0) {
                return range.first;
            }
            if (comm.size() == 1 || layout.size() == 0) {
                return 1; // nothing to exchange (or no call can succeed): no calibration
            }
            const auto key = std::make_tuple(comm.size(), treefold::tree::root_level(layout.size()),
                                             std::is_trivially_copyable_v<T> ? sizeof(T) : 0);
            int cached = -1;
            {
                const std::lock_guard<std::mutex> lock(detail::calibrated_choices_lock());
                const auto& choices = detail::calibrated_choices();
                if (const auto it = choices.find(key); it != choices.end()) {
                    cached = it->second;
                }
            }
            // Use a cached choice only when every rank has one, and then rank 0's.
            std::pair<int, int> agreed{cached < 0 ? 0 : 1, cached};
            mpi::broadcast(comm, agreed.second, 0);
            agreed.first = mpi::all_reduce(comm, agreed.first, mpi::minimum<int>());
            int choice = agreed.first == 1 ? agreed.second : calibrate(comm, layout);
            const std::lock_guard<std::mutex> lock(detail::calibrated_choices_lock());
            detail::calibrated_choices()[key] = choice;
            return choice;
        }

        /// Times every candidate's all_reduce (see the file comment); the same result on every rank.
        static int calibrate(const boost::mpi::communicator& comm, const layout::block_layout& real)
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
            for (std::size_t c = 0; c < automatic_candidates.size(); ++c) {
                plans.push_back(std::unique_ptr<plan>(new plan(comm, l, static_cast<int>(c))));
            }
            // noexcept, like the built-in operators: an operator that may throw makes native and
            // the schedule agree on failure after each call, which is not the common case timed.
            auto keep_left = [](const T& a, const T&) noexcept { return a; };
            constexpr int warm = 4;
            constexpr int timed = 25;
            std::vector<std::vector<double>> times(plans.size());
            for (int round = 0; round < warm + timed; ++round) {
                for (std::size_t c = 0; c < plans.size(); ++c) {
                    net::counters count;
                    std::exception_ptr own_error;
                    comm.barrier();
                    const mpi::timer clock;
                    plans[c]->template calibration_call<detail::calibration_kernel>(comm, zeros.data(), keep_left,
                                                                                    count, own_error);
                    if (round >= warm) {
                        times[c].push_back(clock.elapsed());
                    }
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
            return static_cast<int>(std::min_element(slowest.begin(), slowest.end()) - slowest.begin());
        }

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
            std::optional<failure> none; // a named empty optional: g++ 12 misreads a nullopt temporary here
            outcome<T> out = run<Kernel>(local, op, none, count, own_error);
            share_result(*this, comm, out, count);
        }

        int choice_ = 0;
        variant impl_;
    };
};

} // namespace treefold::exchange
