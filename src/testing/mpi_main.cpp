// The main of the MPI test kit (library treefold::testing): Boost.Test under MPI, with every
// rank agreeing on pass or fail and no rank left waiting for one that failed.
//
// Why it is built this way (doc/guide.md, "Testing with MPI", is the user's version):
// - MPI outlives Boost.Test: the environment lives here, around unit_test_main, so the run's
//   exit code can be agreed with one collective after the last test case.
// - A BOOST_REQUIRE that fails (or an exception escaping a test case) on one rank ends that
//   rank's test case early, while the others may be blocked in a collective that rank will
//   never join; left alone the job hangs until its timeout, or the failing rank's next test
//   case matches the others' pending messages. So after every test case each rank joins an
//   agreement (a nonblocking all-gather of its outcome on a private duplicate of the world).
//   A rank whose case passed waits for it; a rank whose case was aborted waits at most a grace
//   period (TREEFOLD_TEST_GRACE seconds, default 5): if every rank arrives, the run goes on and
//   rank 0 names the ranks on which the case failed; if not, the others are stuck, and the
//   failing rank prints why, flushes Boost.Test's log (which holds the failed assertion), and
//   calls MPI_Abort, which ends every rank at once.
#define BOOST_TEST_MODULE treefold_mpi_test
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "treefold/testing/mpi_test.hpp"

#include "../net/launcher.hpp"

#include <boost/mpi/environment.hpp>
#include <boost/test/execution_monitor.hpp>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace utf = boost::unit_test;

/// Seconds a rank whose test case aborted waits for the others before ending the job.
double grace_seconds()
{
    const char* s = std::getenv("TREEFOLD_TEST_GRACE");
    if (s != nullptr && *s != '\0') {
        char* end = nullptr;
        const double v = std::strtod(s, &end);
        if (*end == '\0' && v >= 0) {
            return v;
        }
        std::fprintf(stderr, "treefold::testing: ignoring TREEFOLD_TEST_GRACE='%s' (want seconds >= 0)\n", s);
    }
    return 5.0;
}

/// The MPI thread level asked for: TREEFOLD_TEST_MPI_THREADS = single (default), funneled,
/// serialized or multiple.
boost::mpi::threading::level thread_level()
{
    using boost::mpi::threading::level;
    const char* s = std::getenv("TREEFOLD_TEST_MPI_THREADS");
    const std::string_view v = s != nullptr ? s : "single";
    for (const auto& [name, named] :
         {std::pair{"funneled", level::funneled}, {"serialized", level::serialized}, {"multiple", level::multiple}}) {
        if (v == name) {
            return named;
        }
    }
    return level::single;
}

void flush_all()
{
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
}

/// The per-test-case agreement described at the top of this file.
class case_agreement final : public utf::test_observer {
public:
    explicit case_agreement(double grace) : grace_(grace)
    {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    void test_unit_start(const utf::test_unit& tu) override
    {
        if (tu.p_type == utf::TUT_CASE) {
            outcome_ = passed;
            what_.clear();
        }
    }

    void assertion_result(utf::assertion_result ar) override
    {
        if (ar == utf::AR_FAILED && outcome_ == passed) {
            outcome_ = failed;
        }
    }

    void exception_caught(const boost::execution_exception& ex) override { what_ = std::string(ex.what().begin(), ex.what().end()); }

    void test_unit_aborted(const utf::test_unit& tu) override
    {
        if (tu.p_type == utf::TUT_CASE) {
            outcome_ = aborted;
        }
    }

    void test_unit_finish(const utf::test_unit& tu, unsigned long /*elapsed*/) override
    {
        if (tu.p_type != utf::TUT_CASE) {
            return;
        }
        std::vector<int> all(static_cast<std::size_t>(size_));
        const int mine = outcome_;
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Iallgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm_, &req);
        if (outcome_ != aborted) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            wait_or_abort(req, tu.full_name());
        }
        std::string ranks;
        for (int r = 0; r < size_; ++r) {
            if (all[static_cast<std::size_t>(r)] != passed) {
                ranks += " " + std::to_string(r);
            }
        }
        if (!ranks.empty() && rank_ == 0) {
            flush_all();
            std::fprintf(stderr, "treefold::testing: test case \"%s\" failed on rank(s)%s of %d\n",
                         tu.full_name().c_str(), ranks.c_str(), size_);
            std::fflush(stderr);
        }
    }

    void test_finish() override
    {
        if (comm_ != MPI_COMM_NULL) {
            MPI_Comm_free(&comm_);
        }
    }

    int priority() override { return 1000; } // after Boost.Test's own observers have logged

private:
    enum : int { passed = 0, failed = 1, aborted = 2 };

    void wait_or_abort(MPI_Request& req, const std::string& name)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_);
        int done = 0;
        for (;;) {
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            if (done != 0) {
                return;
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        flush_all();
        std::fprintf(stderr,
                     "treefold::testing: rank %d of %d: test case \"%s\" was aborted%s%s; the other rank(s) did not "
                     "finish it within %g s (most likely blocked in a call this rank left), so the job ends "
                     "here with MPI_Abort. The failed assertion is in this rank's log above.\n",
                     rank_, size_, name.c_str(), what_.empty() ? "" : " by: ", what_.c_str(), grace_);
        flush_all();
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    double grace_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
    int outcome_ = passed;
    std::string what_;
};

std::string module_name;

bool init_kit()
{
    if (!init_unit_test()) {
        return false;
    }
    if (!module_name.empty()) {
        utf::framework::master_test_suite().p_name.value = module_name;
    }
    static case_agreement agreement(grace_seconds());
    utf::framework::register_observer(agreement);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    // Started by another MPI's launcher, every rank would run the suite alone as p = 1.
    if (treefold::net::report_launcher_mismatch()) {
        return 1;
    }
    boost::mpi::environment env(argc, argv, thread_level());
    const boost::mpi::communicator& world = treefold::testing::world();
    if (argc > 0) {
        // The executable's name, so logs from several suites can be told apart.
        module_name = argv[0];
        module_name.erase(0, module_name.find_last_of('/') + 1);
    }
    const int rc = utf::unit_test_main(&init_kit, argc, argv);
    const int failed_here = rc != 0 ? 1 : 0;
    // Every rank finished every test case (see case_agreement), so this cannot hang.
    const int failed_ranks = boost::mpi::all_reduce(world, failed_here, std::plus<int>());
    flush_all();
    if (failed_here != 0) {
        std::fprintf(stderr, "treefold::testing: rank %d of %d FAILED\n", world.rank(), world.size());
    }
    if (world.rank() == 0) {
        std::printf("treefold::testing: %d of %d rank(s) failed\n", failed_ranks, world.size());
    }
    return failed_ranks == 0 ? 0 : 1;
}
