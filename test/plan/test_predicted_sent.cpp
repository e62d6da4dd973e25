// One source of truth: for every exchange that runs a schedule and every communicator size
// up to the launch's p (sub-communicators of every size), the messages and bytes each rank's
// schedule predicts (plus the result's broadcast) are exactly what the reducer counts when it
// runs, in all_reduce and in reduce, and the result is right.
#include <boost/test/unit_test.hpp>

#include "support/conformance.hpp"
#include "support/mpi_test.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/plan/schedule.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi/collectives.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mpi = boost::mpi;
namespace tf = treefold;
namespace plan = treefold::plan;

namespace {

template <class E>
void check(const mpi::communicator& comm, const tf::layout::block_layout& l, const std::string& where)
{
    const plan::rank_schedule s = E::schedule(l, comm.rank());
    tf::reducer<double, std::plus<double>, tf::kernel::scalar, E> r(comm, l);
    const std::vector<double> ones(r.local_count(), 1.0);
    // Messages and payload bytes this rank predicts: its schedule, then its part of the
    // binomial broadcast where the result ends on the finisher (MPI_Bcast is a collective).
    std::uint64_t messages = s.sends.size();
    std::uint64_t bytes = s.bytes_sent(sizeof(double));
    std::uint64_t collectives = 0;
    if (s.result == plan::result_at::finisher) {
        const std::uint64_t b = tf::testing::broadcast_sends(comm.size(), comm.rank(), s.finisher);
        messages += b;
        bytes += b * sizeof(double);
    } else if (s.result == plan::result_at::finisher_mpi && comm.size() > 1) {
        collectives = 1;
    }
    for (const int root : {-1, comm.size() - 1}) {
        const std::string call = where + (root < 0 ? " all_reduce" : " reduce");
        if (root < 0) {
            BOOST_CHECK_MESSAGE(r.all_reduce(ones) == static_cast<double>(l.size()), call << ": wrong sum");
        } else {
            (void)r.reduce(ones, root);
        }
        const tf::net::counters& got = r.last_counters();
        BOOST_CHECK_MESSAGE(got.messages == messages && got.bytes == bytes && got.collectives == collectives,
                            call << " rank " << comm.rank() << ": sent " << got.messages << " messages, " << got.bytes
                                 << " bytes, " << got.collectives << " collectives; the schedule says " << messages
                                 << ", " << bytes << ", " << collectives);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(every_schedule_predicts_what_its_exchange_sends)
{
    tf::testing::on_every_size([](const mpi::communicator& sub) {
        const int p = sub.size();
        for (const std::uint64_t n : {std::uint64_t{3}, std::uint64_t{1000}}) {
            for (const auto& named : tf::testing::basic_layouts(n, p, 77 + static_cast<std::uint64_t>(p))) {
                tf::exchange::for_each_exchange<tf::all_exchanges>([&]<class E>(std::type_identity<E>) {
                    if constexpr (plan::scheduled_exchange<E>) {
                        check<E>(sub, named.layout,
                                 std::string(E::name) + " " + named.name + " N=" + std::to_string(n) + " p=" + std::to_string(p));
                    }
                });
            }
        }
        return std::vector<unsigned char>{};
    });
}
