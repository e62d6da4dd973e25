// The C API of include/treefold/treefold.h: argument checks agreed by every rank, contexts
// (a treefold::reducer each, context.hpp), and the one mapping from treefold's exceptions to
// MPI error classes. Raw MPI here only for handles Boost.MPI has no form for (MPI_Datatype,
// MPI_Op, error classes).

#include "treefold/treefold.h"

#include "context.hpp"
#include "errors.hpp"
#include "options.hpp"

#include "treefold/layouts.hpp"
#include "treefold/error.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/exception.hpp>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// A context takes one call at a time, so its one request lives in it: a treefold_request is a
// pointer to that slot, never freed by treefold_wait, so a waited copy of a request finds the
// slot empty (MPI_ERR_REQUEST) instead of freed memory.
struct treefold_request_s {
    std::unique_ptr<treefold::capi::detail::pending> call; // null: no call in flight
    bool ok = true; // false: this rank's buffers were unusable (the call still takes part)
    const char* what_is_wrong = nullptr;
};

struct treefold_context_s {
    std::unique_ptr<treefold::capi::detail::context> impl;
    treefold_request_s request;
};

namespace treefold::capi::detail {

namespace {

thread_local std::string last_message;

} // namespace

element element_of(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL) {
        return element::none;
    }
    // The handle's family (real, integer, complex) names the elements of 4, 8 and 16 bytes; its
    // size (MPI_Type_size) then picks one, so Fortran kinds (MPI_INTEGER under
    // -fdefault-integer-8, say) map by what they hold.
    const auto by_size = [type](element of4, element of8, element of16) {
        int bytes = 0;
        if (MPI_Type_size(type, &bytes) != MPI_SUCCESS) {
            return element::none;
        }
        return bytes == 4 ? of4 : bytes == 8 ? of8 : bytes == 16 ? of16 : element::none;
    };
    const auto in = [type](std::initializer_list<MPI_Datatype> family) {
        return std::find(family.begin(), family.end(), type) != family.end();
    };
    if (in({MPI_DOUBLE, MPI_FLOAT, MPI_DOUBLE_PRECISION, MPI_REAL, MPI_REAL4, MPI_REAL8})) {
        return by_size(element::f32, element::f64, element::none);
    }
    if (in({MPI_INT32_T, MPI_INT64_T, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_INTEGER, MPI_INTEGER4, MPI_INTEGER8})) {
        return by_size(element::i32, element::i64, element::none);
    }
    if (in({MPI_C_DOUBLE_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX16})) {
        return by_size(element::none, element::none, element::c64);
    }
    return element::none;
}

operation operation_of(MPI_Op op)
{
    // (MPI_Op handles are no constants under Open MPI: a static table, not constexpr)
    static const std::pair<MPI_Op, operation> known[] = {
        {MPI_SUM, operation::sum},      {MPI_PROD, operation::prod},    {MPI_MIN, operation::min},
        {MPI_MAX, operation::max},      {MPI_OP_NULL, operation::none}, {MPI_MAXLOC, operation::none},
        {MPI_MINLOC, operation::none},  {MPI_LAND, operation::none},    {MPI_BAND, operation::none},
        {MPI_LOR, operation::none},     {MPI_BOR, operation::none},     {MPI_LXOR, operation::none},
        {MPI_BXOR, operation::none},    {MPI_REPLACE, operation::none}, {MPI_NO_OP, operation::none}};
    for (const auto& [handle, o] : known) {
        if (op == handle) {
            return o;
        }
    }
    return operation::user;
}

int fail(int error_class, std::string message)
{
    last_message = std::move(message);
    return error_class;
}

int succeed()
{
    last_message.clear();
    return MPI_SUCCESS;
}

std::string class_name(int error_class)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(error_class, text, &len) != MPI_SUCCESS) {
        return "MPI error class " + std::to_string(error_class);
    }
    return std::string(text, static_cast<std::size_t>(len));
}

int fail_current_exception(bool during_call)
{
    try {
        throw;
    } catch (const api_error& e) {
        return fail(e.error_class, e.what());
    } catch (const call_mismatch& e) {
        switch (e.what_differs) {
        case call_mismatch::kind::root:
            return fail(MPI_ERR_ROOT, e.what());
        case call_mismatch::kind::element:
            return fail(MPI_ERR_TYPE, e.what());
        case call_mismatch::kind::op:
            return fail(MPI_ERR_OP, e.what());
        case call_mismatch::kind::form:
            return fail(MPI_ERR_ARG, e.what());
        }
        return fail(MPI_ERR_ARG, e.what());
    } catch (const mpi_call_error& e) {
        return fail(MPI_ERR_OP, std::string("treefold: the user-defined MPI_Op failed on this rank: ") + e.what());
    } catch (const remote_failure& e) {
        switch (e.info.what) {
        case failure::code::op_threw:
            return fail(MPI_ERR_OP, e.what());
        case failure::code::bad_buffer:
        case failure::code::local_size:
            return fail(MPI_ERR_BUFFER, e.what());
        case failure::code::out_of_order:
            return fail(MPI_ERR_INTERN, e.what());
        case failure::code::bad_root:
            return fail(MPI_ERR_ROOT, e.what());
        case failure::code::codec_threw:
        case failure::code::none:
            break;
        }
        return fail(MPI_ERR_OTHER, e.what());
    } catch (const boost::mpi::exception& e) {
        int cls = MPI_ERR_OTHER;
        MPI_Error_class(e.result_code(), &cls);
        return fail(cls, e.what());
    } catch (const std::invalid_argument& e) {
        // During a call the only wrong local size a C caller can cause is an unusable buffer
        // (the context knows the count); at creation it is a layout the ranks disagree on.
        if (during_call) {
            return fail(MPI_ERR_BUFFER, std::string("treefold: some rank passed a NULL buffer (") + e.what() + ")");
        }
        return fail(MPI_ERR_ARG, e.what());
    } catch (const std::domain_error& e) {
        return fail(MPI_ERR_COUNT, e.what());
    } catch (const std::bad_alloc&) {
        return fail(MPI_ERR_NO_MEM, "treefold: out of memory");
    } catch (const std::exception& e) {
        return fail(MPI_ERR_OTHER, e.what());
    } catch (...) {
        return fail(MPI_ERR_OTHER, "treefold: unknown exception");
    }
}

int check_comm(MPI_Comm comm)
{
    const char* why = net::unusable_communicator(comm);
    return why == nullptr ? MPI_SUCCESS : fail(MPI_ERR_COMM, why);
}

agreed_arguments agree(const boost::mpi::communicator& comm, local_check mine)
{
    constexpr std::size_t k = 4;
    const std::array<int, k> row{mine.error_class, static_cast<int>(mine.type), static_cast<int>(mine.op),
                                 static_cast<int>(mine.probe)};
    std::vector<int> all;
    boost::mpi::all_gather(comm, row.data(), static_cast<int>(k), all);
    const std::size_t p = all.size() / k;
    for (std::size_t r = 0; r < p; ++r) {
        const int cls = all[k * r];
        if (cls != MPI_SUCCESS) {
            if (mine.error_class != MPI_SUCCESS) {
                throw api_error(mine.error_class, mine.message);
            }
            throw api_error(cls, "treefold: rank " + std::to_string(r) + " passed an invalid argument (" +
                                     class_name(cls) + ")");
        }
    }
    for (std::size_t r = 1; r < p; ++r) {
        if (all[k * r + 1] != all[1]) {
            throw api_error(MPI_ERR_TYPE, "treefold: the ranks passed different datatypes (rank " + std::to_string(r) +
                                              "'s differs from rank 0's)");
        }
        if (all[k * r + 2] != all[2]) {
            throw api_error(MPI_ERR_OP, "treefold: the ranks passed different operations (rank " + std::to_string(r) +
                                            "'s differs from rank 0's)");
        }
        if (all[k * r + 3] != all[3]) {
            throw api_error(MPI_ERR_OP, "treefold: the ranks passed different user-created MPI_Ops (rank " +
                                            std::to_string(r) + "'s gives other results than rank 0's on probe values)");
        }
    }
    return {static_cast<element>(all[1]), static_cast<operation>(all[2])};
}

namespace {

/// FNV-1a of what a user-created `op` makes of fixed operands of element type T (with the
/// return code): ranks whose ops differ get different probes, unless the ops agree on these.
template <class T>
std::uint32_t probe_of(MPI_Op op, MPI_Datatype type)
{
    constexpr double left[] = {1.5, -2.25, 1e6, 3.0, 0.0, 7.0}; // (each fits every element type)
    constexpr double right[] = {0.75, 4.0, -7.0, 1e-3, 5.0, -1.0};
    constexpr int n = 6;
    T in[n];
    T inout[n];
    for (int i = 0; i < n; ++i) {
        if constexpr (std::is_arithmetic_v<T>) {
            in[i] = static_cast<T>(left[i]);
            inout[i] = static_cast<T>(right[i]);
        } else {
            in[i] = T(left[i], right[i]);
            inout[i] = T(right[i], -left[i]);
        }
    }
    const int rc = MPI_Reduce_local(in, inout, n, type, op);
    std::uint32_t h = 2166136261u ^ static_cast<std::uint32_t>(rc);
    const auto* bytes = reinterpret_cast<const unsigned char*>(inout);
    for (std::size_t i = 0; i < sizeof inout; ++i) {
        h = (h ^ bytes[i]) * 16777619u;
    }
    return h;
}

/// f(std::type_identity<T>{}) for the element type T that `e` names; otherwise() for element::none.
template <class F, class Otherwise>
auto with_element(element e, F&& f, Otherwise&& otherwise)
{
    switch (e) {
#define TREEFOLD_CAPI_CASE(e, T)                                                                     \
    case element::e:                                                                                 \
        return f(std::type_identity<T>{});
        TREEFOLD_CAPI_ELEMENTS(TREEFOLD_CAPI_CASE)
#undef TREEFOLD_CAPI_CASE
    case element::none:
        break;
    }
    return otherwise();
}

std::uint32_t probe_of(element e, MPI_Op op, MPI_Datatype type)
{
    return with_element(
        e, [&]<class T>(std::type_identity<T>) { return probe_of<T>(op, type); }, [] { return std::uint32_t{0}; });
}

} // namespace

local_check check_arguments(MPI_Datatype type, MPI_Op op, std::int64_t count)
{
    local_check c;
    c.type = element_of(type);
    c.op = operation_of(op);
    if (c.type == element::none) {
        c.bad(MPI_ERR_TYPE, "treefold: unsupported datatype (MPI_DOUBLE, MPI_FLOAT, MPI_INT32_T, MPI_INT64_T, "
                            "MPI_C_DOUBLE_COMPLEX or a Fortran equivalent)");
    }
    if (c.op == operation::none) {
        c.bad(MPI_ERR_OP, "treefold: unsupported operation (MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX or a "
                          "user-created MPI_Op)");
    }
    if (c.type == element::c64 && (c.op == operation::min || c.op == operation::max)) {
        c.bad(MPI_ERR_OP, "treefold: MPI_MIN and MPI_MAX are not defined for complex numbers");
    }
    if (count < 0) {
        c.bad(MPI_ERR_COUNT, "treefold: negative count");
    }
    if (c.error_class == MPI_SUCCESS && c.op == operation::user) {
        c.probe = probe_of(c.type, op, type);
    }
    return c;
}

std::unique_ptr<context> make_any_context(const boost::mpi::communicator& comm, layout::block_layout layout,
                                          agreed_arguments args, MPI_Op op, MPI_Datatype type, std::uint64_t width)
{
    if (layout.size() == 0 && args.op == operation::user) { // the predefined operations return their identity
        throw api_error(MPI_ERR_COUNT, "treefold: N = 0 values in total under a user-created MPI_Op: there is no "
                                       "result (no identity is invented)");
    }
    return with_element(
        args.type,
        [&]<class T>(std::type_identity<T>) {
            return width == 0 ? make_context<T>(comm, std::move(layout), args.op, op, type)
                              : make_row_context<T>(comm, std::move(layout), width, args.op, op, type);
        },
        []() -> std::unique_ptr<context> { throw std::logic_error("treefold: no element type (internal error)"); });
}

namespace {

/// `width` > 0: an element-wise context of rows of `width` values (0: one value per index).
int create(MPI_Comm comm, const std::int64_t* start, std::int64_t count, MPI_Datatype type, MPI_Op op,
           treefold_context* out, MPI_Info info = MPI_INFO_NULL, std::int64_t width = 0)
{
    if (out != nullptr) {
        *out = nullptr;
    }
    if (const int rc = check_comm(comm); rc != MPI_SUCCESS) {
        return rc;
    }
    try {
        const boost::mpi::communicator c(comm, boost::mpi::comm_attach);
        local_check mine = check_arguments(type, op, count);
        if (start != nullptr && *start < 0) {
            mine.bad(MPI_ERR_ARG, "treefold: negative global start");
        }
        if (out == nullptr) {
            mine.bad(MPI_ERR_ARG, "treefold: the context pointer is NULL");
        }
        const context_options options = read_options(info, mine);
        if (width < 0) {
            mine.bad(MPI_ERR_COUNT, "treefold: the row width k must be positive");
        }
        if (width != 0 && (options.threads > 1 || !options.exchange.empty() || options.kernel != kernel_choice::best)) {
            mine.bad(MPI_ERR_INFO_VALUE, "treefold: an element-wise context takes no exchange, threads or kernel "
                                         "option (it runs the direct exchange on one thread with its row kernel)");
        }
        const agreed_arguments args = agree(net::private_communicator(c), mine);
        const auto n = static_cast<std::uint64_t>(count);
        layout::block_layout layout = start != nullptr ? layout_from_block(c, static_cast<std::uint64_t>(*start), n)
                                                       : layout_from_local_size(c, n);
        auto ctx = std::make_unique<treefold_context_s>();
        {
            const exchange::detail::forced_choice_scope exchange_option(options.exchange);
            ctx->impl = make_any_context(c, std::move(layout), args, op, type, static_cast<std::uint64_t>(width));
        }
        ctx->impl->kernel = options.kernel;
        // Starting the threads can fail on one rank after the ranks agreed; every rank learns
        // of it (one more small all-gather, on every rank: the ranks' thread counts may differ),
        // so no rank returns a context the others lack.
        local_check started;
        if (options.threads > 1) {
            try {
                ctx->impl->set_threads(options.threads);
            } catch (const std::exception& e) {
                started.bad(MPI_ERR_NO_MEM, std::string("treefold: this rank could not start ") +
                                                std::to_string(options.threads) + " threads (" + e.what() + ")");
            }
        }
        (void)agree(net::private_communicator(c), started);
        *out = ctx.release();
        return succeed();
    } catch (...) {
        return fail_current_exception(false);
    }
}

/// The C one-call form's plan on a communicator: the context for the arguments the ranks
/// agreed on when they planned (an attribute of the communicator, freed with it).
struct one_call_plan final : net::cached_plan {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    std::int64_t count = -1;
    std::unique_ptr<context> ctx;
};

/// What is wrong with the one-call form's buffers (the first problem, as the error message),
/// or nullptr when they are usable.
const char* buffer_problem(const void* sendbuf, const void* recvbuf, std::int64_t count)
{
    if (sendbuf == nullptr && count > 0) {
        return "treefold: NULL sendbuf with a positive count";
    }
    if (recvbuf == nullptr) {
        return "treefold: NULL recvbuf";
    }
    return nullptr;
}

int one_call_allreduce(const void* sendbuf, void* recvbuf, std::int64_t count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    if (const int rc = check_comm(comm); rc != MPI_SUCCESS) {
        return rc;
    }
    if (sendbuf == MPI_IN_PLACE) { // the values are in recvbuf; the result overwrites its first
        sendbuf = recvbuf;
    }
    try {
        const boost::mpi::communicator c(comm, boost::mpi::comm_attach);
        const char* const bad_buffers = buffer_problem(sendbuf, recvbuf, count);
        std::unique_ptr<net::cached_plan>& slot = net::cached_plan_slot(comm, typeid(one_call_plan));
        if (slot) {
            // Every rank that planned before runs the kept plan. A rank whose arguments
            // changed, or whose buffers are unusable, takes part with a failure in place of
            // its values, so every rank throws local_size_error and all plan again, together,
            // agreeing on the arguments: the common call costs no agreement at all.
            auto& kept = static_cast<one_call_plan&>(*slot);
            const bool same = kept.type == type && kept.op == op && kept.count == count && bad_buffers == nullptr;
            try {
                kept.ctx->all_reduce(sendbuf, same, recvbuf);
                return succeed();
            } catch (const local_size_error&) {
                slot.reset();
            }
        }
        local_check mine = check_arguments(type, op, count);
        if (bad_buffers != nullptr) {
            mine.bad(MPI_ERR_BUFFER, bad_buffers);
        }
        // Planning: one small all-gather of (error, type, op) on treefold's private
        // communicator, so a bad argument anywhere is an error everywhere instead of a hang,
        // then the layout's all-gather of the counts.
        const agreed_arguments args = agree(net::private_communicator(c), mine);
        auto plan = std::make_unique<one_call_plan>();
        plan->type = type;
        plan->op = op;
        plan->count = count;
        plan->ctx = make_any_context(c, layout_from_local_size(c, static_cast<std::uint64_t>(count)), args, op, type);
        plan->ctx->all_reduce(sendbuf, true, recvbuf);
        slot = std::move(plan);
        return succeed();
    } catch (...) {
        return fail_current_exception(false);
    }
}

/// The one-call reduce to a root: plans on every call (the agreement, then the layout's
/// all-gather), so every argument error is an error on every rank; MPI_IN_PLACE on the root.
int one_call_reduce(const void* sendbuf, void* recvbuf, std::int64_t count, MPI_Datatype type, MPI_Op op, int root,
                    MPI_Comm comm)
{
    if (const int rc = check_comm(comm); rc != MPI_SUCCESS) {
        return rc;
    }
    try {
        const boost::mpi::communicator c(comm, boost::mpi::comm_attach);
        const bool on_root = c.rank() == root;
        if (sendbuf == MPI_IN_PLACE && on_root) {
            sendbuf = recvbuf;
        }
        local_check mine = check_arguments(type, op, count);
        if (root < 0 || root >= c.size()) {
            mine.bad(MPI_ERR_ROOT, "treefold: reduce root " + std::to_string(root) +
                                       " is not a rank of a communicator of size " + std::to_string(c.size()));
        } else if (sendbuf == MPI_IN_PLACE) {
            mine.bad(MPI_ERR_BUFFER, "treefold: MPI_IN_PLACE off the root");
        } else if (sendbuf == nullptr && count > 0) {
            mine.bad(MPI_ERR_BUFFER, "treefold: NULL sendbuf with a positive count");
        } else if (recvbuf == nullptr && on_root) {
            mine.bad(MPI_ERR_BUFFER, "treefold: NULL recvbuf on the root");
        }
        const agreed_arguments args = agree(net::private_communicator(c), mine);
        const auto ctx =
            make_any_context(c, layout_from_local_size(c, static_cast<std::uint64_t>(count)), args, op, type);
        ctx->reduce(sendbuf, true, on_root ? recvbuf : nullptr, root);
        return succeed();
    } catch (...) {
        return fail_current_exception(false);
    }
}

} // namespace

} // namespace treefold::capi::detail

using namespace treefold::capi::detail;

extern "C" {

int treefold_context_create(MPI_Comm comm, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                            treefold_context* ctx)
{
    return create(comm, nullptr, local_count, datatype, op, ctx);
}

int treefold_context_create_block(MPI_Comm comm, int64_t global_start, int64_t local_count, MPI_Datatype datatype,
                                  MPI_Op op, treefold_context* ctx)
{
    return create(comm, &global_start, local_count, datatype, op, ctx);
}

int treefold_context_create_info(MPI_Comm comm, int64_t global_start, int64_t local_count, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Info info, treefold_context* ctx)
{
    return create(comm, global_start == TREEFOLD_RANK_ORDER ? nullptr : &global_start, local_count, datatype, op, ctx,
                  info);
}

namespace {

/// MPI_ERR_PENDING (with the message set) when `ctx` has a nonblocking call in flight, for
/// `what` ("a blocking call", ...); MPI_SUCCESS otherwise.
int check_idle(treefold_context ctx, const char* what)
{
    if (ctx->request.call) {
        return fail(MPI_ERR_PENDING, std::string("treefold: ") + what +
                                         " on a context whose nonblocking call is in flight (complete it with "
                                         "treefold_wait or treefold_test first)");
    }
    return MPI_SUCCESS;
}

/// What is wrong with a context call's buffers on this rank (nullptr: nothing). `root` < 0:
/// an allreduce. MPI_IN_PLACE is no context call's buffer (the context knows the count, so
/// `local` is read and `result` written separately).
const char* call_buffer_problem(const context& c, const void* local, const void* result, int root)
{
    if (local == MPI_IN_PLACE) {
        return "treefold: MPI_IN_PLACE is not a context call's local buffer (pass the values; result may alias them)";
    }
    if (local == nullptr && c.local_count > 0) {
        return "treefold: this rank passed a NULL local buffer with a positive local count";
    }
    if (result == nullptr && (root < 0 || c.rank == root)) {
        return root < 0 ? "treefold: this rank passed a NULL result" : "treefold: the root passed a NULL result";
    }
    return nullptr;
}

/// treefold_iallreduce_ctx (`rooted` false) and treefold_ireduce_ctx (a negative root is
/// MPI_ERR_ROOT, never an allreduce). A root out of range and unusable buffers take part in
/// the call as this rank's failure, so every rank learns of them through its request.
int start_call(treefold_context ctx, const void* local, void* result, bool rooted, int root, treefold_request* request)
{
    if (request == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL pointer to a request");
    }
    *request = nullptr;
    if (ctx == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL context");
    }
    context& c = *ctx->impl;
    if (c.width != 1) {
        return fail(MPI_ERR_ARG, "treefold: nonblocking calls take a context of one value per index, not rows");
    }
    if (const int rc = check_idle(ctx, rooted ? "treefold_ireduce_ctx" : "treefold_iallreduce_ctx");
        rc != MPI_SUCCESS) {
        return rc;
    }
    treefold_request_s& slot = ctx->request;
    // (call_buffer_problem reads a negative root as allreduce; a root that is no rank needs no result)
    slot.what_is_wrong = call_buffer_problem(c, local, result, !rooted ? -1 : root < 0 ? c.size : root);
    slot.ok = slot.what_is_wrong == nullptr;
    try {
        slot.call = c.start(slot.ok ? local : nullptr, slot.ok, result, rooted ? std::optional<int>(root) : std::nullopt);
    } catch (...) { // (the checks of TREEFOLD_CHECK fail here, on every rank)
        return slot.ok ? fail_current_exception(true) : fail(MPI_ERR_BUFFER, slot.what_is_wrong);
    }
    *request = &slot;
    return succeed();
}

} // namespace

int treefold_iallreduce_ctx(treefold_context ctx, const void* local, void* result, treefold_request* request)
{
    return start_call(ctx, local, result, false, -1, request);
}

int treefold_ireduce_ctx(treefold_context ctx, const void* local, void* result, int root, treefold_request* request)
{
    return start_call(ctx, local, result, true, root, request);
}

int treefold_wait(treefold_request* request)
{
    if (request == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL pointer to a request");
    }
    if (*request == nullptr) {
        return succeed();
    }
    treefold_request_s& slot = *std::exchange(*request, nullptr);
    if (!slot.call) {
        return fail(MPI_ERR_REQUEST, "treefold: this request is not active (already completed: a copy of a request "
                                     "waited for after the original?)");
    }
    const std::unique_ptr<pending> call = std::move(slot.call);
    return run_call(slot.ok, slot.what_is_wrong, [&] { call->finish(); });
}

int treefold_test(treefold_request* request, int* flag)
{
    if (request == nullptr || flag == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL pointer to a request or flag");
    }
    *flag = 0;
    if (*request != nullptr && (*request)->call) {
        try {
            if (!(*request)->call->test()) {
                return succeed();
            }
        } catch (...) {
            // A failing test completes the call: wait() reports its error.
        }
    }
    *flag = 1;
    return treefold_wait(request);
}

int treefold_context_create_rows(MPI_Comm comm, int64_t global_start, int64_t local_count, int64_t k,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Info info, treefold_context* ctx)
{
    // k = 0 would mean a scalar context to create(): refuse it as a width (on every rank).
    return create(comm, global_start == TREEFOLD_RANK_ORDER ? nullptr : &global_start, local_count, datatype, op, ctx,
                  info, k == 0 ? -1 : k);
}

int64_t treefold_context_width(treefold_context ctx)
{
    return ctx == nullptr ? -1 : static_cast<int64_t>(ctx->impl->width);
}

const char* treefold_context_exchange(treefold_context ctx)
{
    return ctx == nullptr ? nullptr : ctx->impl->exchange.c_str();
}

const char* treefold_context_kernel(treefold_context ctx)
{
    return ctx == nullptr ? nullptr : kernel_name(ctx->impl->kernel);
}

int treefold_context_threads(treefold_context ctx)
{
    return ctx == nullptr ? -1 : static_cast<int>(ctx->impl->threads());
}

int treefold_context_last_counters(treefold_context ctx, int64_t* messages, int64_t* bytes, int64_t* collectives,
                                   int64_t* collective_bytes)
{
    if (ctx == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL context");
    }
    const treefold::net::counters count = ctx->impl->last_counters();
    for (auto [to, value] : {std::pair{messages, count.messages}, std::pair{bytes, count.bytes},
                             std::pair{collectives, count.collectives},
                             std::pair{collective_bytes, count.collective_bytes}}) {
        if (to != nullptr) {
            *to = static_cast<int64_t>(value);
        }
    }
    return succeed();
}

int treefold_allreduce_ctx(treefold_context ctx, const void* local, void* result)
{
    if (ctx == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL context");
    }
    if (const int rc = check_idle(ctx, "treefold_allreduce_ctx"); rc != MPI_SUCCESS) {
        return rc;
    }
    context& c = *ctx->impl;
    const char* const problem = call_buffer_problem(c, local, result, -1);
    const bool ok = problem == nullptr;
    return run_call(ok, problem, [&] { c.all_reduce(ok ? local : nullptr, ok, result); });
}

int treefold_reduce_ctx(treefold_context ctx, const void* local, void* result, int root)
{
    if (ctx == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL context");
    }
    if (const int rc = check_idle(ctx, "treefold_reduce_ctx"); rc != MPI_SUCCESS) {
        return rc;
    }
    context& c = *ctx->impl;
    // A root out of range takes part too: the reduction fails on every rank (MPI_ERR_ROOT).
    const char* const problem = call_buffer_problem(c, local, result, root);
    const bool ok = problem == nullptr;
    return run_call(ok, problem, [&] { c.reduce(ok ? local : nullptr, ok, result, root); });
}

void* treefold_context_buffer(treefold_context ctx)
{
    if (ctx == nullptr) {
        return nullptr;
    }
    try {
        return ctx->impl->buffer();
    } catch (...) {
        fail_current_exception(false);
        return nullptr;
    }
}

int64_t treefold_context_local_count(treefold_context ctx)
{
    return ctx == nullptr ? -1 : static_cast<int64_t>(ctx->impl->local_count);
}

int64_t treefold_context_global_count(treefold_context ctx)
{
    return ctx == nullptr ? -1 : static_cast<int64_t>(ctx->impl->global_count);
}

int treefold_context_destroy(treefold_context* ctx)
{
    if (ctx == nullptr) {
        return fail(MPI_ERR_ARG, "treefold: NULL pointer to a context");
    }
    if (*ctx != nullptr) {
        if (const int rc = check_idle(*ctx, "treefold_context_destroy"); rc != MPI_SUCCESS) {
            return rc; // the context stays valid: its call is still completed by treefold_wait
        }
    }
    try {
        delete *ctx;
        *ctx = nullptr;
        return succeed();
    } catch (...) {
        *ctx = nullptr;
        return fail_current_exception(false);
    }
}

int treefold_allreduce(const void* sendbuf, void* recvbuf, int local_count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    return one_call_allreduce(sendbuf, recvbuf, local_count, datatype, op, comm);
}

int treefold_allreduce_c(const void* sendbuf, void* recvbuf, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm)
{
    return one_call_allreduce(sendbuf, recvbuf, local_count, datatype, op, comm);
}

int treefold_reduce(const void* sendbuf, void* recvbuf, int local_count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm)
{
    return one_call_reduce(sendbuf, recvbuf, local_count, datatype, op, root, comm);
}

int treefold_reduce_c(const void* sendbuf, void* recvbuf, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                      int root, MPI_Comm comm)
{
    return one_call_reduce(sendbuf, recvbuf, local_count, datatype, op, root, comm);
}

const char* treefold_last_error(void) { return last_message.c_str(); }

} // extern "C"
