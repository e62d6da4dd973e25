// Preloaded (LD_PRELOAD) into the ranks of MPICH test runs by the project's harness
// (cmake/TreefoldDependencies.cmake, TREEFOLD_MPI_WAIT_PRELOAD). MPICH's ch4:ucx ranks wait by
// calling ucp_worker_progress in a loop and never give up the CPU (MPIR_CVAR_POLLS_BEFORE_YIELD
// is not consulted on that path), so when a job has more ranks on a node than CPUs, the rank
// that holds the awaited message gets a fraction of a core: a 4-rank test on 2 cores took 3.6 s
// instead of 0.3 s. This wrapper lets a rank sleep 50 us after 64 empty polls in a row, and
// only in such a job (MPI_LOCALNRANKS, set by hydra, above the CPUs this process may use);
// otherwise it only forwards. Messages, their order and the results are untouched: a rank may
// be descheduled at any time anyway.
#include <dlfcn.h>
#include <sched.h>

#include <cstdlib>
#include <ctime>

namespace {

using progress_fn = unsigned (*)(void*);

bool oversubscribed() {
  const char* local = std::getenv("MPI_LOCALNRANKS");
  cpu_set_t cpus;
  if (local == nullptr || sched_getaffinity(0, sizeof cpus, &cpus) != 0) return false;
  return std::atoi(local) > CPU_COUNT(&cpus);
}

}  // namespace

extern "C" unsigned ucp_worker_progress(void* worker) {
  static const auto real = reinterpret_cast<progress_fn>(dlsym(RTLD_NEXT, "ucp_worker_progress"));
  static const bool sleepy = oversubscribed();
  static thread_local unsigned idle = 0;
  const unsigned progressed = real(worker);
  if (!sleepy || progressed != 0) {
    idle = 0;
  } else if (++idle == 64) {
    idle = 0;
    const timespec pause{0, 50'000};
    nanosleep(&pause, nullptr);
  }
  return progressed;
}
