// iall_reduce / ireduce: the same bits as the blocking calls, progress beside user traffic,
// two reducers in flight at once, and errors from wait() on every rank without a hang.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi/nonblocking.hpp>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

std::vector<double> mixed(std::uint64_t n)
{
    std::vector<double> xs(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        xs[i] = (i % 3 == 0 ? 1e16 : 1.0) * (i % 2 == 0 ? 1.0 : -0.75) + static_cast<double>(i) * 1e-3;
    }
    return xs;
}

template <class T>
std::span<const T> block_of(const std::vector<T>& xs, const layout::block_layout& l, int rank)
{
    const auto b = l.block_of(rank);
    return std::span<const T>(xs.data() + (b.count > 0 ? b.start : 0), b.count);
}

template <class E>
void same_bits_as_blocking()
{
    const auto& w = testing::world();
    for (const std::uint64_t n : {1ULL, 7ULL, 460ULL, 5000ULL}) {
        const auto xs = mixed(n);
        const double want = testing::oracle_reduce(xs, std::plus<double>());
        for (const auto& l : testing::layout_kinds(n, w.size(), n)) {
            reducer<double, std::plus<double>, kernel::best, E> r(w, l.layout);
            const auto local = block_of(xs, l.layout, w.rank());
            auto all = r.iall_reduce(local);
            const double got = all.wait();
            BOOST_CHECK_MESSAGE(testing::bits_of(got) == testing::bits_of(want), E::name << " " << l.name << " N " << n);
            const int root = static_cast<int>(n % static_cast<std::uint64_t>(w.size()));
            auto at_root = r.ireduce(local, root);
            while (!at_root.test()) {
            }
            const std::optional<double> v = at_root.wait();
            BOOST_CHECK(w.rank() == root ? v && testing::bits_of(*v) == testing::bits_of(want) : !v);
            BOOST_CHECK(at_root.test()); // a completed request stays complete
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(same_bits_as_blocking_native) { same_bits_as_blocking<exchange::native>(); }
BOOST_AUTO_TEST_CASE(same_bits_as_blocking_direct) { same_bits_as_blocking<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(same_bits_as_blocking_automatic) { same_bits_as_blocking<exchange::automatic>(); }

BOOST_AUTO_TEST_CASE(serialized_types_complete_at_once)
{
    const auto& w = testing::world();
    const std::uint64_t n = 23;
    std::vector<testing::word> xs(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        xs[i].s = std::to_string(i);
    }
    const auto l = testing::random_layout(5, n, w.size());
    reducer<testing::word, decltype(&testing::bracket), kernel::scalar, exchange::tree<>> r(w, l, &testing::bracket);
    auto req = r.iall_reduce(block_of(xs, l, w.rank()));
    BOOST_CHECK(req.test());
    BOOST_CHECK_EQUAL(req.wait().s, testing::oracle_reduce(xs, &testing::bracket).s);
}

BOOST_AUTO_TEST_CASE(progress_beside_user_traffic_and_a_second_reducer)
{
    // Two reducers in flight at once, user messages on the caller's communicator between the
    // starts and the waits, and the waits in the opposite order of the starts.
    const auto& w = testing::world();
    const std::uint64_t n = 3000;
    const auto xs = mixed(n);
    const auto l1 = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto l2 = testing::random_layout(11, n, w.size());
    reducer<double> r1(w, l1);
    auto twice = [](double a, double b) { return 2.0 * a + b; };
    reducer<double, decltype(twice)> r2(w, l2, twice);
    auto a = r1.iall_reduce(block_of(xs, l1, w.rank()));
    auto b = r2.ireduce(block_of(xs, l2, w.rank()), 0);
    const int right = (w.rank() + 1) % w.size();
    const int left = (w.rank() + w.size() - 1) % w.size();
    int got = -1;
    mpi::request reqs[2] = {w.irecv(left, 77, got), w.isend(right, 77, w.rank())};
    mpi::wait_all(reqs, reqs + 2);
    BOOST_CHECK_EQUAL(got, left);
    const std::optional<double> vb = b.wait();
    const double va = a.wait();
    BOOST_CHECK_EQUAL(testing::bits_of(va), testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    BOOST_CHECK(w.rank() == 0 ? vb && testing::bits_of(*vb) == testing::bits_of(testing::oracle_reduce(xs, twice))
                              : !vb);
}

BOOST_AUTO_TEST_CASE(errors_reach_every_rank_through_wait)
{
    const auto& w = testing::world();
    const std::uint64_t n = 50 * static_cast<std::uint64_t>(w.size());
    const auto xs = mixed(n);
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto local = block_of(xs, l, w.rank());
    for (int bad = 0; bad < w.size(); ++bad) {
        reducer<double> r(w, l);
        auto req = r.iall_reduce(w.rank() == bad ? local.first(local.size() - 1) : local);
        bool named = false;
        try {
            req.wait();
        } catch (const std::invalid_argument& e) {
            named = std::string(e.what()).find("rank " + std::to_string(bad)) != std::string::npos;
        }
        BOOST_CHECK_MESSAGE(named, "rank " << w.rank() << ": no error naming rank " << bad);

        const bool armed = w.rank() == bad;
        auto op = [armed](double x, double y) {
            if (armed) {
                throw std::range_error("refused");
            }
            return x + y;
        };
        reducer<double, decltype(op)> t(w, l, op);
        auto q = t.ireduce(local, 0);
        bool right = false;
        try {
            (void)q.wait(); // every rank must throw: the failure reaches ranks off the root's path too
        } catch (const std::range_error&) {
            right = armed;
        } catch (const remote_failure& e) {
            right = !armed && e.info.rank == bad;
        }
        BOOST_CHECK_MESSAGE(right, "rank " << w.rank() << ": wrong outcome, operator threw on rank " << bad);
        // A root out of range on one rank: every rank's wait throws std::invalid_argument.
        auto s = r.ireduce(local, w.rank() == bad ? w.size() : 0);
        BOOST_CHECK_THROW((void)s.wait(), std::invalid_argument);
        // The reducers work afterwards.
        BOOST_CHECK_EQUAL(testing::bits_of(r.iall_reduce(local).wait()),
                          testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    }
}

BOOST_AUTO_TEST_CASE(one_call_in_flight_per_reducer)
{
    const auto& w = testing::world();
    const auto xs = mixed(40);
    const auto l = layout::block_layout::from_counts(layout::even_lower(40, w.size()));
    reducer<double> r(w, l);
    auto first = r.iall_reduce(block_of(xs, l, w.rank()));
    BOOST_CHECK_THROW(r.iall_reduce(block_of(xs, l, w.rank())), std::logic_error);
    BOOST_CHECK_THROW(r.ireduce(block_of(xs, l, w.rank()), 0), std::logic_error);
    (void)first.wait();
    BOOST_CHECK_THROW(first.wait(), std::logic_error);
    {
        auto dropped = r.iall_reduce(block_of(xs, l, w.rank())); // destroyed unfinished: waits
    }
    BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(block_of(xs, l, w.rank()))),
                      testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
}

BOOST_AUTO_TEST_CASE(blocking_call_while_nonblocking_in_flight_is_refused)
{
    // The header's promise: a blocking call on a reducer whose nonblocking call is in flight
    // throws std::logic_error (on every rank, since every rank makes the same mistake), and
    // the request in flight still completes with the right bits.
    const auto& w = testing::world();
    const std::uint64_t n = 460;
    const auto xs = mixed(n);
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto local = block_of(xs, l, w.rank());
    reducer<double> r(w, l);
    auto req = r.iall_reduce(local);
    BOOST_CHECK_THROW(r.all_reduce(local), std::logic_error);
    BOOST_CHECK_THROW(r.reduce(local, 0), std::logic_error);
    BOOST_CHECK_THROW(r.iall_reduce(local), std::logic_error);
    BOOST_CHECK_EQUAL(testing::bits_of(req.wait()),
                      testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    // After the wait the reducer takes blocking calls again.
    BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(local)),
                      testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
}

namespace {
// A second thread calls the reducer while the first thread's call runs (deterministic on a
// one-rank communicator: the first call's operator waits until the second thread has tried).
// Checks the first call's result and returns what the second call did.
std::string second_threads_call(checking checks)
{
    const auto& w = testing::world();
    const mpi::communicator self = w.split(w.rank());
    std::atomic<bool> entered{false};
    std::atomic<bool> tried{false};
    auto op = [&entered, &tried](double a, double b) {
        entered.store(true);
        while (!tried.load()) {
            std::this_thread::yield();
        }
        return a + b;
    };
    const std::vector<double> local{1.0, 2.0, 3.0};
    reducer<double, decltype(op), kernel::scalar, exchange::tree<>> r(
        self, layout::block_layout::from_counts(std::vector<std::uint64_t>{local.size()}), op, checks);
    std::string second;
    std::thread other([&] {
        while (!entered.load()) {
            std::this_thread::yield();
        }
        try {
            r.all_reduce(local);
            second = "no exception";
        } catch (const std::logic_error& e) {
            second = e.what();
        }
        tried.store(true);
    });
    const double first = r.all_reduce(local);
    other.join();
    BOOST_CHECK_EQUAL(first, 6.0);
    return second;
}
} // namespace

BOOST_AUTO_TEST_CASE(one_reducer_from_two_threads_is_refused)
{
    // A reducer serves one thread at a time: a second thread's call while the first runs is a
    // std::logic_error (it was a hang). Without checks the busy mark is a load and a store.
    const std::string second = second_threads_call(checking::off);
    BOOST_CHECK_MESSAGE(second.find("two threads") != std::string::npos, "second thread: " << second);
}

BOOST_AUTO_TEST_CASE(one_reducer_from_two_threads_is_refused_under_checks)
{
    // The same with checking::on, where the busy mark is an atomic exchange.
    const std::string second = second_threads_call(checking::on);
    BOOST_CHECK_MESSAGE(second.find("two threads") != std::string::npos, "second thread: " << second);
}

BOOST_AUTO_TEST_CASE(destroying_the_reducer_first_completes_the_call)
{
    // A reducer destroyed with its call in flight completes the call there (every rank's MPI
    // reduction finishes; nothing runs on freed memory) and the request's wait() throws
    // std::logic_error naming the cause; it was a use-after-free. The ranks stay in step: a
    // new reducer on the same communicator gives the right bits. Half the ranks destroy first.
    const auto& w = testing::world();
    const std::uint64_t n = 230;
    const auto xs = mixed(n);
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto local = block_of(xs, l, w.rank());
    const bool early = w.rank() % 2 == 0;
    std::optional<request<double, double>> req;
    std::optional<request<double, std::optional<double>>> rooted;
    {
        reducer<double, ops::plus, kernel::best, exchange::direct> r(w, l);
        req.emplace(r.iall_reduce(local));
        auto moved = std::move(*req); // the reducer follows a moved request
        req.emplace(std::move(moved));
        if (!early) {
            BOOST_CHECK_EQUAL(testing::bits_of(req->wait()),
                              testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
            req.reset();
        }
    }
    if (early) {
        BOOST_CHECK(req->test());
        std::string why;
        try {
            (void)req->wait();
        } catch (const std::logic_error& e) {
            why = e.what();
        }
        BOOST_CHECK_MESSAGE(why.find("destroyed first") != std::string::npos, "rank " << w.rank() << ": " << why);
    }
    {
        reducer<double> r(w, l);
        rooted.emplace(r.ireduce(local, 0));
    } // every rank destroys first
    BOOST_CHECK_THROW((void)rooted->wait(), std::logic_error);
    reducer<double> again(w, l);
    BOOST_CHECK_EQUAL(testing::bits_of(again.all_reduce(local)),
                      testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
}

BOOST_AUTO_TEST_CASE(checked_calls_catch_a_nonblocking_call_against_a_blocking_one)
{
    // Under checking::on, iall_reduce on one rank against all_reduce on the others (it was a
    // hang) is call_mismatch of kind form on every rank, and the next call runs in step.
    const auto& w = testing::world();
    if (w.size() < 2) {
        return;
    }
    const std::uint64_t n = 100;
    const auto xs = mixed(n);
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto local = block_of(xs, l, w.rank());
    reducer<double> r(w, l, ops::plus{}, checking::on);
    std::string why;
    try {
        if (w.rank() == w.size() - 1) {
            (void)r.iall_reduce(local).wait();
        } else {
            (void)r.all_reduce(local);
        }
    } catch (const call_mismatch& e) {
        BOOST_CHECK(e.what_differs == call_mismatch::kind::form);
        why = e.what();
    }
    BOOST_CHECK_MESSAGE(why.find("nonblocking") != std::string::npos, "rank " << w.rank() << ": '" << why << "'");
    BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(local)),
                      testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
}
