// Bad layouts, wrong local sizes, throwing operators and bad roots: the documented
// exception on every rank, no hang, and the reducer still works afterwards.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/reducer.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

struct op_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<double> iota_values(std::uint64_t n)
{
    std::vector<double> xs(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        xs[i] = 0.5 + static_cast<double>(i);
    }
    return xs;
}

template <class E>
void wrong_local_size_throws_everywhere()
{
    const auto& w = testing::world();
    const std::uint64_t n = 100 + static_cast<std::uint64_t>(w.size());
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = iota_values(n);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    reducer<double, std::plus<double>, kernel::scalar, E> r(w, l);
    for (int bad = 0; bad < w.size(); ++bad) {
        // Rank `bad` passes one value too few (or one too many when its block is empty).
        std::span<const double> local = good;
        std::vector<double> one_more(good.begin(), good.end());
        one_more.push_back(1.0);
        if (w.rank() == bad) {
            local = b.count > 0 ? good.first(b.count - 1) : std::span<const double>(one_more);
        }
        bool threw = false;
        try {
            r.all_reduce(local);
        } catch (const std::invalid_argument& e) {
            threw = std::string(e.what()).find("rank " + std::to_string(bad)) != std::string::npos;
        }
        BOOST_CHECK_MESSAGE(threw, E::name << ": rank " << w.rank() << " did not throw for bad rank " << bad);
        // The plan is intact: the next call is correct on every rank.
        const double v = r.all_reduce(good);
        BOOST_CHECK_EQUAL(testing::bits_of(v), testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())));
    }
}

template <class E>
void throwing_operator_reaches_everyone()
{
    const auto& w = testing::world();
    const std::uint64_t n = 64 * static_cast<std::uint64_t>(w.size()) + 3;
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto xs = iota_values(n);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    for (int bad = 0; bad < w.size(); ++bad) {
        // The operator throws on rank `bad` only (state captured per rank).
        const bool armed = w.rank() == bad;
        auto op = [armed](double x, double y) {
            if (armed) {
                throw op_error("operator refused");
            }
            return x + y;
        };
        reducer<double, decltype(op), kernel::scalar, E> r(w, l, op);
        bool right_exception = false;
        try {
            r.all_reduce(local);
        } catch (const op_error&) {
            right_exception = armed; // the rank where it threw sees the operator's own exception
        } catch (const remote_failure& e) {
            right_exception = !armed && e.info.rank == bad;
        }
        BOOST_CHECK_MESSAGE(right_exception, E::name << ": rank " << w.rank() << " got the wrong outcome when the operator threw on rank " << bad);
    }
}

/// remote_failure names the rank where the operator threw and carries its message, cut to
/// failure::text_bytes, on every other rank, whatever the exchange's failure path.
template <class E>
void remote_failure_carries_rank_and_text()
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return; // no other rank to tell
    }
    const std::uint64_t n = 16 * static_cast<std::uint64_t>(w.size()) + 5;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = iota_values(n);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    const std::string why = "operator refused: " + std::string(150, 'x');
    const int bad = w.size() - 1;
    auto op = [armed = w.rank() == bad, &why](double x, double y) {
        if (armed) {
            throw op_error(why);
        }
        return x + y;
    };
    reducer<double, decltype(op), kernel::scalar, E> r(w, l, op);
    bool right = w.rank() == bad;
    try {
        r.all_reduce(local);
        right = false;
    } catch (const op_error& e) {
        right = w.rank() == bad && std::string(e.what()) == why;
    } catch (const remote_failure& e) {
        const std::string cut = why.substr(0, failure::text_bytes);
        right = w.rank() != bad && e.info.rank == bad && e.info.what == failure::code::op_threw &&
                e.info.text == cut && std::string(e.what()).find(cut) != std::string::npos &&
                std::string(e.what()).find("rank " + std::to_string(bad)) != std::string::npos;
    }
    BOOST_CHECK_MESSAGE(testing::all_ranks(w, right), E::name << ": remote_failure lost the rank or the text");
}

/// An operator that throws something other than a std::exception: that rank rethrows it, the
/// others get remote_failure naming the rank with no text (there is none to carry).
void non_standard_exception_reaches_everyone()
{
    const auto& w = testing::world();
    const std::uint64_t n = 8 * static_cast<std::uint64_t>(w.size()) + 1;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = iota_values(n);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    const int bad = 0;
    auto op = [armed = w.rank() == bad](double x, double y) {
        if (armed) {
            throw 7;
        }
        return x + y;
    };
    reducer<double, decltype(op), kernel::scalar> r(w, l, op);
    bool right = false;
    try {
        r.all_reduce(local);
    } catch (int code) {
        right = w.rank() == bad && code == 7;
    } catch (const remote_failure& e) {
        right = w.rank() != bad && e.info.rank == bad && e.info.what == failure::code::op_threw && e.info.text.empty();
    }
    BOOST_CHECK_MESSAGE(testing::all_ranks(w, right), "a non-standard exception was not reported as such");
}


/// A serialized element whose encoding (and decoding) throws on a rank that refuses (its
/// label makes it not trivially copyable, so it travels through Boost.Serialization).
struct fragile {
    double v = 0;
    std::string label;
    static inline bool refuse = false;
    template <class Archive>
    void serialize(Archive& ar, unsigned /*version*/)
    {
        if (refuse) {
            throw op_error("cannot serialize this value");
        }
        ar & v;
    }
};

/// A serialization failure on one rank reaches every rank like an operator's failure: that
/// rank rethrows its own exception, the others get remote_failure with its rank and text.
template <class E>
void serialization_failure_reaches_everyone()
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return; // nothing travels
    }
    const std::uint64_t n = 3 * static_cast<std::uint64_t>(w.size()) + 1;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto b = l.block_of(w.rank());
    std::vector<fragile> local(b.count);
    for (std::uint64_t i = 0; i < b.count; ++i) {
        local[i].v = 0.5 + static_cast<double>(b.start + i);
    }
    auto plus = [](const fragile& x, const fragile& y) { return fragile{x.v + y.v, {}}; };
    static_assert(!std::is_trivially_copyable_v<fragile>);
    reducer<fragile, decltype(plus), kernel::scalar, E> r(w, l, plus);
    for (int bad = 0; bad < w.size(); ++bad) {
        for (int root = -1; root < w.size(); root += w.size()) { // all_reduce, then reduce to the last rank
            fragile::refuse = w.rank() == bad;
            bool right = false;
            try {
                if (root < 0) {
                    (void)r.all_reduce(local);
                } else {
                    (void)r.reduce(local, root);
                }
            } catch (const op_error& e) {
                right = w.rank() == bad && std::string(e.what()) == "cannot serialize this value";
            } catch (const remote_failure& e) {
                right = w.rank() != bad && e.info.rank == bad &&
                        std::string(e.what()).find("cannot serialize this value") != std::string::npos;
            }
            fragile::refuse = false;
            BOOST_CHECK_MESSAGE(testing::all_ranks(w, right),
                                E::name << ": serialization failed on rank " << bad << (root < 0 ? " in all_reduce" : " in reduce"));
            const fragile v = r.all_reduce(local); // the reducer still works
            BOOST_CHECK_EQUAL(v.v, 0.5 * static_cast<double>(n) + static_cast<double>(n) * static_cast<double>(n - 1) / 2);
        }
    }
}
} // namespace

BOOST_AUTO_TEST_CASE(non_standard_exception_from_the_operator) { non_standard_exception_reaches_everyone(); }

BOOST_AUTO_TEST_CASE(serialization_failure_tree) { serialization_failure_reaches_everyone<exchange::tree<>>(); }
BOOST_AUTO_TEST_CASE(serialization_failure_direct) { serialization_failure_reaches_everyone<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(serialization_failure_scheduled)
{
    serialization_failure_reaches_everyone<exchange::scheduled<>>();
}
BOOST_AUTO_TEST_CASE(serialization_failure_automatic) { serialization_failure_reaches_everyone<exchange::automatic>(); }

BOOST_AUTO_TEST_CASE(remote_failure_rank_and_text_direct) { remote_failure_carries_rank_and_text<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(remote_failure_rank_and_text_tree) { remote_failure_carries_rank_and_text<exchange::tree<>>(); }
BOOST_AUTO_TEST_CASE(remote_failure_rank_and_text_one_sided)
{
    remote_failure_carries_rank_and_text<rma::one_sided>();
}
BOOST_AUTO_TEST_CASE(remote_failure_rank_and_text_scheduled)
{
    remote_failure_carries_rank_and_text<exchange::scheduled<>>();
}

BOOST_AUTO_TEST_CASE(ranks_disagreeing_on_n)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return; // one rank cannot disagree with itself
    }
    const std::uint64_t n = w.rank() == w.size() - 1 ? 11 : 10;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    BOOST_CHECK_THROW((reducer<double>(w, l)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(ranks_disagreeing_on_blocks)
{
    const auto& w = testing::world();
    if (w.size() == 1) {
        return;
    }
    const auto counts = w.rank() == 0 ? layout::even_lower(100, w.size()) : layout::even_upper(101, w.size());
    const auto l = layout::block_layout::from_counts(w.rank() == 0 ? layout::even_upper(100, w.size()) : counts);
    const auto l_same_n = layout::block_layout::from_counts(w.rank() == 0 ? layout::even_lower(101, w.size()) : counts);
    BOOST_CHECK_THROW((reducer<double>(w, l)), std::invalid_argument);
    BOOST_CHECK_THROW((reducer<double>(w, l_same_n)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(layout_for_another_number_of_ranks)
{
    const auto& w = testing::world();
    const int p = w.rank() == 0 ? w.size() + 1 : w.size();
    const auto l = layout::block_layout::from_counts(layout::even_lower(50, p));
    BOOST_CHECK_THROW((reducer<double, std::plus<double>, kernel::scalar, exchange::tree<>>(w, l)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(declared_blocks_with_gap_or_overlap)
{
    const auto& w = testing::world();
    // Rank r declares [10 r, 10 r + 10), except the last rank which leaves a gap or overlaps.
    const std::uint64_t start = 10 * static_cast<std::uint64_t>(w.rank());
    const bool last = w.rank() == w.size() - 1;
    BOOST_CHECK_THROW(layout_from_block(w, last ? start + 1 : start, 10), std::invalid_argument);
    if (w.size() > 1) {
        BOOST_CHECK_THROW(layout_from_block(w, last ? start - 1 : start, 10), std::invalid_argument);
    }
    // And the good one works on every rank.
    BOOST_CHECK_EQUAL(layout_from_block(w, start, 10).size(), 10u * static_cast<std::uint64_t>(w.size()));
}

BOOST_AUTO_TEST_CASE(wrong_local_size_direct) { wrong_local_size_throws_everywhere<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(wrong_local_size_tree) { wrong_local_size_throws_everywhere<exchange::tree<>>(); }
BOOST_AUTO_TEST_CASE(throwing_operator_direct) { throwing_operator_reaches_everyone<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(throwing_operator_tree) { throwing_operator_reaches_everyone<exchange::tree<>>(); }
BOOST_AUTO_TEST_CASE(wrong_local_size_native) { wrong_local_size_throws_everywhere<exchange::native>(); }
BOOST_AUTO_TEST_CASE(throwing_operator_native) { throwing_operator_reaches_everyone<exchange::native>(); }
BOOST_AUTO_TEST_CASE(remote_failure_rank_and_text_native) { remote_failure_carries_rank_and_text<exchange::native>(); }
BOOST_AUTO_TEST_CASE(wrong_local_size_automatic) { wrong_local_size_throws_everywhere<exchange::automatic>(); }
BOOST_AUTO_TEST_CASE(throwing_operator_automatic) { throwing_operator_reaches_everyone<exchange::automatic>(); }

BOOST_AUTO_TEST_CASE(bad_root)
{
    const auto& w = testing::world();
    const auto l = layout::block_layout::from_counts(layout::even_lower(20, w.size()));
    reducer<double> r(w, l);
    const auto xs = iota_values(20);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    BOOST_CHECK_THROW(r.reduce(local, w.size()), std::invalid_argument);
    BOOST_CHECK_THROW(r.reduce(local, -1), std::invalid_argument);
    const auto v = r.reduce(local, w.size() - 1);
    BOOST_CHECK_EQUAL(v.has_value(), w.rank() == w.size() - 1);
}

BOOST_AUTO_TEST_CASE(wrong_size_in_reduce_reaches_every_rank)
{
    const auto& w = testing::world();
    const std::uint64_t n = 40;
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, w.size()));
    const auto xs = iota_values(n);
    const auto b = l.block_of(w.rank());
    const std::span<const double> good(xs.data() + b.start, b.count);
    reducer<double, std::plus<double>, kernel::scalar, exchange::tree<>> r(w, l);
    const int bad = w.size() - 1;
    const int root = 0;
    bool threw = false;
    try {
        r.reduce(w.rank() == bad ? good.first(b.count - 1) : good, root);
    } catch (const std::invalid_argument&) {
        threw = true;
    }
    BOOST_CHECK(testing::all_ranks(w, threw)); // every rank, not only the root and the bad rank
    BOOST_CHECK(r.reduce(good, root).has_value() == (w.rank() == root));
}
