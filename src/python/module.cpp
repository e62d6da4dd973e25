// The Python module `treefold` (pybind11): numpy arrays and mpi4py communicators over the C
// API (treefold/treefold.h), and Python callables on object arrays over treefold::reducer
// with pickled values (the slow path). Every call is collective; arguments that are wrong on
// one rank only (no array, dtype, contiguity, size, root) still take part in the call, as that
// rank's failure, so every rank raises instead of some waiting. Every public function binds its
// own arguments (signature, below), so that a wrong keyword is a clear TypeError.

#include "treefold/treefold.h"

#include "../capi/errors.hpp"

#include "treefold/layouts.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/reducer.hpp"

#include <boost/serialization/split_member.hpp>
#include <boost/serialization/string.hpp>
#include <mpi4py/mpi4py.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace treefold::python {

namespace {

using capi::detail::element;

/// The MPI communicator inside an mpi4py communicator (TypeError for anything else).
MPI_Comm comm_of(const py::object& comm)
{
    MPI_Comm* c = PyMPIComm_Get(comm.ptr());
    if (c == nullptr) {
        throw py::error_already_set();
    }
    return *c;
}

/// The MPI datatype of a numpy dtype (MPI_DATATYPE_NULL when treefold does not reduce it,
/// which the C API reports as MPI_ERR_TYPE on every rank).
MPI_Datatype datatype_of(const py::dtype& dt)
{
    if (!dt.attr("isnative").cast<bool>()) {
        return MPI_DATATYPE_NULL;
    }
    const char kind = dt.kind();
    const auto bytes = dt.itemsize();
    const struct {
        char kind;
        py::ssize_t bytes;
        MPI_Datatype type;
    } types[] = {{'f', 8, MPI_DOUBLE}, {'f', 4, MPI_FLOAT}, {'i', 4, MPI_INT32_T}, {'i', 8, MPI_INT64_T},
                 {'c', 16, MPI_C_DOUBLE_COMPLEX}};
    for (const auto& t : types) {
        if (kind == t.kind && bytes == t.bytes) {
            return t.type;
        }
    }
    return MPI_DATATYPE_NULL;
}

bool is_object(const py::dtype& dt) { return dt.kind() == 'O'; }

/// MPI_SUM etc. for "sum", "prod", "min", "max" (MPI_OP_NULL otherwise: MPI_ERR_OP everywhere).
MPI_Op op_of(const std::string& name)
{
    const std::pair<const char*, MPI_Op> ops[] = {
        {"sum", MPI_SUM}, {"prod", MPI_PROD}, {"min", MPI_MIN}, {"max", MPI_MAX}};
    for (const auto& [text, op] : ops) {
        if (name == text) {
            return op;
        }
    }
    return MPI_OP_NULL;
}

/// The MPI_Op of a numeric op: a name ("sum", ...) or one of mpi4py's predefined operations
/// MPI.SUM, MPI.PROD, MPI.MIN, MPI.MAX (MPI_OP_NULL for another name or mpi4py Op: MPI_ERR_OP
/// on every rank); nullopt for any other object (a Python callable, for object arrays).
/// mpi4py Ops are callable too, hence this check comes first.
std::optional<MPI_Op> numeric_op(const py::object& op)
{
    if (py::isinstance<py::str>(op)) {
        return op_of(op.cast<std::string>());
    }
    if (PyObject_TypeCheck(op.ptr(), &PyMPIOp_Type) != 0) {
        const MPI_Op handle = *PyMPIOp_Get(op.ptr());
        for (MPI_Op predefined : {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX}) {
            if (handle == predefined) {
                return handle;
            }
        }
        return MPI_OP_NULL; // a user-created mpi4py Op would call back into Python without the GIL
    }
    return std::nullopt;
}

/// Raises the Python exception for a C API error class: TypeError for a datatype,
/// ValueError for arguments, RuntimeError for the rest. `local` is this rank's own reason,
/// when it knows one better than the C API's message.
[[noreturn]] void raise(int rc, const std::string& local)
{
    const std::string msg = local.empty() ? std::string(treefold_last_error()) : local;
    switch (rc) {
    case MPI_ERR_TYPE:
        throw py::type_error(msg);
    case MPI_ERR_COUNT:
    case MPI_ERR_BUFFER:
    case MPI_ERR_ARG:
    case MPI_ERR_ROOT:
    case MPI_ERR_OP:
    case MPI_ERR_COMM:
    case MPI_ERR_INFO_KEY:
    case MPI_ERR_INFO_VALUE:
        throw py::value_error(msg);
    default:
        throw std::runtime_error(msg);
    }
}

/// This rank's own reason a call cannot use its arguments (error_class MPI_SUCCESS: none). The
/// call still takes part, as this rank's failure, so that every rank raises instead of some
/// waiting; this rank raises with this reason (through raise(): MPI_ERR_TYPE is a TypeError).
struct local_error {
    int error_class = MPI_SUCCESS;
    std::string message;
    explicit operator bool() const { return error_class != MPI_SUCCESS; }
};

/// Runs `call`; where it throws and this rank has its own `error`, raises that instead.
template <class F>
auto raising_own_error(const local_error& error, F&& call)
{
    try {
        return call();
    } catch (...) {
        if (error) {
            raise(error.error_class, error.message);
        }
        throw;
    }
}

/// The Python type name of `h`, for messages (never its repr: an array's runs long).
std::string type_name(const py::handle& h) { return Py_TYPE(h.ptr())->tp_name; }

/// A reduce root as the C API takes it. An int (anything with __index__, numpy's included)
/// that fits in a C int passes as it is, and C checks it on every rank (MPI_ERR_ROOT). Any
/// other argument passes as a root no rank has, so every rank fails too, with this rank's own
/// reason in `error`.
struct root_arg {
    int value = -1;
    local_error error;
};

root_arg root_of(const py::handle& root, int size)
{
    root_arg r;
    py::object index;
    if (PyIndex_Check(root.ptr()) != 0) {
        index = py::reinterpret_steal<py::object>(PyNumber_Index(root.ptr()));
        if (!index) {
            PyErr_Clear();
        }
    }
    if (!index) {
        r.error = {MPI_ERR_TYPE, "treefold: root must be an int, not " + type_name(root)};
        return r;
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow == 0 && v >= INT_MIN && v <= INT_MAX) {
        r.value = static_cast<int>(v);
        return r;
    }
    r.value = overflow < 0 || v < 0 ? INT_MIN : INT_MAX;
    r.error = {MPI_ERR_ROOT, "treefold: reduce root " + py::str(index).cast<std::string>() +
                                 " is not a rank of a communicator of size " + std::to_string(size)};
    return r;
}

/// A numpy array as the C API sees it: its dtype's MPI type, its data if usable (NULL and a
/// reason when it is not contiguous), its size.
struct array_view {
    MPI_Datatype type;
    const void* data;
    std::int64_t count;
    std::string problem;
};

array_view view_of(const py::array& a)
{
    array_view v{datatype_of(a.dtype()), a.data(), static_cast<std::int64_t>(a.size()), {}};
    if (v.type == MPI_DATATYPE_NULL) {
        v.problem = "treefold: unsupported dtype " + py::str(a.dtype()).cast<std::string>() +
                    " (float64, float32, int32, int64, complex128, or object with a callable op)";
    } else if ((a.flags() & py::array::c_style) == 0) {
        v.data = nullptr; // the C API makes this an error on every rank
        v.problem = "treefold: the array is not contiguous (np.ascontiguousarray makes a copy that is)";
    }
    return v;
}

/// As view_of, for any argument of `function`: what is not a numpy array has no datatype (the C
/// API's MPI_ERR_TYPE on every rank), no data and its own reason.
array_view view_of_arg(const py::object& arg, const char* function)
{
    if (!py::isinstance<py::array>(arg)) {
        return {MPI_DATATYPE_NULL, nullptr, 0,
                std::string("treefold: ") + function + " takes a numpy array, not " + type_name(arg)};
    }
    return view_of(py::reinterpret_borrow<py::array>(arg));
}

/// The numpy scalar of `dt` holding the bytes at `value`.
py::object scalar_of(const py::dtype& dt, const void* value)
{
    py::array out(dt, std::vector<py::ssize_t>{1});
    std::memcpy(out.mutable_data(), value, static_cast<std::size_t>(dt.itemsize()));
    return out.attr("__getitem__")(0);
}

// ---- The slow path: Python objects under a Python callable ---------------------------------

/// A Python object as a reducer element; it travels pickled (the GIL is held throughout).
struct value {
    py::object obj;

    template <class Archive>
    void save(Archive& ar, unsigned /*version*/) const
    {
        const py::bytes b = py::module_::import("pickle").attr("dumps")(obj);
        const std::string s = b;
        ar << s;
    }
    template <class Archive>
    void load(Archive& ar, unsigned /*version*/)
    {
        std::string s;
        ar >> s;
        obj = py::module_::import("pickle").attr("loads")(py::bytes(s));
    }
    BOOST_SERIALIZATION_SPLIT_MEMBER()
};

/// A reduce's result: its object, or None off the root.
py::object object_or_none(const std::optional<value>& v) { return v ? v->obj : py::none(); }

/// The callable of the call in flight (the reducer keeps its operator; the callable changes
/// per call).
struct callable {
    std::shared_ptr<py::object> fn = std::make_shared<py::object>();
    value operator()(const value& left, const value& right) const { return {(*fn)(left.obj, right.obj)}; }
};

using object_reducer = reducer<value, callable, kernel::scalar, exchange::tree<>>;

/// Runs an object reducer's call. A Python exception raised by the callable on another rank
/// arrives as a remote_failure naming pybind11's wrapper, whose text is "Type: message":
/// raise the original type again where it is a builtin exception (KeyError, ValueError, ...),
/// else RuntimeError, with the text and the rank it came from.
template <class F>
auto raising_remote_python_errors(F&& call)
{
    try {
        return call();
    } catch (const remote_failure& e) {
        // (The type name arrives truncated from the left: "..d11::error_already_set".)
        if (e.info.what != failure::code::op_threw || !e.info.type.ends_with("error_already_set")) {
            throw;
        }
        std::string text = e.info.text;
        text = text.substr(0, text.find("\n\nAt:")); // without pybind11's traceback
        const std::size_t colon = text.find(": ");
        const std::string name = text.substr(0, colon);
        const std::string rest = colon == std::string::npos ? std::string() : text.substr(colon + 2);
        const std::string where = " (raised by the op on rank " + std::to_string(e.info.rank) + ")";
        const py::object builtins = py::module_::import("builtins");
        if (py::hasattr(builtins, name.c_str())) {
            const py::object type = builtins.attr(name.c_str());
            if (PyExceptionClass_Check(type.ptr()) != 0) {
                PyErr_SetString(type.ptr(), (rest + where).c_str());
                throw py::error_already_set();
            }
        }
        throw std::runtime_error(text + where);
    }
}

/// The C API's agreement (capi::detail::agree) on `comm`'s private communicator, its error
/// raised as the C API's would be.
void agree_or_raise(const boost::mpi::communicator& comm, capi::detail::local_check mine)
{
    try {
        capi::detail::agree(net::private_communicator(comm), std::move(mine));
    } catch (const capi::detail::api_error& e) {
        raise(e.error_class, e.what());
    }
}

/// The agreement every call starts with (the C API's own, on the same communicator), for an
/// object array: element::none, which no numeric call passes, so mixing object and numeric
/// arrays across ranks is an error everywhere.
void agree_object(const boost::mpi::communicator& comm, const py::object& a, const py::object& op)
{
    capi::detail::local_check mine;
    if (!py::isinstance<py::array>(a)) {
        mine.bad(MPI_ERR_TYPE, "treefold: the values must be a numpy array (of dtype object), not " + type_name(a));
    } else if (!is_object(py::reinterpret_borrow<py::array>(a).dtype())) {
        mine.bad(MPI_ERR_OP, "treefold: a callable op needs an array of dtype object");
    } else if (!PyCallable_Check(op.ptr())) {
        mine.bad(MPI_ERR_OP, "treefold: object arrays need a callable op");
    } else if ((py::reinterpret_borrow<py::array>(a).flags() & py::array::c_style) == 0) {
        mine.bad(MPI_ERR_BUFFER, "treefold: the array is not contiguous");
    }
    mine.op = capi::detail::operation::user;
    agree_or_raise(comm, std::move(mine));
}

std::vector<value> values_of(const py::array& a)
{
    std::vector<value> xs(static_cast<std::size_t>(a.size()));
    auto* objects = static_cast<PyObject* const*>(a.data());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        xs[i].obj = py::reinterpret_borrow<py::object>(objects[i]);
    }
    return xs;
}

/// treefold.allreduce (no root) and treefold.reduce of an object array under a callable.
py::object objects_call(MPI_Comm c, const py::object& arg, const py::object& op, std::optional<int> root)
{
    const boost::mpi::communicator comm(c, boost::mpi::comm_attach);
    agree_object(comm, arg, op);
    const py::array a = py::reinterpret_borrow<py::array>(arg); // (agreed: an object array)
    callable fn;
    *fn.fn = op;
    object_reducer r(comm, layout_from_local_size(comm, static_cast<std::uint64_t>(a.size())), fn);
    return raising_remote_python_errors([&]() -> py::object {
        if (!root) {
            return r.all_reduce(values_of(a)).obj;
        }
        return object_or_none(r.reduce(values_of(a), *root));
    });
}

// ---- Reducer -----------------------------------------------------------------------------

/// An object Reducer's nonblocking call: the reducer's request, its result a Python object
/// (None off the root). Waiting runs the callable, so the GIL stays held.
struct object_call {
    std::optional<request<value, value>> all;
    std::optional<request<value, std::optional<value>>> rooted;
};

/// What a Reducer's call with an unusable array somewhere else says on a rank whose own
/// arguments were fine (the C API's message names the NULL buffer the module passed instead).
const char* const another_rank_failed =
    "treefold: another rank passed an unusable array (not a numpy array, wrong dtype or size, or not contiguous)";

/// treefold.Request: a Reducer's nonblocking call (treefold_iallreduce_ctx / _ireduce_ctx, or
/// an object reducer's iall_reduce / ireduce). It keeps the Reducer and the array alive until
/// the call completes. `root`: none for an allreduce.
class py_request {
public:
    py_request(py::object owner, py::object keep, py::dtype dtype, std::optional<int> root, int rank,
               local_error error)
        : owner_(std::move(owner)), keep_(std::move(keep)), dtype_(std::move(dtype)),
          result_(static_cast<std::size_t>(dtype_.itemsize())), root_(root), rank_(rank), error_(std::move(error))
    {
    }
    /// An object reducer's call, started.
    py_request(py::object owner, object_call call, std::optional<int> root, int rank, local_error error)
        : owner_(std::move(owner)), objects_(std::move(call)), root_(root), rank_(rank), error_(std::move(error))
    {
    }
    py_request(const py_request&) = delete;
    py_request& operator=(const py_request&) = delete;
    ~py_request()
    {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (request_ != nullptr && finalized == 0) {
            py::gil_scoped_release unlocked;
            treefold_wait(&request_); // an unfinished call completes; its result is dropped
        }
        // An unfinished object call completes in its request's destructor (errors dropped).
    }

    /// Starts the call on `ctx` with this request's result buffer.
    void start(treefold_context ctx, const void* data)
    {
        const int rc = root_ ? treefold_ireduce_ctx(ctx, data, result_.data(), *root_, &request_)
                             : treefold_iallreduce_ctx(ctx, data, result_.data(), &request_);
        if (rc != MPI_SUCCESS) { // (TREEFOLD_CHECK's checks fail here on every rank)
            raise(error_ ? error_.error_class : rc, error_ ? error_.message : std::string());
        }
    }

    /// True once the call has completed (then wait() does not block).
    bool test()
    {
        if (objects_) {
            return objects_->all ? objects_->all->test() : objects_->rooted->test();
        }
        complete(false);
        return done_;
    }

    /// The result (None off the root of a reduce), or the call's error raised on every rank
    /// (this rank's own reason where its arguments were the cause).
    py::object wait()
    {
        if (objects_) {
            return wait_objects();
        }
        complete(true);
        if (error_) {
            raise(error_.error_class, error_.message);
        }
        if (rc_ != MPI_SUCCESS) {
            raise(rc_, rc_ == MPI_ERR_BUFFER ? another_rank_failed : "");
        }
        if (root_ && *root_ != rank_) {
            return py::none();
        }
        return scalar_of(dtype_, result_.data());
    }

private:
    /// The C call's completion (treefold_wait, or `block` false treefold_test) unless it is
    /// done already; its error class is kept in rc_ once it is.
    void complete(bool block)
    {
        if (done_) {
            return;
        }
        int flag = block ? 1 : 0;
        int rc = MPI_SUCCESS;
        {
            py::gil_scoped_release unlocked;
            rc = block ? treefold_wait(&request_) : treefold_test(&request_, &flag);
        }
        if (flag != 0) {
            done_ = true;
            rc_ = rc;
        }
    }

    py::object wait_objects()
    {
        if (done_) {
            throw std::logic_error("treefold: wait() on a Request that was already completed");
        }
        done_ = true;
        return raising_own_error(error_, [&] {
            return raising_remote_python_errors([&]() -> py::object {
                if (objects_->all) {
                    return objects_->all->wait().obj;
                }
                return object_or_none(objects_->rooted->wait());
            });
        });
    }

    py::object owner_;
    py::object keep_;
    py::dtype dtype_;
    std::optional<object_call> objects_;
    std::vector<unsigned char> result_;
    treefold_request request_ = nullptr;
    std::optional<int> root_;
    int rank_;
    local_error error_;
    bool done_ = false;
    int rc_ = MPI_SUCCESS;
};

/// A Reducer's context options (C's MPI_Info keys), each None when not given.
struct reducer_options {
    std::optional<std::string> exchange;
    std::optional<std::int64_t> threads;
    std::optional<std::string> kernel;

    bool any() const { return exchange || threads || kernel; }

    /// The options as an MPI_Info (MPI_INFO_NULL for none); the caller frees it.
    MPI_Info info() const
    {
        MPI_Info info = MPI_INFO_NULL;
        if (!any()) {
            return info;
        }
        MPI_Info_create(&info);
        if (exchange) {
            MPI_Info_set(info, "exchange", exchange->c_str());
        }
        if (threads) { // C checks the value: not positive is MPI_ERR_INFO_VALUE on every rank
            MPI_Info_set(info, "threads", std::to_string(*threads).c_str());
        }
        if (kernel) {
            MPI_Info_set(info, "kernel", kernel->c_str());
        }
        return info;
    }
};

/// treefold.Reducer: a planned reduction (a C API context, or an object reducer).
class py_reducer {
public:
    py_reducer(const py::object& comm, std::int64_t local_count, const py::object& dtype, const py::object& op,
               const std::optional<std::int64_t>& global_start, const std::optional<std::int64_t>& k,
               const reducer_options& options)
        : dtype_(py::dtype::from_args(dtype)), rows_(k.has_value())
    {
        const MPI_Comm c = comm_of(comm);
        MPI_Comm_rank(c, &rank_);
        MPI_Comm_size(c, &size_);
        if (is_object(dtype_)) {
            const boost::mpi::communicator bc(c, boost::mpi::comm_attach);
            capi::detail::local_check mine;
            mine.op = capi::detail::operation::user;
            if (!PyCallable_Check(op.ptr())) {
                mine.bad(MPI_ERR_OP, "treefold: object arrays need a callable op");
            } else if (k) {
                mine.bad(MPI_ERR_ARG, "treefold: object Reducers take no row width k");
            } else if (options.any()) {
                mine.bad(MPI_ERR_INFO_VALUE, "treefold: object Reducers take no exchange, threads or kernel option");
            }
            agree_or_raise(bc, std::move(mine));
            auto l = global_start ? layout_from_block(bc, static_cast<std::uint64_t>(*global_start),
                                                      static_cast<std::uint64_t>(local_count))
                                  : layout_from_local_size(bc, static_cast<std::uint64_t>(local_count));
            *fn_.fn = op;
            objects_ = std::make_unique<object_reducer>(bc, std::move(l), fn_);
            local_count_ = local_count;
            return;
        }
        const MPI_Datatype type = datatype_of(dtype_);
        const MPI_Op mpi_op = numeric_op(op).value_or(MPI_OP_NULL);
        treefold_context ctx = nullptr;
        MPI_Info info = options.info();
        const std::int64_t start = global_start.value_or(TREEFOLD_RANK_ORDER);
        const int rc = k ? treefold_context_create_rows(c, start, local_count, *k, type, mpi_op, info, &ctx)
                         : treefold_context_create_info(c, start, local_count, type, mpi_op, info, &ctx);
        if (info != MPI_INFO_NULL) {
            MPI_Info_free(&info);
        }
        if (rc != MPI_SUCCESS) {
            raise(rc, "");
        }
        ctx_.reset(ctx);
        local_count_ = local_count;
        width_ = treefold_context_width(ctx);
    }

    /// Reducer.allreduce and Reducer.reduce (`root` given): the reduction on every rank, or on
    /// the root (None elsewhere).
    py::object allreduce(const py::object& array) { return call(array, std::nullopt); }
    py::object reduce(const py::object& array, const py::object& root) { return call(array, root_of(root, size_)); }

    /// Starts allreduce (no root) or reduce without waiting: a treefold.Request. Unusable
    /// arguments take part in the call as this rank's failure, which the wait raises on every
    /// rank (as the blocking call does).
    std::unique_ptr<py_request> start(py::object self, const py::object& array, const std::optional<py::object>& root)
    {
        const std::optional<root_arg> r = root ? std::optional<root_arg>(root_of(*root, size_)) : std::nullopt;
        const std::optional<int> to = r ? std::optional<int>(r->value) : std::nullopt;
        if (objects_) {
            // (Pickled values are not trivially copyable: the reducer completes the call
            // before it returns the request.)
            local_error error;
            std::vector<value> xs = object_values(array, error);
            if (!error && r) {
                error = r->error;
            }
            object_call call;
            raising_remote_python_errors([&] {
                if (to) {
                    call.rooted.emplace(objects_->ireduce(xs, *to));
                } else {
                    call.all.emplace(objects_->iall_reduce(xs));
                }
            });
            return std::make_unique<py_request>(std::move(self), std::move(call), to, rank_, std::move(error));
        }
        if (rows_) {
            throw py::value_error("treefold: row Reducers have no nonblocking calls (as C's row contexts)");
        }
        local_error error;
        const void* data = values_for_call(array, error);
        if (!error && r) {
            error = r->error; // (its root, passed on as it is, fails the call on every rank)
        }
        auto request = std::make_unique<py_request>(std::move(self), array, dtype_, to, rank_, error);
        request->start(ctx_.get(), data);
        return request;
    }

    /// The context's own buffer as a numpy array (no copy; it keeps the Reducer alive).
    py::array buffer(py::object self)
    {
        if (!ctx_) {
            throw py::type_error("treefold: object Reducers have no buffer");
        }
        void* data = treefold_context_buffer(ctx_.get());
        std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(local_count_)};
        if (rows_) {
            shape.push_back(static_cast<py::ssize_t>(width_));
        }
        return py::array(dtype_, shape, data, self);
    }

    /// The exchange the Reducer runs (automatic's choice), its kernel and this rank's threads.
    std::string exchange() const
    {
        return ctx_ ? treefold_context_exchange(ctx_.get()) : std::string(objects_->exchange_used());
    }
    std::string kernel() const { return ctx_ ? treefold_context_kernel(ctx_.get()) : "scalar"; }
    int threads() const { return ctx_ ? treefold_context_threads(ctx_.get()) : 1; }

    /// Values per global index: k for a row Reducer, else None.
    py::object k() const { return rows_ ? py::object(py::int_(width_)) : py::object(py::none()); }

    std::int64_t local_count() const { return local_count_; }
    std::int64_t global_count() const
    {
        return ctx_ ? treefold_context_global_count(ctx_.get()) : static_cast<std::int64_t>(objects_->layout().size());
    }

private:
    /// A blocking call: allreduce (no root) or reduce.
    py::object call(const py::object& array, const std::optional<root_arg>& root)
    {
        const std::optional<int> to = root ? std::optional<int>(root->value) : std::nullopt;
        local_error error;
        if (objects_) {
            // The slow path: an unusable array becomes a wrong-size span, which the reducer
            // reports on every rank, as it does a root that is no rank.
            std::vector<value> xs = object_values(array, error);
            if (!error && root) {
                error = root->error;
            }
            return raising_own_error(error, [&] {
                return raising_remote_python_errors([&]() -> py::object {
                    if (!to) {
                        return objects_->all_reduce(xs).obj;
                    }
                    return object_or_none(objects_->reduce(xs, *to));
                });
            });
        }
        const void* data = values_for_call(array, error);
        if (!error && root) {
            error = root->error; // (its root, passed on as it is, fails the call on every rank)
        }
        std::vector<unsigned char> result(static_cast<std::size_t>(width_ * dtype_.itemsize()));
        int rc = MPI_SUCCESS;
        {
            py::gil_scoped_release unlocked;
            rc = to ? treefold_reduce_ctx(ctx_.get(), data, result.data(), *to)
                    : treefold_allreduce_ctx(ctx_.get(), data, result.data());
        }
        if (error) {
            raise(error.error_class, error.message);
        }
        if (rc != MPI_SUCCESS) {
            raise(rc, rc == MPI_ERR_BUFFER ? another_rank_failed : "");
        }
        if (to && *to != rank_) {
            return py::none();
        }
        if (rows_) {
            py::array out(dtype_, std::vector<py::ssize_t>{static_cast<py::ssize_t>(width_)});
            std::memcpy(out.mutable_data(), result.data(), result.size());
            return out;
        }
        return scalar_of(dtype_, result.data());
    }

    /// An object array's values; for an unusable argument (not an object array, not
    /// contiguous, another size) one value too many, which the reducer reports on every rank,
    /// and this rank's reason in `error`.
    std::vector<value> object_values(const py::object& array, local_error& error) const
    {
        if (!py::isinstance<py::array>(array)) {
            error = {MPI_ERR_TYPE, "treefold: a Reducer's call takes a numpy array, not " + type_name(array)};
        } else if (const py::array a = py::reinterpret_borrow<py::array>(array); !is_object(a.dtype())) {
            error = {MPI_ERR_TYPE, "treefold: the array's dtype is " + py::str(a.dtype()).cast<std::string>() +
                                       " but the Reducer's is object"};
        } else if ((a.flags() & py::array::c_style) == 0) {
            error = {MPI_ERR_BUFFER,
                     "treefold: the array is not contiguous (np.ascontiguousarray makes a copy that is)"};
        } else if (a.size() != local_count_) {
            error = {MPI_ERR_BUFFER, "treefold: the array holds " + std::to_string(a.size()) +
                                         " values but this rank's block holds " + std::to_string(local_count_)};
        } else {
            return values_of(a);
        }
        return std::vector<value>(static_cast<std::size_t>(local_count_ + 1));
    }

    /// The local buffer to pass to the C API for `array`: its data, or, when this rank cannot
    /// use it (`error` says why), MPI_IN_PLACE, which every context call takes part with as
    /// this rank's failure (MPI_ERR_BUFFER on every rank, whatever this rank's count; a NULL
    /// buffer would pass unnoticed where the count is 0).
    const void* values_for_call(const py::object& array, local_error& error) const
    {
        const array_view v = view_of_arg(array, "a Reducer's call");
        if (v.type == MPI_DATATYPE_NULL) {
            error = {MPI_ERR_TYPE, v.problem};
        } else if (!v.problem.empty()) {
            error = {MPI_ERR_BUFFER, v.problem};
        } else if (v.type != datatype_of(dtype_)) {
            const py::array a = py::reinterpret_borrow<py::array>(array);
            error = {MPI_ERR_TYPE, "treefold: the array's dtype is " + py::str(a.dtype()).cast<std::string>() +
                                       " but the Reducer's is " + py::str(py::handle(dtype_)).cast<std::string>()};
        } else if (const py::array a = py::reinterpret_borrow<py::array>(array);
                   rows_ && (a.ndim() != 2 || a.shape(0) != local_count_ ||
                             a.shape(1) != static_cast<py::ssize_t>(width_))) {
            error = {MPI_ERR_BUFFER, "treefold: a row Reducer takes a 2-D array of shape (" +
                                         std::to_string(local_count_) + ", " + std::to_string(width_) + ")"};
        } else if (!rows_ && v.count != local_count_) {
            error = {MPI_ERR_BUFFER, "treefold: the array holds " + std::to_string(v.count) +
                                         " values but this rank's block holds " + std::to_string(local_count_)};
        } else {
            return v.data;
        }
        return MPI_IN_PLACE;
    }

    struct destroy {
        void operator()(treefold_context ctx) const
        {
            int finalized = 0;
            MPI_Finalized(&finalized);
            if (finalized == 0) { // after MPI_Finalize (mpi4py's, at exit) freeing is not allowed
                treefold_context_destroy(&ctx);
            }
        }
    };

    py::dtype dtype_;
    std::unique_ptr<treefold_context_s, destroy> ctx_;
    callable fn_;
    std::unique_ptr<object_reducer> objects_;
    std::int64_t local_count_ = 0;
    std::int64_t width_ = 1; ///< values per global index (k for a row Reducer)
    bool rows_ = false;
    int rank_ = 0;
    int size_ = 1;
};

/// A 2-D array's call: one row per global index (rows in rank order), each of its k columns
/// reduced over the global index (a C row context, planned for this call), on every rank, or
/// on `root` only. A 1-D array of k values (None off the root).
py::object rows_call(MPI_Comm c, const py::array& a, MPI_Op op, std::optional<int> root)
{
    const array_view v = view_of(a);
    treefold_context ctx = nullptr;
    int rc = treefold_context_create_rows(c, TREEFOLD_RANK_ORDER, a.shape(0), a.shape(1), v.type, op, MPI_INFO_NULL,
                                          &ctx);
    if (rc != MPI_SUCCESS) {
        raise(rc, v.problem);
    }
    int rank = 0;
    MPI_Comm_rank(c, &rank);
    py::array out(a.dtype(), std::vector<py::ssize_t>{a.shape(1)});
    void* result = out.mutable_data(); // (untouched off the root)
    std::string message; // (the call's, read before destroy's success clears it)
    {
        py::gil_scoped_release unlocked;
        rc = root ? treefold_reduce_ctx(ctx, v.data, result, *root) : treefold_allreduce_ctx(ctx, v.data, result);
        message = v.problem.empty() ? treefold_last_error() : v.problem;
        treefold_context_destroy(&ctx);
    }
    if (rc != MPI_SUCCESS) {
        raise(rc, message);
    }
    return root && *root != rank ? py::object(py::none()) : py::object(out);
}

/// treefold.allreduce (`root_object` null) and treefold.reduce: the reduction on every rank, or
/// on the root only (None elsewhere). A root that is no rank (or no int) on any rank fails on
/// every rank, through the C API or the reducer.
py::object one_call(const py::object& comm, const py::object& array, const py::object* root_object,
                    const py::object& op)
{
    const MPI_Comm c = comm_of(comm);
    int rank = 0;
    root_arg root;
    if (root_object != nullptr) {
        int size = 1;
        MPI_Comm_rank(c, &rank);
        MPI_Comm_size(c, &size);
        root = root_of(*root_object, size);
    }
    const std::optional<int> to = root_object != nullptr ? std::optional<int>(root.value) : std::nullopt;
    const std::optional<MPI_Op> mpi_op = numeric_op(op);
    // (root.error: a root that is no int, or beyond int, is this rank's own reason)
    return raising_own_error(root.error, [&]() -> py::object {
        if (!mpi_op) {
            return objects_call(c, array, op, to);
        }
        if (py::isinstance<py::array>(array) && py::reinterpret_borrow<py::array>(array).ndim() == 2) {
            return rows_call(c, py::reinterpret_borrow<py::array>(array), *mpi_op, to);
        }
        const array_view v = view_of_arg(array, to ? "treefold.reduce" : "treefold.allreduce");
        std::vector<unsigned char> result(16);
        int rc = MPI_SUCCESS;
        {
            py::gil_scoped_release unlocked;
            rc = to ? treefold_reduce_c(v.data, result.data(), v.count, v.type, *mpi_op, *to, c)
                    : treefold_allreduce_c(v.data, result.data(), v.count, v.type, *mpi_op, c);
        }
        if (rc != MPI_SUCCESS) {
            raise(rc, v.problem);
        }
        return to && *to != rank ? py::object(py::none())
                                 : scalar_of(py::reinterpret_borrow<py::array>(array).dtype(), result.data());
    });
}

/// One array of a dot term: its data and length, or `problem` when it is not a 1-D
/// C-contiguous native float64 array.
struct f64_view {
    const double* data = nullptr;
    std::int64_t count = 0;
    std::string problem;
};

f64_view f64_of(const py::array& a, const char* what)
{
    f64_view v;
    const py::dtype dt = a.dtype();
    if (dt.kind() != 'f' || dt.itemsize() != 8 || !dt.attr("isnative").cast<bool>()) {
        v.problem = std::string("treefold: ") + what + " has dtype " + py::str(a.dtype()).cast<std::string>() +
                    " (dot and dots take float64)";
    } else if (a.ndim() != 1 || (a.flags() & py::array::c_style) == 0) {
        v.problem = std::string("treefold: ") + what + " is not a 1-D contiguous array";
    } else {
        v.data = static_cast<const double*>(a.data());
        v.count = static_cast<std::int64_t>(a.size());
    }
    return v;
}

/// treefold_dots on (x, y-or-None) terms; a term that is not usable on this rank takes part
/// as an invalid k, so every rank raises (ValueError; this rank's own message here).
std::vector<double> dots_call(MPI_Comm c, const std::vector<std::pair<py::array, std::optional<py::array>>>& terms,
                              std::string problem = {})
{
    const std::size_t k = terms.size();
    std::vector<const double*> xs(k), ys(k);
    std::int64_t count = 0;
    for (std::size_t i = 0; i < k && problem.empty(); ++i) {
        const std::string name = "term " + std::to_string(i);
        const f64_view x = f64_of(terms[i].first, (name + "'s x").c_str());
        problem = x.problem;
        xs[i] = x.data;
        if (i == 0) {
            count = x.count;
        } else if (problem.empty() && x.count != count) {
            problem = "treefold: " + name + "'s x has " + std::to_string(x.count) + " values, term 0's " +
                      std::to_string(count);
        }
        if (problem.empty() && terms[i].second) {
            const f64_view y = f64_of(*terms[i].second, (name + "'s y").c_str());
            problem = y.problem;
            ys[i] = y.data;
            if (problem.empty() && y.count != count) {
                problem = "treefold: " + name + "'s y has " + std::to_string(y.count) + " values, its x " +
                          std::to_string(count);
            }
        }
    }
    if (problem.empty() && (k == 0 || k > TREEFOLD_DOTS_MAX)) {
        problem = "treefold: dots takes 1 to " + std::to_string(TREEFOLD_DOTS_MAX) + " terms, not " + std::to_string(k);
    }
    std::vector<double> results(k == 0 ? 1 : k);
    const int kk = problem.empty() ? static_cast<int>(k) : 0;
    int rc = MPI_SUCCESS;
    {
        py::gil_scoped_release unlocked;
        rc = treefold_dots(kk, xs.data(), ys.data(), count, results.data(), c);
    }
    if (rc != MPI_SUCCESS) {
        raise(rc, problem);
    }
    results.resize(k);
    return results;
}

double dot(const py::object& comm, const py::object& x, const py::object& y)
{
    const MPI_Comm c = comm_of(comm);
    if (!py::isinstance<py::array>(x) || !py::isinstance<py::array>(y)) { // takes part, as an error
        return dots_call(c, {},
                         "treefold: dot takes numpy arrays x and y, not " + type_name(x) + " and " + type_name(y))[0];
    }
    return dots_call(c, {{py::reinterpret_borrow<py::array>(x), py::reinterpret_borrow<py::array>(y)}})[0];
}

std::vector<double> dots(const py::object& comm, const py::object& terms)
{
    const MPI_Comm c = comm_of(comm);
    std::vector<std::pair<py::array, std::optional<py::array>>> ts;
    // A term of the wrong shape still takes part in the call (as an error), never a hang.
    const std::string bad = "treefold: each dots term is a numpy array or a pair (x, y or None) of them";
    if (!py::isinstance<py::list>(terms) && !py::isinstance<py::tuple>(terms)) {
        return dots_call(c, {}, "treefold: dots takes a list of terms, not " + type_name(terms));
    }
    for (const py::handle t : terms) {
        if (py::isinstance<py::array>(t)) {
            ts.emplace_back(py::reinterpret_borrow<py::array>(t), std::nullopt);
            continue;
        }
        if (!py::isinstance<py::tuple>(t) || py::len(t) != 2 || !py::isinstance<py::array>(t[py::int_(0)]) ||
            !(t[py::int_(1)].is_none() || py::isinstance<py::array>(t[py::int_(1)]))) {
            return dots_call(c, {}, bad);
        }
        const py::object y = t[py::int_(1)];
        ts.emplace_back(t[py::int_(0)].cast<py::array>(),
                        y.is_none() ? std::nullopt : std::optional<py::array>(y.cast<py::array>()));
    }
    return dots_call(c, ts);
}

// ---- Arguments -----------------------------------------------------------------------------
// Every public function and method takes (*args, **kwargs) and binds them here, so that a
// misspelled or foreign keyword is a TypeError naming it and the accepted ones (pybind11's own
// message lists its overloads and the repr of every argument, a whole array included). The
// same call binds the same way on every rank, so raising here leaves no rank waiting.

/// One parameter: its name and, when optional, its default as the signature shows it.
struct parameter {
    const char* name;
    const char* default_text = nullptr;
};

/// A public function's parameters, the last `keyword_only` of them by keyword only.
struct signature {
    std::string name; ///< as called: "treefold.allreduce", "Reducer.reduce"
    std::vector<parameter> params;
    std::size_t keyword_only = 0;

    /// "(comm, array, op='sum')"; `self` first when given.
    std::string text(const char* self = nullptr) const
    {
        std::string t = "(";
        std::string sep;
        if (self != nullptr) {
            t += self;
            sep = ", ";
        }
        for (std::size_t i = 0; i < params.size(); ++i) {
            t += sep;
            sep = ", ";
            if (keyword_only > 0 && i == params.size() - keyword_only) {
                t += "*, ";
            }
            t += params[i].name;
            if (params[i].default_text != nullptr) {
                t += std::string("=") + params[i].default_text;
            }
        }
        return t + ")";
    }

    /// The docstring of `def_name`: CPython's text-signature line (which help() and
    /// inspect.signature read; "$self" for a method), then `doc`.
    std::string docstring(const std::string& def_name, bool method, const std::string& doc) const
    {
        return def_name + text(method ? "$self" : nullptr) + "\n--\n\n" + doc;
    }

    /// The call's arguments, one per parameter (a null object where an optional one was not
    /// given), or a TypeError that names what does not fit.
    std::vector<py::object> bind(const py::args& args, const py::kwargs& kwargs) const
    {
        const std::size_t positional = params.size() - keyword_only;
        std::vector<py::object> bound(params.size());
        if (args.size() > positional) {
            fail("takes " + std::to_string(positional) + " positional argument" + (positional == 1 ? "" : "s") +
                 " but " + std::to_string(args.size()) + " were given");
        }
        for (std::size_t i = 0; i < args.size(); ++i) {
            bound[i] = args[i];
        }
        for (const auto& [key, value] : kwargs) {
            const std::string word = py::str(key);
            const auto at =
                std::find_if(params.begin(), params.end(), [&](const parameter& p) { return word == p.name; });
            if (at == params.end()) {
                fail("got an unexpected keyword argument '" + word + "'" + hint(word));
            }
            py::object& slot = bound[static_cast<std::size_t>(at - params.begin())];
            if (slot) {
                fail("got multiple values for argument '" + word + "'");
            }
            slot = py::reinterpret_borrow<py::object>(value);
        }
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (!bound[i] && params[i].default_text == nullptr) {
                fail(std::string("missing the required argument '") + params[i].name + "'");
            }
        }
        return bound;
    }

    [[noreturn]] void fail(const std::string& what) const
    {
        throw py::type_error(name + "() " + what + "; it takes " + name + text());
    }

    /// A parameter close to `word` (a misspelling), or where a Reducer option belongs.
    std::string hint(const std::string& word) const
    {
        std::vector<std::string> names;
        for (const parameter& p : params) {
            names.emplace_back(p.name);
        }
        const py::list close = py::module_::import("difflib").attr("get_close_matches")(word, names, 1);
        if (!close.empty()) {
            return " (did you mean '" + close[0].cast<std::string>() + "'?)";
        }
        if (word == "exchange" || word == "threads" || word == "kernel") {
            return " (" + word + " is an option of the treefold.Reducer constructor)";
        }
        return "";
    }
};

/// The argument `v` of `function` as an int (None or not given: nullopt); TypeError when it
/// is no int (numpy's ints are), OverflowError beyond int64.
std::optional<std::int64_t> int_arg(const py::object& v, const char* name, const std::string& function)
{
    if (!v || v.is_none()) {
        return std::nullopt;
    }
    if (PyIndex_Check(v.ptr()) == 0) {
        throw py::type_error(function + "(): " + name + " must be an int, not " + type_name(v));
    }
    const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!i) {
        throw py::error_already_set();
    }
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0) {
        PyErr_SetString(PyExc_OverflowError, (function + "(): " + name + " does not fit in int64").c_str());
        throw py::error_already_set();
    }
    return static_cast<std::int64_t>(x);
}

/// The argument `v` of `function` as a str (None or not given: nullopt); TypeError otherwise.
std::optional<std::string> str_arg(const py::object& v, const char* name, const std::string& function)
{
    if (!v || v.is_none()) {
        return std::nullopt;
    }
    if (!py::isinstance<py::str>(v)) {
        throw py::type_error(function + "(): " + name + " must be a str, not " + type_name(v));
    }
    return v.cast<std::string>();
}

/// `v`, or `fallback` when the argument was not given.
py::object or_default(const py::object& v, py::object fallback) { return v ? v : std::move(fallback); }

/// Defines function `name` of module `m` over `s`'s binding: f(bound arguments).
template <class F>
void def_function(py::module_& m, const char* name, const signature& s, const std::string& doc, F f)
{
    const std::string text = s.docstring(name, false, doc);
    m.def(
        name, [s, f](const py::args& args, const py::kwargs& kwargs) { return f(s.bind(args, kwargs)); },
        text.c_str());
}

/// Defines method `name` of `cls` over `s`'s binding: f(self, bound arguments).
template <class Class, class F>
void def_method(Class& cls, const char* name, const signature& s, const std::string& doc, F f)
{
    const std::string text = s.docstring(name, true, doc);
    cls.def(
        name,
        [s, f](const py::object& self, const py::args& args, const py::kwargs& kwargs) {
            return f(self, s.bind(args, kwargs));
        },
        text.c_str());
}

} // namespace

} // namespace treefold::python

PYBIND11_MODULE(treefold, m)
{
    using namespace treefold::python;
    if (import_mpi4py() < 0) {
        throw py::error_already_set();
    }
    m.doc() = R"(Reproducible MPI reductions: the same bits for any number of processes.

Every function reduces ALL values of a distributed array (each rank holds a block) to one
value along treefold's tree over the global index, with the bits of the C++ treefold::reducer.
Collective over the mpi4py communicator; an error on any rank raises on every rank
(TypeError for dtypes, ValueError for arguments, RuntimeError otherwise).)";

    // The signatures are in the docstrings (text-signature lines), since every function takes
    // (*args, **kwargs) for its own binding.
    py::options options;
    options.disable_function_signatures();

    const parameter op{"op", "'sum'"};
    def_function(m, "allreduce", {"treefold.allreduce", {{"comm"}, {"array"}, op}},
                 R"(The reduction of every rank's array (concatenated in rank order) on every rank.

array: a C-contiguous numpy array of float64, float32, int32, int64 or complex128 (read in
place, never copied); op: "sum", "prod", "min" or "max", or mpi4py's MPI.SUM, MPI.PROD,
MPI.MIN, MPI.MAX. A 2-D array (n_rows, k) is element-wise: one row per global index, and the
result is the k column reductions (a 1-D array). With dtype=object and a callable
op(left, right) (left covers the lower indices) the values travel pickled and the callable
runs with the GIL held: a slow path for exact or custom arithmetic (fractions, strings). A
value pickle refuses, or a callable that raises, on one rank raises on every rank: its own
exception there, elsewhere the same built-in exception type (RuntimeError for other types)
naming the rank and the message.)",
                 [](const std::vector<py::object>& a) {
                     return one_call(a[0], a[1], nullptr, or_default(a[2], py::str("sum")));
                 });

    def_function(m, "dot", {"treefold.dot", {{"comm"}, {"x"}, {"y"}}},
                 R"(The reproducible dot product of x and y (this rank's blocks, rank order) on every rank.

x, y: 1-D C-contiguous float64 arrays of the same length (read in place). The result has the
bits of allreduce(comm, x * y): each product rounded once, summed along treefold's tree, the
same for every number of processes.)",
                 [](const std::vector<py::object>& a) { return dot(a[0], a[1], a[2]); });

    def_function(m, "dots", {"treefold.dots", {{"comm"}, {"terms"}}},
                 R"(Up to 4 reductions over the same layout in one exchange, as a list of floats.

terms: a list of (x, y) pairs (the dot of x and y, as dot) or (x, None) / x (the sum of x,
as allreduce); every array 1-D float64 of the same length. Each result has the bits of its
own call.)",
                 [](const std::vector<py::object>& a) { return dots(a[0], a[1]); });

    def_function(m, "reduce", {"treefold.reduce", {{"comm"}, {"array"}, {"root"}, op}},
                 R"(As allreduce, the result on root only (None on the other ranks); it plans on every call
(a Reducer plans once), so every argument error, a bad root too, raises on every rank.)",
                 [](const std::vector<py::object>& a) {
                     return one_call(a[0], a[1], &a[2], or_default(a[3], py::str("sum")));
                 });

    py::class_<py_request> request(m, "Request", "A Reducer's nonblocking call (Reducer.iallreduce, Reducer.ireduce).");
    def_method(request, "test", {"Request.test", {}}, "True once the call has completed (wait() then does not block).",
               [](const py::object& self, const std::vector<py::object>&) { return self.cast<py_request&>().test(); });
    def_method(request, "wait", {"Request.wait", {}},
               "The result (None off the root of ireduce), or the call's error, raised on every rank.",
               [](const py::object& self, const std::vector<py::object>&) { return self.cast<py_request&>().wait(); });

    py::class_<py_reducer> reducer(m, "Reducer",
                                   R"(A reduction planned once for this rank's local_count values of dtype,
reusable for many calls: Reducer(comm, local_count, dtype, op="sum", global_start=None, k=None,
*, exchange=None, threads=None, kernel=None).
Blocks lie in rank order unless every rank passes its global_start. With k (the same on every
rank) it is element-wise: each global index holds a row of k values, the calls take a 2-D
array of shape (local_count, k) and return the k column reductions (a 1-D array).
exchange, threads and kernel are the C context options (numeric Reducers without k).)");
    const signature create{"treefold.Reducer",
                           {{"comm"},
                            {"local_count"},
                            {"dtype"},
                            op,
                            {"global_start", "None"},
                            {"k", "None"},
                            {"exchange", "None"},
                            {"threads", "None"},
                            {"kernel", "None"}},
                           3};
    const std::string create_doc =
        create.docstring("__init__", true, "Plans the reduction (collective); see the class docstring.");
    reducer.def(py::init([create](const py::args& args, const py::kwargs& kwargs) {
                    const std::vector<py::object> a = create.bind(args, kwargs);
                    const std::string& f = create.name;
                    const std::optional<std::int64_t> local_count = int_arg(a[1], "local_count", f);
                    if (!local_count) {
                        throw py::type_error(f + "(): local_count must be an int, not None");
                    }
                    return std::make_unique<py_reducer>(
                        a[0], *local_count, a[2], or_default(a[3], py::str("sum")), int_arg(a[4], "global_start", f),
                        int_arg(a[5], "k", f),
                        reducer_options{str_arg(a[6], "exchange", f), int_arg(a[7], "threads", f),
                                        str_arg(a[8], "kernel", f)});
                }),
                create_doc.c_str());
    def_method(reducer, "allreduce", {"Reducer.allreduce", {{"array"}}}, "The reduction on every rank.",
               [](const py::object& self, const std::vector<py::object>& a) {
                   return self.cast<py_reducer&>().allreduce(a[0]);
               });
    def_method(reducer, "reduce", {"Reducer.reduce", {{"array"}, {"root"}}},
               "The reduction on root (None on the other ranks); an error on any rank, a root that is no "
               "rank included, raises on every rank.",
               [](const py::object& self, const std::vector<py::object>& a) {
                   return self.cast<py_reducer&>().reduce(a[0], a[1]);
               });
    def_method(reducer, "iallreduce", {"Reducer.iallreduce", {{"array"}}},
               "Starts allreduce and returns a Request at once (the array must stay unchanged until wait()); "
               "an object Reducer's call completes before it returns. An unusable array on any rank raises "
               "at wait(), on every rank.",
               [](const py::object& self, const std::vector<py::object>& a) {
                   return self.cast<py_reducer&>().start(self, a[0], std::nullopt);
               });
    def_method(reducer, "ireduce", {"Reducer.ireduce", {{"array"}, {"root"}}},
               "Starts reduce and returns a Request at once; errors (a root that is no rank included) raise "
               "at wait(), on every rank.",
               [](const py::object& self, const std::vector<py::object>& a) {
                   return self.cast<py_reducer&>().start(self, a[0], a[1]);
               });
    def_method(reducer, "buffer", {"Reducer.buffer", {}},
               "The Reducer's own array of local_count values (zero-filled; no copy).",
               [](const py::object& self, const std::vector<py::object>&) {
                   return self.cast<py_reducer&>().buffer(self);
               });
    reducer.def_property_readonly("local_count", &py_reducer::local_count)
        .def_property_readonly("k", &py_reducer::k, "Values per global index of a row Reducer (None otherwise).")
        .def_property_readonly("exchange", &py_reducer::exchange,
                               "The exchange the Reducer runs (for 'automatic', the one it chose).")
        .def_property_readonly("kernel", &py_reducer::kernel, "The local kernel's name ('best' by default).")
        .def_property_readonly("threads", &py_reducer::threads, "The threads this rank's values are reduced on.")
        .def_property_readonly("global_count", &py_reducer::global_count);
}
