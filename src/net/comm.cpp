// The attributes net/transport.hpp keeps on user communicators (raw MPI: Boost.MPI has no
// attribute caching): the private duplicate, and the one-call functions' plan cache.
#include "treefold/net/transport.hpp"

#include "launcher.hpp"

#include <map>
#include <mutex>
#include <set>
#include <typeindex>

namespace treefold::net {

namespace {

int free_private_comm(MPI_Comm /*comm*/, int /*keyval*/, void* attribute, void* /*extra*/)
{
    auto* dup = static_cast<MPI_Comm*>(attribute);
    const int rc = MPI_Comm_free(dup);
    delete dup;
    return rc;
}

int make_keyval(MPI_Comm_delete_attr_function* on_delete)
{
    int key = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &key, nullptr) != MPI_SUCCESS) {
        key = MPI_KEYVAL_INVALID;
    }
    return key;
}

} // namespace

const char* unusable_communicator(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) {
        return "treefold: the communicator is MPI_COMM_NULL";
    }
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) {
        return "treefold: the communicator is not valid";
    }
    if (inter != 0) {
        return "treefold: intercommunicators are not supported";
    }
    return started_alone(); // a program that called MPI_Init itself under the other MPI's launcher

}

int private_comm(MPI_Comm comm, MPI_Comm* out)
{
    // Created once (thread-safe static initialisation). Duplicates of the user's
    // communicator do not inherit the attribute: they get their own private copy.
    static const int private_keyval = make_keyval(free_private_comm);
    if (private_keyval == MPI_KEYVAL_INVALID) {
        return MPI_ERR_KEYVAL;
    }
    void* attribute = nullptr;
    int found = 0;
    int rc = MPI_Comm_get_attr(comm, private_keyval, &attribute, &found);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (found != 0) {
        *out = *static_cast<MPI_Comm*>(attribute);
        return MPI_SUCCESS;
    }
    auto* dup = new MPI_Comm(MPI_COMM_NULL);
    rc = MPI_Comm_dup(comm, dup);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_set_attr(comm, private_keyval, dup);
    }
    if (rc != MPI_SUCCESS) {
        if (*dup != MPI_COMM_NULL) {
            MPI_Comm_free(dup);
        }
        delete dup;
        return rc;
    }
    *out = *dup;
    return MPI_SUCCESS;
}

// The one-call functions' plan caches: one map per user communicator, attached as an
// attribute, plus a hook on MPI_COMM_SELF that empties every cache when MPI_Finalize starts
// (MPI deletes MPI_COMM_SELF's attributes first; MPI_COMM_WORLD's may never be deleted).
namespace {

struct plan_cache {
    std::map<std::type_index, std::unique_ptr<cached_plan>> plans;
};

std::mutex registry_mutex;
std::set<plan_cache*>& registry()
{
    static auto* caches = new std::set<plan_cache*>; // never destroyed: used until MPI_Finalize
    return *caches;
}

int free_plan_cache(MPI_Comm /*comm*/, int /*keyval*/, void* attribute, void* /*extra*/)
{
    auto* cache = static_cast<plan_cache*>(attribute);
    {
        const std::lock_guard lock(registry_mutex);
        registry().erase(cache);
    }
    delete cache;
    return MPI_SUCCESS;
}

int empty_every_cache(MPI_Comm /*comm*/, int /*keyval*/, void* /*attribute*/, void* /*extra*/)
{
    std::set<plan_cache*> caches;
    {
        const std::lock_guard lock(registry_mutex);
        caches = registry();
    }
    for (plan_cache* cache : caches) {
        cache->plans.clear();
    }
    return MPI_SUCCESS;
}

void check(int rc, const char* what)
{
    if (rc != MPI_SUCCESS) {
        throw std::runtime_error(std::string("treefold: could not ") + what + " (MPI error " + std::to_string(rc) + ")");
    }
}

} // namespace

std::unique_ptr<cached_plan>& cached_plan_slot(MPI_Comm comm, const std::type_info& key)
{
    static const int cache_keyval = make_keyval(free_plan_cache);
    static const int finalize_keyval = [] {
        const int k = make_keyval(empty_every_cache);
        if (k != MPI_KEYVAL_INVALID && MPI_Comm_set_attr(MPI_COMM_SELF, k, nullptr) != MPI_SUCCESS) {
            return static_cast<int>(MPI_KEYVAL_INVALID);
        }
        return k;
    }();
    if (cache_keyval == MPI_KEYVAL_INVALID || finalize_keyval == MPI_KEYVAL_INVALID) {
        check(MPI_ERR_KEYVAL, "create the plan cache's attribute keys");
    }
    void* attribute = nullptr;
    int found = 0;
    check(MPI_Comm_get_attr(comm, cache_keyval, &attribute, &found), "read the plan cache attribute");
    if (found == 0) {
        auto cache = std::make_unique<plan_cache>();
        check(MPI_Comm_set_attr(comm, cache_keyval, cache.get()), "attach the plan cache");
        attribute = cache.release();
        const std::lock_guard lock(registry_mutex);
        registry().insert(static_cast<plan_cache*>(attribute));
    }
    return static_cast<plan_cache*>(attribute)->plans[std::type_index(key)];
}

} // namespace treefold::net
