// The audit's defects (issue 16), one case each, over every exchange: a wrong size on an empty
// rank is reported everywhere, a root that differs between ranks never leaves a stale result
// for a later call, an operator throwing in a rank's last combine reaches every rank, a
// failure carries the exception's type and text, and the opt-in checking level throws the
// same error on every rank.
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/all_reduce.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace treefold;

namespace {

struct op_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<double> values(std::uint64_t n, double shift)
{
    std::vector<double> xs(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        xs[i] = shift + 0.25 * static_cast<double>(i);
    }
    return xs;
}

/// Calls f(type_identity<E>) for every exchange the library ships (inorder included).
template <class F>
void for_each_exchange(F&& f)
{
    for (const auto name : treefold::all_exchanges::names) {
        exchange::visit_by_name<treefold::all_exchanges>(name, f);
    }
    f(std::type_identity<exchange::tree<topology::inorder>>{});
}

/// Odd ranks hold nothing; even ranks 3 values each (p = 1: one block of 3).
layout::block_layout with_empty_ranks(int p)
{
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        counts[static_cast<std::size_t>(r)] = r % 2 == 0 ? 3 : 0;
    }
    return layout::block_layout::from_counts(counts);
}

} // namespace

// Defect 1: under direct and one_sided an empty rank's wrong size was dropped silently.
BOOST_AUTO_TEST_CASE(wrong_size_on_an_empty_rank_reaches_every_rank)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return; // no empty rank
    }
    const auto l = with_empty_ranks(w.size());
    const auto xs = values(l.size(), 1.5);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    const std::vector<double> one(1, 2.0);
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        reducer<double, std::plus<double>, kernel::scalar, E> r(w, l);
        const int bad = 1; // empty
        const std::span<const double> mine = w.rank() == bad ? std::span<const double>(one) : good;
        bool threw = false;
        try {
            r.all_reduce(mine);
        } catch (const std::invalid_argument& e) {
            threw = std::string(e.what()).find("rank " + std::to_string(bad)) != std::string::npos;
        }
        BOOST_CHECK_MESSAGE(testing::all_ranks(w, threw), E::name << ": all_reduce: not every rank reported it");
        for (const int root : {0, w.size() - 1}) {
            bool root_threw = w.rank() != root;
            try {
                (void)r.reduce(mine, root);
            } catch (const std::invalid_argument&) {
                root_threw = true;
            }
            BOOST_CHECK_MESSAGE(testing::all_ranks(w, root_threw), E::name << ": reduce to " << root << ": the root returned");
        }
        const double v = r.all_reduce(good);
        BOOST_CHECK_EQUAL(testing::bits_of(v), testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    });
}

// Defect 3: under the scheduled exchanges an operator throwing in one rank's last combine
// threw on that rank only.
BOOST_AUTO_TEST_CASE(operator_throwing_in_the_last_combine_reaches_every_rank)
{
    const auto& w = testing::world();
    const std::uint64_t n = 7 * static_cast<std::uint64_t>(w.size()) + 1;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = values(n, 0.5);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        for (int bad = 0; bad < w.size(); ++bad) {
            // A first call counts this rank's operator calls; the second throws on the last one.
            long calls = 0;
            long throw_at = -1;
            auto op = [&](double x, double y) {
                if (++calls == throw_at) {
                    throw op_error("last combine");
                }
                return x + y;
            };
            reducer<double, decltype(op), kernel::scalar, E> r(w, l, op);
            (void)r.all_reduce(local);
            const long total = calls;
            calls = 0;
            throw_at = w.rank() == bad ? total : -1;
            bool right = false;
            try {
                (void)r.all_reduce(local);
                right = total == 0 && w.rank() == bad; // no combine here: nothing could throw
            } catch (const op_error&) {
                right = w.rank() == bad;
            } catch (const remote_failure& e) {
                right = w.rank() != bad && e.info.rank == bad;
            }
            const bool bad_combined = boost::mpi::all_reduce(w, w.rank() == bad && total > 0, std::logical_or<bool>());
            if (bad_combined) {
                BOOST_CHECK_MESSAGE(testing::all_ranks(w, right),
                                    E::name << ": the operator threw in rank " << bad << "'s last combine");
            }
        }
    });
}

// Defect 4: the remote failure carries the exception's type name with its text.
BOOST_AUTO_TEST_CASE(remote_failure_names_the_exception_type)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return;
    }
    const std::uint64_t n = 4 * static_cast<std::uint64_t>(w.size());
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = values(n, 0.5);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        auto op = [armed = w.rank() == 0](double x, double y) {
            if (armed) {
                throw op_error("refused");
            }
            return x + y;
        };
        reducer<double, decltype(op), kernel::scalar, E> r(w, l, op);
        bool right = w.rank() == 0;
        try {
            (void)r.all_reduce(local);
            right = false;
        } catch (const op_error&) {
        } catch (const remote_failure& e) {
            const std::string what = e.what();
            right = e.info.type.find("op_error") != std::string::npos && e.info.text == "refused" &&
                    what.find("op_error") != std::string::npos && what.find("refused") != std::string::npos;
        }
        BOOST_CHECK_MESSAGE(testing::all_ranks(w, right), E::name << ": the exception's type or text was lost");
    });
}

namespace {

/// The message every rank threw (empty if none), gathered: true iff all ranks threw the same.
bool same_error_everywhere(const boost::mpi::communicator& w, const std::string& mine)
{
    std::vector<std::string> all;
    boost::mpi::all_gather(w, mine, all);
    for (const auto& m : all) {
        if (m.empty() || m != all[0]) {
            return false;
        }
    }
    return true;
}

template <class F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

} // namespace

// Defect 2: a reduce whose root differs between ranks (an erroneous program) left a message
// that a later call took as its own, returning the previous call's value, even 4096 calls
// later (the call number in a tag wraps) and under native (MPI_Reduce with differing roots).
BOOST_AUTO_TEST_CASE(differing_roots_never_give_a_stale_result)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return;
    }
    const std::uint64_t n = 5 * static_cast<std::uint64_t>(w.size());
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto b = l.block_of(w.rank());
    const int last = w.size() - 1;
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        reducer<double, std::plus<double>, kernel::scalar, E> r(w, l);
        const auto first = values(n, 100.0);
        const std::span<const double> mine(first.data() + b.start, b.count);
        // Rank 0 names the last rank as the root, the others rank 0.
        try {
            (void)r.reduce(mine, w.rank() == 0 ? last : 0);
        } catch (const std::exception&) {
        }
        auto check = [&](int k, int root) {
            const auto next = values(n, static_cast<double>(k));
            const std::span<const double> part(next.data() + b.start, b.count);
            const double want = testing::oracle_reduce(next, std::plus<double>());
            bool right = false;
            try {
                const auto v = root < 0 ? std::optional<double>(r.all_reduce(part)) : r.reduce(part, root);
                right = root >= 0 && w.rank() != root ? !v : v && testing::bits_of(*v) == testing::bits_of(want);
            } catch (const std::exception&) {
            }
            BOOST_CHECK_MESSAGE(testing::all_ranks(w, right), E::name << ": call " << k << " after differing roots");
        };
        const std::string_view name = E::name;
        if (w.size() == 3 && (name == "direct" || name == "binomial" || name == "dual4" || name == "native")) {
            // The call number in a tag is modulo 4096: no call takes a message from rank 0 on
            // the last rank (where a stale one would wait) until 4096 calls after the bad one
            // (point-to-point results, MPI_Bcast, the library's reduction).
            for (int k = 1; k < 4096; ++k) {
                (void)r.reduce(mine, 0);
            }
            check(4096, last);
        } else {
            check(1, last);
        }
        check(0, -1);
    });
}

// A failed reduce throws on every rank (a wrong size or a throwing operator on one rank),
// not only on the root and the ranks whose part of the exchange saw the failure.
BOOST_AUTO_TEST_CASE(failed_reduce_throws_on_every_rank)
{
    const auto& w = testing::world();
    const std::uint64_t n = 6 * static_cast<std::uint64_t>(w.size()) + 1;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = values(n, 0.5);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    const std::vector<double> wrong(b.count + 1, 1.0);
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        for (const int bad : {0, w.size() - 1}) {
            bool armed = false; // armed after construction (automatic's calibration calls the operator)
            auto op = [&armed](double x, double y) {
                if (armed) {
                    throw op_error("refused in reduce");
                }
                return x + y;
            };
            reducer<double, std::plus<double>, kernel::scalar, E> sized(w, l);
            reducer<double, decltype(op), kernel::scalar, E> throwing(w, l, op);
            armed = w.rank() == bad;
            for (const int root : {0, w.size() - 1}) {
                bool threw = false;
                try {
                    (void)sized.reduce(w.rank() == bad ? std::span<const double>(wrong) : good, root);
                } catch (const local_size_error& e) {
                    threw = std::string(e.what()).find("rank " + std::to_string(bad)) != std::string::npos;
                }
                BOOST_CHECK_MESSAGE(testing::all_ranks(w, threw),
                                    E::name << ": wrong size on rank " << bad << ", reduce to " << root);
                bool right = false;
                try {
                    (void)throwing.reduce(good, root);
                } catch (const op_error&) {
                    right = w.rank() == bad;
                } catch (const remote_failure& e) {
                    right = w.rank() != bad && e.info.rank == bad;
                }
                const bool bad_combined = boost::mpi::all_reduce(w, w.rank() == bad && b.count > 1, std::logical_or<bool>());
                if (bad_combined) {
                    BOOST_CHECK_MESSAGE(testing::all_ranks(w, right),
                                        E::name << ": operator threw on rank " << bad << ", reduce to " << root);
                }
                const auto v = sized.reduce(good, root);
                BOOST_CHECK(v.has_value() == (w.rank() == root));
            }
        }
    });
}

// A root out of range on one rank only: every rank throws std::invalid_argument (reducer and
// the one-call treefold::reduce), and the next call works.
BOOST_AUTO_TEST_CASE(root_out_of_range_on_one_rank)
{
    const auto& w = testing::world();
    const std::uint64_t n = 4 * static_cast<std::uint64_t>(w.size()) + 1;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = values(n, 2.0);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    const double want = testing::oracle_reduce(xs, std::plus<double>());
    const int last = w.size() - 1;
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        reducer<double, std::plus<double>, kernel::scalar, E> r(w, l);
        for (const int bad_root : {-1, w.size()}) {
            bool threw = false;
            try {
                (void)r.reduce(good, w.rank() == last ? bad_root : 0);
            } catch (const std::invalid_argument& e) {
                threw = std::string(e.what()).find("root " + std::to_string(bad_root)) != std::string::npos;
            }
            BOOST_CHECK_MESSAGE(testing::all_ranks(w, threw), E::name << ": root " << bad_root << " on rank " << last);
        }
        const auto v = r.reduce(good, 0);
        BOOST_CHECK(w.rank() == 0 ? v && testing::bits_of(*v) == testing::bits_of(want) : !v);
    });
    bool threw = false;
    try {
        (void)treefold::reduce(w, good, w.rank() == last ? w.size() : 0);
    } catch (const std::invalid_argument&) {
        threw = true;
    }
    BOOST_CHECK_MESSAGE(testing::all_ranks(w, threw), "one-call reduce: root out of range on rank " << last);
    const auto v = treefold::reduce(w, good, last);
    BOOST_CHECK(w.rank() == last ? v && testing::bits_of(*v) == testing::bits_of(want) : !v);
}

// The checking level catches an element type that differs between ranks (equal sizes, so
// nothing else would tell): the same std::invalid_argument on every rank, naming it.
BOOST_AUTO_TEST_CASE(checking_level_compares_element_types)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return;
    }
    const auto l = layout::block_layout::from_counts(layout::even_lower(12, w.size()));
    const auto b = l.block_of(w.rank());
    std::string m;
    if (w.rank() == 0) {
        const std::vector<std::int64_t> xs(b.count, 3);
        reducer<std::int64_t, std::plus<>, kernel::scalar, exchange::tree<>> r(w, l, {}, checking::on);
        m = error_of([&] { (void)r.all_reduce(xs); });
    } else {
        const std::vector<double> xs(b.count, 3.0);
        reducer<double, std::plus<>, kernel::scalar, exchange::tree<>> r(w, l, {}, checking::on);
        m = error_of([&] { (void)r.all_reduce(xs); });
    }
    BOOST_CHECK_MESSAGE(same_error_everywhere(w, m) && m.find("element type") != std::string::npos, m);
}

// Defect 2, the checking level: a root, call or size that differs between ranks throws the
// same std::invalid_argument on every rank before any message, and the reducer still works.
BOOST_AUTO_TEST_CASE(checking_level_throws_the_same_error_everywhere)
{
    const auto& w = testing::world();
    const std::uint64_t n = 3 * static_cast<std::uint64_t>(w.size()) + 2;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = values(n, 3.0);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    const double want = testing::oracle_reduce(xs, std::plus<double>());
    for_each_exchange([&]<class E>(std::type_identity<E>) {
        reducer<double, std::plus<double>, kernel::scalar, E> r(w, l, {}, checking::on);
        const int p = w.size();
        std::string m = error_of([&] { (void)r.reduce(good, w.rank() == 0 ? p : 0); });
        BOOST_CHECK_MESSAGE(same_error_everywhere(w, m), E::name << ": out-of-range root on rank 0: " << m);
        if (p > 1) {
            m = error_of([&] { (void)r.reduce(good, w.rank() == 0 ? 1 : 0); });
            BOOST_CHECK_MESSAGE(same_error_everywhere(w, m), E::name << ": differing roots: " << m);
            m = error_of([&] {
                if (w.rank() == p - 1) {
                    (void)r.reduce(good, 0);
                } else {
                    (void)r.all_reduce(good);
                }
            });
            BOOST_CHECK_MESSAGE(same_error_everywhere(w, m), E::name << ": reduce against all_reduce: " << m);
        }
        const std::vector<double> wrong(b.count + 1, 1.0);
        m = error_of([&] { (void)r.all_reduce(w.rank() == p - 1 ? std::span<const double>(wrong) : good); });
        BOOST_CHECK_MESSAGE(same_error_everywhere(w, m) && m.find("rank " + std::to_string(p - 1)) != std::string::npos,
                            E::name << ": wrong size: " << m);
        BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(good)), testing::bits_of(want));
        const auto at_root = r.reduce(good, p - 1);
        BOOST_CHECK(at_root.has_value() == (w.rank() == p - 1));
    });
}

// The environment variable turns the checks on, on every rank even if only one rank sets it.
BOOST_AUTO_TEST_CASE(checking_level_from_the_environment)
{
    const auto& w = testing::world();
    const auto l = layout::block_layout::from_counts(layout::even_lower(10, w.size()));
    const auto xs = values(10, 1.0);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    if (w.rank() == 0) {
        ::setenv("TREEFOLD_CHECK", "1", 1);
    }
    reducer<double, std::plus<double>, kernel::scalar, exchange::direct> checked(w, l);
    ::unsetenv("TREEFOLD_CHECK");
    reducer<double, std::plus<double>, kernel::scalar, exchange::direct> unchecked(w, l);
    // The direct exchange's all_reduce calls no MPI collective: the check's is the only one.
    (void)checked.all_reduce(good);
    (void)unchecked.all_reduce(good);
    BOOST_CHECK_EQUAL(checked.last_counters().collectives, 1u);
    BOOST_CHECK_EQUAL(unchecked.last_counters().collectives, 0u);
}

// Operator identity: the check compares a hash of the operator's type (ranks of one program
// always agree, so the check function is exercised directly).
BOOST_AUTO_TEST_CASE(checking_level_compares_operator_identity)
{
    const auto& w = testing::world();
    net::counters c;
    const net::call_signature mine{-1, 3, 3, w.rank() == w.size() - 1 ? 7u : 5u};
    const std::string m = error_of([&] { net::check_same_call(w, mine, c); });
    BOOST_CHECK(w.size() == 1 ? m.empty() : same_error_everywhere(w, m) && m.find("operator") != std::string::npos);
}

// Defect 6: MPI_COMM_NULL threw nothing and aborted inside MPI.
BOOST_AUTO_TEST_CASE(null_communicator_throws)
{
    const boost::mpi::communicator null_comm(MPI_COMM_NULL, boost::mpi::comm_attach);
    const auto l = layout::block_layout::from_counts(std::vector<std::uint64_t>{4});
    BOOST_CHECK_THROW((reducer<double>(null_comm, l)), std::invalid_argument);
}
