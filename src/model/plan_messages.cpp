#include "treefold/model/plan_messages.hpp"

#include "treefold/detail/layout/routes.hpp"
#include "treefold/frontier.hpp"
#include "treefold/model/message_count.hpp"

#include <cmath>
#include <stdexcept>

namespace treefold::layout {

namespace {

// Values do not matter for the grouping, only which node is on top when: a byte per node.
using marker = unsigned char;

struct no_op {
    marker operator()(marker, marker) const { return 0; }
};

// Mirrors exchange::direct::plan::run with the same push, flush and receive order, recording
// local nodes, flushes of a non-empty buffer (instead of sending) and receives as steps.
class direct_replay {
public:
    direct_replay(const block_layout& layout, int rank, direct_buffering rules)
        : routes_(layout, rank), n_(layout.size()), rules_(rules), stack_(layout.size())
    {
    }

    std::vector<direct_step> run()
    {
        for (const index_tree::node v : routes_.local_nodes) {
            const index_t len = index_tree::cover_size(v, n_);
            if (len > rules_.flush_before_elements) {
                flush();
            }
            steps_.push_back({direct_step::kind::local, -1, static_cast<std::uint64_t>(len)});
            push(v);
        }
        for (const auto& piece : routes_.incoming) {
            flush(); // the exchange flushes before every blocking receive
            steps_.push_back({direct_step::kind::receive, piece.rank, 1});
            push(piece.v);
        }
        flush();
        if (next_out_ != routes_.outbound.size()) {
            throw std::logic_error("treefold: direct replay left outbound roots unsent (internal error)");
        }
        for (const int r : routes_.reporters) {
            steps_.push_back({direct_step::kind::report, r, 0});
        }
        return std::move(steps_);
    }

private:
    void push(index_tree::node v)
    {
        stack_.push(v, marker{}, op_);
        while (next_out_ < routes_.outbound.size() && !stack_.empty() &&
               stack_.back_node() == routes_.outbound[next_out_].v) {
            const int target = routes_.outbound[next_out_].rank;
            if (target != target_) {
                flush();
            }
            target_ = target;
            stack_.pop_back();
            ++buffered_;
            ++next_out_;
            if (buffered_ == rules_.values_per_message) {
                flush();
            }
        }
    }

    void flush()
    {
        if (buffered_ > 0) {
            steps_.push_back({direct_step::kind::send, target_, static_cast<std::uint64_t>(buffered_)});
            buffered_ = 0;
        }
    }

    layout::direct_routes routes_;
    index_t n_;
    direct_buffering rules_;
    frontier<marker> stack_;
    no_op op_;
    int target_ = -1;
    std::size_t buffered_ = 0;
    std::size_t next_out_ = 0;
    std::vector<direct_step> steps_;
};

} // namespace

std::vector<direct_step> direct_rank_steps(const block_layout& layout, int rank, direct_buffering rules)
{
    if (rules.values_per_message == 0) {
        throw std::invalid_argument("treefold: a direct send buffer needs room for one value");
    }
    if (layout.block_of(rank).count == 0) {
        // An empty block only reports to the finisher.
        return layout.size() > 0 ? std::vector<direct_step>{{direct_step::kind::send, layout.owner(0), 0}}
                                 : std::vector<direct_step>{};
    }
    return direct_replay(layout, rank, rules).run();
}

std::uint64_t direct_rank_messages(const block_layout& layout, int rank, direct_buffering rules)
{
    std::uint64_t sends = 0;
    for (const direct_step& s : direct_rank_steps(layout, rank, rules)) {
        sends += s.what == direct_step::kind::send ? 1 : 0;
    }
    return sends;
}

std::uint64_t direct_exchange_messages(const block_layout& layout, direct_buffering rules)
{
    std::uint64_t total = 0;
    for (int r = 0; r < layout.ranks(); ++r) {
        total += direct_rank_messages(layout, r, rules);
    }
    return total;
}

std::uint64_t tree_exchange_messages(const block_layout& layout)
{
    return layout.ranks() > 0 ? static_cast<std::uint64_t>(layout.ranks() - 1) : 0;
}

std::uint64_t broadcast_messages(int p) { return p > 0 ? static_cast<std::uint64_t>(p - 1) : 0; }

namespace {

/// An exchange's counts with the reducer's broadcast added for all_reduce.
call_messages with_broadcast(const block_layout& layout, std::uint64_t reduce, std::uint64_t unbuffered)
{
    return {reduce, unbuffered, reduce + broadcast_messages(layout.ranks())};
}

} // namespace

std::uint64_t empty_block_reports(const block_layout& layout)
{
    std::uint64_t reports = 0;
    for (int r = 0; r < layout.ranks(); ++r) {
        reports += layout.size() > 0 && layout.block_of(r).count == 0 ? 1 : 0;
    }
    return reports;
}

call_messages direct_call_messages(const block_layout& layout, direct_buffering rules)
{
    return with_broadcast(layout, direct_exchange_messages(layout, rules),
                          direct_messages(layout) + empty_block_reports(layout));
}

call_messages one_sided_call_messages(const block_layout& layout)
{
    const std::uint64_t sent = direct_messages(layout) + empty_block_reports(layout);
    return with_broadcast(layout, sent, sent);
}

call_messages tree_call_messages(const block_layout& layout)
{
    const auto sent = tree_exchange_messages(layout);
    return with_broadcast(layout, sent, sent);
}

std::optional<double> message_bound(index_t n, int p)
{
    if (p < 1 || n < 1 || n - 1 < static_cast<index_t>(p)) {
        return std::nullopt;
    }
    const double ratio = static_cast<double>(n - 1) / static_cast<double>(p);
    return static_cast<double>(p - 1) * (std::log2(ratio) + 1.0);
}

} // namespace treefold::layout
