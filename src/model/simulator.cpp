// Discrete-event simulation of allreduce schedules (see include/treefold/model/simulator.hpp).
#include "treefold/model/simulator.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace treefold::model {

namespace {

struct message {
    int from;
    int to;
    int slot; // 1-based position in the sender's multicast
};

/// Advances the clocks through one round of messages (each sender issues its messages in
/// slot order; each receiver handles its arrivals in time order, one per α_r at most).
class engine {
public:
    engine(int p, const params& m, const noise& n)
        : m_(m), n_(n), clock_(static_cast<std::size_t>(p), 0.0), rng_(n.seed), inbox_(static_cast<std::size_t>(p))
    {
    }

    void round(const std::vector<message>& msgs)
    {
        std::vector<int> sent(clock_.size(), 0);
        for (auto& box : inbox_) {
            box.clear();
        }
        for (const message& g : msgs) {
            double transit = m_.alpha_p;
            if (n_.mean > 0) {
                transit += std::exponential_distribution<double>(1.0 / n_.mean)(rng_);
            }
            const double depart = clock_[static_cast<std::size_t>(g.from)] + g.slot * m_.alpha_r;
            inbox_[static_cast<std::size_t>(g.to)].push_back(depart + transit);
            sent[static_cast<std::size_t>(g.from)] = std::max(sent[static_cast<std::size_t>(g.from)], g.slot);
            ++messages_;
        }
        for (std::size_t r = 0; r < clock_.size(); ++r) {
            double end = clock_[r] + sent[r] * m_.alpha_r;
            auto& box = inbox_[r];
            std::sort(box.begin(), box.end());
            double handled = clock_[r] - m_.alpha_r;
            for (const double a : box) {
                handled = std::max(a, handled + m_.alpha_r);
            }
            if (!box.empty()) {
                end = std::max(end, handled);
            }
            clock_[r] = end;
        }
    }

    double time() const { return *std::max_element(clock_.begin(), clock_.end()); }
    std::uint64_t messages() const { return messages_; }

private:
    params m_;
    noise n_;
    std::vector<double> clock_;
    std::mt19937_64 rng_;
    std::vector<std::vector<double>> inbox_;
    std::uint64_t messages_ = 0;
};

} // namespace

simulation simulate(const topology::schedule& s, int p, const params& m, const noise& n)
{
    m.check();
    s.check(p);
    if (!(n.mean >= 0)) {
        throw std::invalid_argument("treefold: simulator noise mean must be >= 0");
    }
    engine e(p, m, n);
    // Every position's part, gathered into the schedule's rounds.
    std::vector<std::vector<message>> rounds(static_cast<std::size_t>(s.rounds()));
    for (int q = 0; q < p; ++q) {
        for (const topology::round_plan& st : topology::rounds_of(s, p, q)) {
            for (std::size_t t = 0; t < st.to.size(); ++t) {
                rounds[static_cast<std::size_t>(st.round)].push_back({q, st.to[t], static_cast<int>(t) + 1});
            }
        }
    }
    for (const auto& msgs : rounds) {
        e.round(msgs);
    }
    return {e.time(), e.messages()};
}

} // namespace treefold::model
