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
    const std::vector<int> starts = s.segment_starts(p);
    auto start = [&starts](int i) { return starts[static_cast<std::size_t>(i)]; };
    const int segments = static_cast<int>(starts.size()) - 1;
    // The fold: every segment's other ranks send to its first rank, which answers them in turn.
    std::vector<message> fold;
    std::vector<message> unfold;
    for (int i = 0; i < segments; ++i) {
        for (int q = start(i) + 1; q < start(i + 1); ++q) {
            fold.push_back({q, start(i), 1});
            unfold.push_back({start(i), q, q - start(i)});
        }
    }
    const bool folded = s.fold() != topology::schedule::fold_kind::none;
    if (folded) {
        e.round(fold);
    }
    int stride = 1;
    std::vector<message> msgs;
    for (const int f : s.factors()) {
        msgs.clear();
        for (int a = 0; a < segments; ++a) {
            const int digit = (a / stride) % f;
            const int base = a - digit * stride;
            for (int t = 1; t < f; ++t) {
                msgs.push_back({start(a), start(base + ((digit + t) % f) * stride), t});
            }
        }
        e.round(msgs);
        stride *= f;
    }
    if (folded) {
        e.round(unfold);
    }
    return {e.time(), e.messages()};
}

} // namespace treefold::model
