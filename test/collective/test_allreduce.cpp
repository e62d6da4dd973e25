// The schedule executor on every sub-communicator size up to the world size (run at 16:
// every p in 1..16), with non-commutative operators: every rank must hold the rank-order
// product, bit-identical across ranks. Plus ring and Rabenseifner, and failures.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "treefold/collective/allreduce.hpp"
#include "treefold/collective/async_allgather.hpp"
#include "treefold/topology/schedule.hpp"
#include "treefold/model/pipelining.hpp"

#include <boost/serialization/string.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;
using topology::schedule;

namespace {

/// 2x2 matrices of unsigned 64-bit integers: associative, not commutative, exact.
using testing::mat2;
using testing::mat_mul;
mat2 mat_of(int rank) { return {static_cast<std::uint64_t>(rank) + 2, 1, 3, static_cast<std::uint64_t>(rank) * 7 + 1}; }

/// Every schedule worth running at p: generators, every factorisation (up to 6), and folds.
std::vector<schedule> schedules_for(int p)
{
    std::vector<schedule> out{topology::recursive_doubling(p), model::heuristic(p, {}), model::best(p, {}),
                              model::best(p, {5.0, 0.1}), model::heuristic(p, {10.0, 0.2})};
    const auto all = topology::factorisations(p, 6);
    out.insert(out.end(), all.begin(), all.end());
    for (const int r : {1, p / 3, p / 2, p - 1}) {
        if (r >= 1 && r < p) {
            out.push_back(schedule::merged(r, topology::factorisations(p - r, 1).front().factors()));
        }
    }
    // Prime merging: every remainder up to p - 4, on the first and the last two-factor lists.
    for (int r = 1; r + 4 <= p; ++r) {
        const auto all_m = topology::factorisations(p - r);
        for (const auto& f : {all_m.front(), all_m.back()}) {
            if (f.factors().size() >= 2) {
                out.push_back(schedule::prime_merged(r, f.factors()));
            }
        }
    }
    out.push_back(model::thesis_heuristic(p, {}, true));
    out.push_back(model::thesis_heuristic(p, {}, false));
    for (const int b : {2, 3, 4}) {
        for (const int t : {b, (p / b) * b}) {
            if (t >= b && t <= p) {
                out.push_back(schedule::collapsed(t, b, topology::factorisations(t / b + p - t).back().factors()));
            }
        }
    }
    return out;
}

/// True on every rank of `comm` iff `bytes` is the same on every rank.
bool same_everywhere(const mpi::communicator& comm, const std::vector<unsigned char>& bytes)
{
    std::vector<unsigned char> root = bytes;
    mpi::broadcast(comm, root, 0);
    return testing::all_ranks(comm, root == bytes);
}

/// Whether two vectors of doubles hold the same bits.
bool same_bits(const std::vector<double>& x, const std::vector<double>& y)
{
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
}

} // namespace

BOOST_AUTO_TEST_CASE(matrix_product_in_rank_order_for_every_schedule)
{
    const auto results = testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        mat2 want;
        for (int r = 0; r < p; ++r) {
            want = mat_mul(want, mat_of(r));
        }
        std::vector<unsigned char> out;
        for (const schedule& s : schedules_for(p)) {
            net::counters count;
            const mat2 got = collective::schedule_allreduce(sub, s, mat_of(sub.rank()), mat_mul, &count);
            BOOST_CHECK_MESSAGE(got == want, "schedule '" << s.to_string() << "' at p = " << p << " rank "
                                                          << sub.rank() << ": not the rank-order product");
            BOOST_CHECK(same_everywhere(sub, testing::bytes_of(got)));
            const auto total = mpi::all_reduce(sub, count.messages, std::plus<std::uint64_t>());
            BOOST_CHECK_EQUAL(total, s.messages(p));
            const auto b = testing::bytes_of(got);
            out.insert(out.end(), b.begin(), b.end());
        }
        return testing::bytes_of(want);
    });
    BOOST_CHECK_EQUAL(results.size(), static_cast<std::size_t>(testing::world().size()));
}

BOOST_AUTO_TEST_CASE(string_concatenation_through_serialization)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        std::string want;
        for (int r = 0; r < p; ++r) {
            want += "<" + std::to_string(r) + ">";
        }
        auto cat = [](const std::string& x, const std::string& y) { return x + y; };
        for (const schedule& s : {topology::recursive_doubling(p), model::best(p, {}), model::heuristic(p, {5, 0.1}),
                                  schedule::merged(p - 1, {})}) {
            if (!s.fits(p)) {
                continue; // merge(p-1) (gather to rank 0, send back) needs p >= 2
            }
            const std::string got = collective::schedule_allreduce(sub, s, "<" + std::to_string(sub.rank()) + ">", cat);
            BOOST_CHECK_MESSAGE(got == want, "'" << s.to_string() << "' at p = " << p << ": got " << got);
            BOOST_CHECK(same_everywhere(sub, {got.begin(), got.end()}));
        }
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(floating_point_bits_identical_on_every_rank)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        // Non-associative: the schedule's grouping decides the bits, but all ranks agree.
        auto op = [](double x, double y) { return x * 0.5 + y * 1.5; };
        const double mine = 1.0 / (sub.rank() + 3) + (sub.rank() % 3 == 0 ? 1e16 : -1e-3);
        for (const schedule& s : schedules_for(sub.size())) {
            const double got = collective::schedule_allreduce(sub, s, mine, op);
            BOOST_CHECK(same_everywhere(sub, testing::bytes_of(got)));
        }
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(element_wise_matrix_products)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        for (const std::size_t n : {0UL, 1UL, 9UL, 300UL}) {
            std::vector<mat2> want(n);
            std::vector<mat2> mine(n);
            for (std::size_t i = 0; i < n; ++i) {
                for (int r = 0; r < p; ++r) {
                    want[i] = mat_mul(want[i], mat_of(r * 3 + static_cast<int>(i)));
                }
                mine[i] = mat_of(sub.rank() * 3 + static_cast<int>(i));
            }
            for (const schedule& s : {topology::recursive_doubling(p), model::best(p, {5.0, 0.1}),
                                      model::heuristic(p, {})}) {
                auto data = mine;
                collective::schedule_allreduce_elements(sub, s, std::span<mat2>(data), mat_mul);
                BOOST_CHECK_MESSAGE(data == want, "'" << s.to_string() << "' n = " << n << " p = " << p);
            }
        }
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(ring_and_rabenseifner)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        for (const std::size_t n : {0UL, 1UL, 5UL, 17UL, 1000UL}) {
            std::vector<std::uint64_t> want(n, 0);
            auto input = [&](int r) {
                std::vector<std::uint64_t> v(n);
                for (std::size_t i = 0; i < n; ++i) {
                    v[i] = (static_cast<std::uint64_t>(r) + 1) * 1000003ULL + i * i;
                }
                return v;
            };
            for (int r = 0; r < p; ++r) {
                const auto v = input(r);
                for (std::size_t i = 0; i < n; ++i) {
                    want[i] += v[i];
                }
            }
            auto ring = input(sub.rank());
            collective::ring_allreduce(sub, std::span<std::uint64_t>(ring), std::plus<std::uint64_t>());
            BOOST_CHECK_MESSAGE(ring == want, "ring n = " << n << " p = " << p);
            net::counters ring_count;
            auto ring2 = input(sub.rank());
            collective::ring_allreduce(sub, std::span<std::uint64_t>(ring2), std::plus<std::uint64_t>(), &ring_count);
            BOOST_CHECK_EQUAL(ring_count.messages, 2U * static_cast<unsigned>(p - 1)); // p-1 steps each way
            auto rab = input(sub.rank());
            net::counters count;
            collective::rabenseifner_allreduce(sub, std::span<std::uint64_t>(rab), std::plus<std::uint64_t>(), &count);
            BOOST_CHECK_MESSAGE(rab == want, "rabenseifner n = " << n << " p = " << p);
            // log2 q halvings and doublings per power-of-two participant, one message each way
            // for the 2r paired ranks: 2q·log2(q) + 2r in total.
            int q = 1;
            int lg = 0;
            while (q * 2 <= p) {
                q *= 2;
                ++lg;
            }
            const auto rab_total = mpi::all_reduce(sub, count.messages, std::plus<std::uint64_t>());
            BOOST_CHECK_EQUAL(rab_total, static_cast<std::uint64_t>(2 * q * lg + 2 * (p - q)));
            // Butterfly: log2 q whole-vector exchanges per participant, the same pairing.
            auto fly = input(sub.rank());
            net::counters fly_count;
            collective::butterfly_allreduce(sub, std::span<std::uint64_t>(fly), std::plus<std::uint64_t>(), &fly_count);
            BOOST_CHECK_MESSAGE(fly == want, "butterfly n = " << n << " p = " << p);
            const auto fly_total = mpi::all_reduce(sub, fly_count.messages, std::plus<std::uint64_t>());
            BOOST_CHECK_EQUAL(fly_total, static_cast<std::uint64_t>(q * lg + 2 * (p - q)));
            // Doubles: each element is combined on one rank, so every rank holds the same bits.
            std::vector<double> d(n);
            for (std::size_t i = 0; i < n; ++i) {
                d[i] = 1.0 / static_cast<double>(sub.rank() + 1 + i) + (i % 2 ? 1e16 : -1e16) * (sub.rank() % 2);
            }
            auto d2 = d;
            auto d3 = d;
            collective::ring_allreduce(sub, std::span<double>(d), std::plus<double>());
            collective::rabenseifner_allreduce(sub, std::span<double>(d2), std::plus<double>());
            collective::butterfly_allreduce(sub, std::span<double>(d3), std::plus<double>());
            std::vector<unsigned char> bytes(n * sizeof(double) * 3);
            if (n > 0) {
                std::memcpy(bytes.data(), d.data(), n * sizeof(double));
                std::memcpy(bytes.data() + n * sizeof(double), d2.data(), n * sizeof(double));
                std::memcpy(bytes.data() + 2 * n * sizeof(double), d3.data(), n * sizeof(double));
            }
            BOOST_CHECK(same_everywhere(sub, bytes));
        }
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(pipelined_ring_and_butterfly_have_the_unpipelined_bits)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        for (const std::size_t n : {0UL, 1UL, 5UL, 17UL, 200UL}) {
            std::vector<double> d(n);
            for (std::size_t i = 0; i < n; ++i) {
                d[i] = 1.0 / static_cast<double>(sub.rank() + 1 + i) + (i % 2 ? 1e16 : -1e16) * (sub.rank() % 2);
            }
            auto ring = d;
            auto fly = d;
            collective::ring_allreduce(sub, std::span<double>(ring), std::plus<double>());
            collective::butterfly_allreduce(sub, std::span<double>(fly), std::plus<double>());
            for (const std::size_t segment : {1UL, 3UL, 64UL, 100000UL}) {
                if (segment == 1 && n > 17) {
                    continue; // thousands of one-value messages: slow oversubscribed, nothing new
                }
                auto pr = d;
                auto pf = d;
                net::counters ring_count, fly_count;
                collective::pipelined_ring_allreduce(sub, std::span<double>(pr), std::plus<double>(), segment,
                                                     &ring_count);
                collective::pipelined_butterfly_allreduce(sub, std::span<double>(pf), std::plus<double>(), segment,
                                                          &fly_count);
                BOOST_CHECK_MESSAGE(same_bits(pr, ring),
                                    "pipelined ring n = " << n << " p = " << p << " segment = " << segment);
                BOOST_CHECK_MESSAGE(same_bits(pf, fly),
                                    "pipelined butterfly n = " << n << " p = " << p << " segment = " << segment);
                // Ring: every chunk crosses 2(p − 1) links as ⌈chunk / segment⌉ pieces (none when empty).
                std::uint64_t pieces = 0;
                for (int c = 0; c < p; ++c) {
                    const std::size_t len = n / static_cast<std::size_t>(p) + (static_cast<std::size_t>(c) < n % static_cast<std::size_t>(p) ? 1 : 0);
                    pieces += (len + segment - 1) / segment;
                }
                const auto ring_total = mpi::all_reduce(sub, ring_count.messages, std::plus<std::uint64_t>());
                BOOST_CHECK_EQUAL(ring_total, p > 1 ? 2 * static_cast<std::uint64_t>(p - 1) * pieces : 0);
                // Butterfly: log2 q rounds of ⌈n / segment⌉ pieces per participant, plus the pairing.
                int q = 1;
                int lg = 0;
                while (q * 2 <= p) {
                    q *= 2;
                    ++lg;
                }
                const auto fly_total = mpi::all_reduce(sub, fly_count.messages, std::plus<std::uint64_t>());
                BOOST_CHECK_EQUAL(fly_total, static_cast<std::uint64_t>(q * lg) * ((n + segment - 1) / segment) +
                                                 2 * static_cast<std::uint64_t>(p - q));
            }
            auto zero = d;
            BOOST_CHECK_THROW(collective::pipelined_ring_allreduce(sub, std::span<double>(zero), std::plus<double>(), 0),
                              std::invalid_argument);
        }
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(async_allgatherv_blocks_in_any_order)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        // Rank r contributes (r * 3) % 5 values (some ranks none), value = 100 r + i.
        std::vector<std::size_t> sizes;
        for (int r = 0; r < p; ++r) {
            sizes.push_back(static_cast<std::size_t>(r * 3 % 5));
        }
        auto block_of = [](int r, std::size_t size) {
            std::vector<std::int64_t> v(size);
            for (std::size_t i = 0; i < size; ++i) {
                v[i] = 100 * r + static_cast<std::int64_t>(i);
            }
            return v;
        };
        const auto mine = block_of(sub.rank(), sizes[static_cast<std::size_t>(sub.rank())]);
        for (const auto pattern : {collective::gather_pattern::direct, collective::gather_pattern::bruck}) {
            for (const bool reversed : {false, true}) {
                net::counters count;
                collective::async_allgatherv<std::int64_t> gather(sub, mine, sizes, pattern, &count);
                bool ok = true;
                BOOST_CHECK(gather.ready(sub.rank())); // its own block, at once
                for (int k = 0; k < p; ++k) {
                    const int r = reversed ? p - 1 - k : (sub.rank() + k) % p;
                    if (!reversed) {
                        while (!gather.ready(r)) {
                            // polling alone must bring every block (Bruck: start the next rounds)
                        }
                    }
                    const auto got = gather.block(r);
                    const auto want = block_of(r, sizes[static_cast<std::size_t>(r)]);
                    ok = ok && std::vector<std::int64_t>(got.begin(), got.end()) == want;
                }
                BOOST_CHECK_MESSAGE(ok, "async_allgatherv p = " << p << (pattern == collective::gather_pattern::bruck ? " bruck" : " direct"));
                // direct: p − 1 messages per rank; Bruck: one per round, ⌈log2 p⌉ rounds.
                int rounds = 0;
                while ((1 << rounds) < p) {
                    ++rounds;
                }
                BOOST_CHECK_EQUAL(count.messages, static_cast<std::uint64_t>(
                                                      pattern == collective::gather_pattern::direct ? p - 1 : rounds));
                BOOST_CHECK_THROW(gather.block(p), std::out_of_range);
                BOOST_CHECK_THROW(gather.ready(-1), std::out_of_range);
            }
        }
        BOOST_CHECK_THROW(collective::async_allgatherv<std::int64_t>(sub, mine, std::vector<std::size_t>(1 + static_cast<std::size_t>(p)),
                                                                     collective::gather_pattern::direct),
                          std::invalid_argument);
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(planned_once_run_many_times)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        collective::schedule_allreducer run(sub, model::best(p, {5.0, 0.1}));
        BOOST_CHECK(run.plan() == model::best(p, {5.0, 0.1}));
        // Different types and operators through one plan, interleaved.
        for (int round = 0; round < 5; ++round) {
            const int sum = run(sub.rank() + round, std::plus<int>());
            BOOST_CHECK_EQUAL(sum, p * (p - 1) / 2 + p * round);
            mat2 want;
            for (int r = 0; r < p; ++r) {
                want = mat_mul(want, mat_of(r + round));
            }
            BOOST_CHECK(run(mat_of(sub.rank() + round), mat_mul) == want);
            std::vector<double> v{1.0 * sub.rank(), 2.0, -1.0 * round};
            run.elements(std::span<double>(v), [](double x, double y) { return x > y ? x : y; });
            BOOST_CHECK(v == (std::vector<double>{p - 1.0, 2.0, -1.0 * round}));
        }
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(invalid_schedule_throws_everywhere_before_any_message)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        const schedule wrong(std::vector<int>{p + 1});
        try {
            collective::schedule_allreduce(sub, wrong, 1, std::plus<int>());
            BOOST_ERROR("a schedule for p+1 ranks ran on p = " << p);
        } catch (const std::invalid_argument& e) {
            BOOST_CHECK(std::string(e.what()).find("does not fit p = " + std::to_string(p)) != std::string::npos);
        }
        // The communicator is still usable (nothing was left in flight).
        BOOST_CHECK_EQUAL(collective::schedule_allreduce(sub, topology::recursive_doubling(p), 1, std::plus<int>()), p);
        return std::vector<unsigned char>{};
    });
}

BOOST_AUTO_TEST_CASE(throwing_operator_does_not_hang)
{
    testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        if (p < 2) {
            return std::vector<unsigned char>{};
        }
        for (const schedule& s : {topology::recursive_doubling(p), model::best(p, {5.0, 0.1})}) {
            // Rank 0 (always a representative, so it always combines) throws on its first call.
            int calls = 0;
            auto op = [&](int x, int y) {
                if (sub.rank() == 0 && calls++ == 0) {
                    throw std::runtime_error("boom");
                }
                return x + y;
            };
            bool own = false;
            bool remote = false;
            try {
                collective::schedule_allreduce(sub, s, 1, op);
            } catch (const std::runtime_error& e) {
                (dynamic_cast<const remote_failure*>(&e) ? remote : own) = true;
            }
            BOOST_CHECK_EQUAL(own, sub.rank() == 0);
            // Ranks whose value never needs the failed step may finish; none may hang, and the
            // next call works.
            (void)remote;
            BOOST_CHECK_EQUAL(collective::schedule_allreduce(sub, s, 1, std::plus<int>()), p);
        }
        return std::vector<unsigned char>{};
    });
}
