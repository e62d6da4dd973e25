"""The Python module under mpirun (every rank runs every test; each test makes the same
collective calls on every rank before it asserts, so a failure on one rank hangs nobody).

Bits are checked against the data sets' published tree sums (the C++ reducer's bits) and, for
random layouts, every dtype and op, against a pure-numpy evaluation of treefold's tree, which
the C++ reducer matches bit for bit by its own tests (test/support/oracle.hpp)."""

import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from mpi4py import MPI

import treefold

COMM = MPI.COMM_WORLD
P = COMM.Get_size()
RANK = COMM.Get_rank()


def tree(xs, op):
    """Node (x, y) = op((x, y-1), (x + 2^(y-1), y-1)), or (x, y-1) alone past N: level by
    level, pairs of neighbours, an odd last node passes through."""
    level = np.asarray(xs)
    while len(level) > 1:
        m = len(level) // 2
        nxt = op(level[0 : 2 * m : 2], level[1 : 2 * m : 2])
        if len(level) % 2:
            nxt = np.concatenate([nxt, level[-1:]])
        level = nxt
    return level[0]


def rank_order_blocks(n, seed):
    """Random block boundaries in rank order (some blocks empty), the same on every rank."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, n + 1, P - 1))
    return np.concatenate([[0], cuts, [n]]).astype(np.int64)


def bits(x):
    return np.asarray(x).tobytes()


def data_dir():
    here = Path(__file__).resolve().parents[2]
    d = Path(os.environ.get("TREEFOLD_SOURCE_DIR", here)) / ".." / "shared" / "data" / "psllh"
    return d if d.is_dir() else None


def read_binpsllh(path):
    raw = path.read_bytes()
    n = int(np.frombuffer(raw[:8], dtype="<u8")[0])
    return np.frombuffer(raw[8:], dtype="<f8", count=n).astype(np.float64)


def test_data_sets_have_the_published_bits():
    d = data_dir()
    if d is None:
        pytest.skip("../shared/data/psllh not found; the data-set check did not run")
    published = {}
    for line in (d / "reference_tree_sum.csv").read_text().splitlines():
        name, _, hexbits = line.partition(",")
        if name.endswith(".binpsllh"):
            published[name] = int(hexbits, 16)
    assert len(published) == 4
    for path in sorted(d.glob("*.binpsllh")):
        xs = read_binpsllh(path)
        cuts = rank_order_blocks(len(xs), len(xs))
        lo, hi = cuts[RANK], cuts[RANK + 1]
        one_call = treefold.allreduce(COMM, xs[lo:hi])
        # A Reducer with declared blocks: rank r holds block P-1-r.
        lo2, hi2 = cuts[P - 1 - RANK], cuts[P - RANK]
        r = treefold.Reducer(COMM, int(hi2 - lo2), np.float64, global_start=int(lo2))
        planned = r.allreduce(xs[lo2:hi2])
        want = tree(xs, np.add)
        assert bits(one_call) == bits(want), path.name
        assert bits(planned) == bits(want), path.name
        if path.name in published:
            assert int(np.float64(one_call).view(np.uint64)) == published[path.name], path.name


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.complex128])
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
def test_every_dtype_and_op_matches_the_tree(dtype, op):
    if np.dtype(dtype).kind == "c" and op in ("min", "max"):
        pytest.skip("min and max are not defined for complex numbers")
    n = 997
    rng = np.random.default_rng(42)
    if np.dtype(dtype).kind == "i":
        xs = rng.integers(-(2**20), 2**20, n).astype(dtype)  # sums and products wrap
    else:
        xs = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dtype)
        if np.dtype(dtype).kind == "c":
            xs = xs + 1j * rng.standard_normal(n)
        if op == "prod":
            xs = (1 + xs / 1e9).astype(dtype)  # stays finite
    ufunc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    if np.dtype(dtype).kind == "c":
        # numpy's complex loops may fuse multiply-adds (SIMD dispatch); Python's complex
        # arithmetic is the plain (ac - bd, ad + bc) that treefold computes.
        ufunc = np.frompyfunc({"sum": lambda a, b: a + b, "prod": lambda a, b: a * b}[op], 2, 1)
    with np.errstate(over="ignore"):
        want = np.asarray(tree(xs.astype(object) if np.dtype(dtype).kind == "c" else xs, ufunc), dtype=dtype)
    for seed in range(3):
        cuts = rank_order_blocks(n, seed)
        got = treefold.allreduce(COMM, xs[cuts[RANK] : cuts[RANK + 1]], op=op)
        assert got.dtype == np.dtype(dtype)
        assert bits(got) == bits(want), (dtype, op, seed)


def test_reducer_reduce_and_its_own_buffer():
    n_local = 3 + RANK
    r = treefold.Reducer(COMM, n_local, np.float64)
    assert r.local_count == n_local
    n = r.global_count
    start = sum(3 + k for k in range(RANK))
    buf = r.buffer()
    assert buf.shape == (n_local,) and not buf.any()
    buf[:] = 1.0 / np.arange(start + 1, start + n_local + 1)  # written in place, no copy
    want = tree(1.0 / np.arange(1, n + 1), np.add)
    assert bits(r.allreduce(buf)) == bits(want)
    for root in range(P):
        got = r.reduce(buf, root)
        if RANK == root:
            assert bits(got) == bits(want)
        else:
            assert got is None


def test_callables_on_object_arrays_keep_index_order():
    n = 50
    cuts = rank_order_blocks(n, 7)
    mine = slice(cuts[RANK], cuts[RANK + 1])
    words = np.array([f"w{i}." for i in range(n)], dtype=object)
    assert treefold.allreduce(COMM, words[mine], op=lambda a, b: a + b) == "".join(words)
    fractions = np.array([Fraction(1, i + 1) for i in range(n)], dtype=object)
    assert treefold.allreduce(COMM, fractions[mine], op=lambda a, b: a + b) == sum(fractions)
    skew = lambda a, b: a * 0.5 + b * 1.5  # non-associative: only the tree's order gives this
    floats = np.array([float(i % 7) - 3.0 for i in range(n)], dtype=object)
    assert treefold.allreduce(COMM, floats[mine], op=skew) == tree(floats, np.frompyfunc(skew, 2, 1))
    r = treefold.Reducer(COMM, int(cuts[RANK + 1] - cuts[RANK]), object, op=lambda a, b: a + b)
    assert r.allreduce(words[mine]) == "".join(words)


def test_a_raising_callable_raises_everywhere():
    def op(a, b):
        if RANK == P - 1:
            raise KeyError("boom")
        return a + b

    xs = np.array([1, 2, 3], dtype=object)
    with pytest.raises(Exception) as info:
        treefold.allreduce(COMM, xs, op=op)
    # The callable's own exception where it was raised; elsewhere the same builtin type with
    # its text and the rank it came from.
    assert info.type is KeyError
    assert "boom" in str(info.value)
    if RANK != P - 1:
        assert f"rank {P - 1}" in str(info.value)
    assert treefold.allreduce(COMM, xs, op=lambda a, b: a + b) == 6 * P


def test_an_unpicklable_value_on_one_rank_raises_everywhere():
    # The last rank holds a value pickle refuses (a lambda): every rank raises, none waits.
    xs = np.array([1, 2, (lambda: 0) if RANK == P - 1 else 3], dtype=object)
    for call in (
        lambda: treefold.allreduce(COMM, xs, op=lambda a, b: b),
        lambda: treefold.Reducer(COMM, 3, object, op=lambda a, b: b).reduce(xs, 0),
    ):
        if P == 1:
            call()  # nothing travels, nothing is pickled
            continue
        with pytest.raises(Exception) as info:
            call()
        if RANK != P - 1:
            assert f"rank {P - 1}" in str(info.value) and "pickle" in str(info.value).lower()
    assert treefold.allreduce(COMM, np.array([1, 2, 3], dtype=object), op=lambda a, b: a + b) == 6 * P


def test_mpi4py_ops_are_the_named_ops():
    n = 301
    xs = np.sin(np.arange(n, dtype=np.float64)) * 10.0 ** (np.arange(n) % 9 - 4)
    cuts = rank_order_blocks(n, 3)
    mine = xs[cuts[RANK] : cuts[RANK + 1]]
    for name, op in [("sum", MPI.SUM), ("prod", MPI.PROD), ("min", MPI.MIN), ("max", MPI.MAX)]:
        assert bits(treefold.allreduce(COMM, mine, op=op)) == bits(treefold.allreduce(COMM, mine, op=name)), name
    r = treefold.Reducer(COMM, len(mine), np.float64, op=MPI.MAX)
    assert r.allreduce(mine) == xs.max()
    # A predefined op treefold does not apply: ValueError on every rank, not the object path.
    with pytest.raises(ValueError, match="unsupported operation"):
        treefold.allreduce(COMM, mine, op=MPI.BAND)


def test_errors_on_one_rank_raise_on_every_rank():
    x = np.arange(8, dtype=np.float64)
    last = RANK == P - 1
    # Wrong dtype on one rank.
    with pytest.raises(TypeError):
        treefold.allreduce(COMM, x.astype(np.uint8) if last else x)
    # A non-contiguous array on one rank (never copied behind the caller's back).
    with pytest.raises(ValueError, match="contiguous" if last else ""):
        treefold.allreduce(COMM, x[::2] if last else x[:4])
    # An unknown op name.
    with pytest.raises(ValueError):
        treefold.allreduce(COMM, x, op="mean")
    # A Reducer given the wrong number of values on one rank, or the wrong dtype.
    r = treefold.Reducer(COMM, 8, np.float64)
    with pytest.raises(ValueError, match="holds 3 values" if last else ""):
        r.allreduce(x[:3] if last else x)
    with pytest.raises((TypeError, ValueError)):
        r.allreduce(x.astype(np.float32) if last else x)
    # N = 0: the predefined ops return their identity on every rank; a callable op has none.
    assert bits(treefold.allreduce(COMM, np.zeros(0))) == bits(np.float64(0.0))
    assert treefold.allreduce(COMM, np.zeros(0, np.int32), op="min") == np.iinfo(np.int32).max
    assert treefold.allreduce(COMM, np.zeros(0), op="prod") == 1.0
    empty = treefold.Reducer(COMM, 0, np.float64, op="max")
    assert empty.allreduce(np.zeros(0)) == -np.inf
    got = empty.reduce(np.zeros(0), P - 1)
    assert (got == -np.inf) if RANK == P - 1 else got is None
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, 0, object, op=lambda a, b: a).allreduce(np.zeros(0, object))
    # Everything still works afterwards.
    assert r.allreduce(x) == treefold.allreduce(COMM, x) == tree(np.tile(x, P), np.add)


def test_rows_reduce_each_column_over_the_global_index():
    n, k = 97, 3
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((n, k)) * 10.0 ** rng.integers(-6, 6, (n, k))
    cuts = rank_order_blocks(n, 11)
    mine = np.ascontiguousarray(rows[cuts[RANK] : cuts[RANK + 1]])
    got = treefold.allreduce(COMM, mine)
    assert got.shape == (k,) and got.dtype == np.float64
    for c in range(k):
        assert bits(got[c]) == bits(tree(rows[:, c], np.add)), c
    at_root = treefold.reduce(COMM, mine, P - 1, op=MPI.MAX)
    if RANK == P - 1:
        assert (at_root == rows.max(axis=0)).all()
    else:
        assert at_root is None
    # Rows of a different width on one rank: an error on every rank.
    if P > 1:
        with pytest.raises(ValueError):
            treefold.allreduce(COMM, np.zeros((2, k + 1 if RANK == P - 1 else k)))


def test_one_call_reduce_and_nonblocking_calls():
    n = 501
    xs = 1.0 / np.arange(1, n + 1)
    cuts = rank_order_blocks(n, 13)
    mine = xs[cuts[RANK] : cuts[RANK + 1]]
    want = tree(xs, np.add)
    for root in range(P):
        got = treefold.reduce(COMM, mine, root)
        assert (bits(got) == bits(want)) if RANK == root else got is None
    with pytest.raises(ValueError):
        treefold.reduce(COMM, mine, P)  # a root outside [0, p), on every rank
    r = treefold.Reducer(COMM, len(mine), np.float64)
    request = r.iallreduce(mine)
    while not request.test():
        pass
    assert bits(request.wait()) == bits(want)
    request = r.ireduce(mine, 0)
    got = request.wait()
    assert (bits(got) == bits(want)) if RANK == 0 else got is None
    # A wrong size on one rank: the wait raises on every rank.
    request = r.iallreduce(mine[:-1] if RANK == P - 1 and len(mine) > 0 else mine)
    last_empty = cuts[P] - cuts[P - 1] == 0
    if last_empty:
        request.wait()  # the last rank passed its (empty) array unchanged: nothing wrong
    else:
        with pytest.raises(ValueError):
            request.wait()
    assert bits(r.allreduce(mine)) == bits(want)


def test_row_reducer_plans_once_and_matches_each_column():
    n, k = 83, 4
    rng = np.random.default_rng(17)
    rows = rng.standard_normal((n, k)) * 10.0 ** rng.integers(-8, 8, (n, k))
    # blocks in reverse rank order, declared with global_start
    cuts = rank_order_blocks(n, 19)
    lo, hi = cuts[P - 1 - RANK], cuts[P - RANK]
    mine = np.ascontiguousarray(rows[lo:hi])
    r = treefold.Reducer(COMM, hi - lo, np.float64, global_start=int(lo), k=k)
    assert r.k == k and r.local_count == hi - lo and r.global_count == n
    assert treefold.Reducer(COMM, hi - lo, np.float64).k is None
    for _ in range(2):
        got = r.allreduce(mine)
        assert got.shape == (k,) and got.dtype == np.float64
        for c in range(k):
            assert bits(got[c]) == bits(tree(rows[:, c], np.add)), c
    at_root = r.reduce(mine, 0)
    assert (bits(at_root) == bits(got)) if RANK == 0 else at_root is None
    buf = r.buffer()
    assert buf.shape == (hi - lo, k) and not buf.any()
    buf[:] = mine
    assert bits(r.allreduce(buf)) == bits(got)
    ints = treefold.Reducer(COMM, hi - lo, np.int64, op=MPI.MAX, global_start=int(lo), k=2)
    vals = np.stack([np.arange(lo, hi), -np.arange(lo, hi)], axis=1).astype(np.int64)
    assert list(ints.allreduce(vals)) == [n - 1, 0]
    # A 1-D array, or rows of another width, on one rank: an error on every rank.
    wrong = mine.reshape(-1) if RANK == P - 1 else mine
    with pytest.raises(ValueError):
        r.allreduce(wrong)
    with pytest.raises(ValueError):
        r.iallreduce(mine)  # row Reducers are blocking only, as C's row contexts
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, hi - lo, np.float64, k=0)  # k must be positive, on every rank
    if P > 1:
        with pytest.raises(ValueError):
            treefold.Reducer(COMM, hi - lo, np.float64, k=3 if RANK == 0 else 4)
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, 1, object, op=lambda a, b: a + b, k=2)


def test_object_reducers_have_nonblocking_calls():
    n = 40
    cuts = rank_order_blocks(n, 23)
    words = np.array([chr(ord("a") + i % 26) for i in range(n)], dtype=object)
    mine = words[cuts[RANK] : cuts[RANK + 1]].copy()
    r = treefold.Reducer(COMM, len(mine), object, op=lambda a, b: a + b)
    request = r.iallreduce(mine)
    assert request.test()  # pickled values: the call completed when it started
    assert request.wait() == "".join(words)
    got = r.ireduce(mine, P - 1).wait()
    assert got == "".join(words) if RANK == P - 1 else got is None
    fractions = np.array([Fraction(1, i + 1) for i in range(n)], dtype=object)
    exact = treefold.Reducer(COMM, len(mine), object, op=lambda a, b: a + b)
    assert exact.iallreduce(fractions[cuts[RANK] : cuts[RANK + 1]].copy()).wait() == sum(fractions)

    def fail_on_n(a, b):
        if "n" in a + b:  # words[13]: every value meets another once, on some rank
            raise KeyError("boom")
        return a + b

    # A callable that raises on some rank: the wait raises on every rank (KeyError everywhere).
    failing = treefold.Reducer(COMM, len(mine), object, op=fail_on_n)
    with pytest.raises(KeyError):
        failing.iallreduce(mine).wait()


def test_reducer_options_are_the_c_context_options():
    n = 4000
    rng = np.random.default_rng(29)
    xs = rng.standard_normal(n) * 10.0 ** rng.integers(-10, 10, n)
    cuts = rank_order_blocks(n, 31)
    mine = xs[cuts[RANK] : cuts[RANK + 1]]
    want = tree(xs, np.add)
    default = treefold.Reducer(COMM, len(mine), np.float64)
    assert default.kernel == "best" and default.threads == 1 and default.exchange != "automatic"
    for exchange, kernel, threads in [("binomial", "scalar", 2), ("direct", "sse2", 1), ("automatic", "best", 3)]:
        r = treefold.Reducer(COMM, len(mine), np.float64, exchange=exchange, kernel=kernel, threads=threads)
        assert r.kernel == kernel and r.threads == threads
        assert r.exchange == exchange if exchange != "automatic" else r.exchange != "automatic"
        assert bits(r.allreduce(mine)) == bits(want)
    # A bad value on one rank: ValueError on every rank.
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, len(mine), np.float64, kernel="fastest" if RANK == P - 1 else "scalar")
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, len(mine), np.float64, threads=0 if RANK == 0 else 2)
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, len(mine), np.float64, k=2, kernel="scalar")  # rows take no options
    with pytest.raises(ValueError):
        treefold.Reducer(COMM, len(mine), object, op=lambda a, b: a + b, exchange="direct")
    with pytest.raises(TypeError):
        treefold.Reducer(COMM, len(mine), np.float64, "sum", None, None, "direct")  # options by keyword only


def test_a_reducer_root_that_is_no_rank_raises_on_every_rank():
    # issue 44 (a): root = -1 was an allreduce (on every rank) or a second root (on one).
    x = np.arange(4, dtype=np.float64)
    r = treefold.Reducer(COMM, 4, np.float64)
    rows = treefold.Reducer(COMM, 2, np.float64, k=2)
    objects = treefold.Reducer(COMM, 4, object, op=lambda a, b: a + b)
    words = np.array(["a", "b", "c", "d"], dtype=object)
    calls = [
        lambda root: r.reduce(x, root),
        lambda root: r.ireduce(x, root).wait(),
        lambda root: rows.reduce(np.ones((2, 2)), root),
        lambda root: objects.reduce(words, root),
        lambda root: objects.ireduce(words, root).wait(),
        lambda root: treefold.reduce(COMM, np.ones((2, 2)), root),
    ]
    for bad in (-1, P, -(2**40), 2**70):
        for call in calls:
            with pytest.raises(ValueError, match="root"):
                call(bad)
    # On one rank only: every rank raises, the one with the bad root names it.
    for bad in (-1, P, 2**70):
        for call in calls:
            with pytest.raises(ValueError, match=f"root {bad}" if RANK == P - 1 else ""):
                call(bad if RANK == P - 1 else 0)
    # A root that is no int on one rank: TypeError there, an error on every rank.
    for call in calls:
        with pytest.raises(TypeError if RANK == P - 1 else ValueError):
            call("0" if RANK == P - 1 else 0)
    # numpy's ints are roots; the Reducers still work.
    got = r.ireduce(x, np.int64(P - 1)).wait()
    assert got == 6 * P if RANK == P - 1 else got is None
    assert r.reduce(x, 0) == (6 * P if RANK == 0 else None)


def test_an_unusable_array_on_one_rank_raises_on_every_rank():
    # issue 44 (b): Reducer.iallreduce(None) on one rank raised there and left the others
    # waiting; every call form now takes part as that rank's failure.
    last = RANK == P - 1
    x = np.arange(4, dtype=np.float64)
    r = treefold.Reducer(COMM, 4, np.float64)
    forms = [
        lambda a: r.allreduce(a),
        lambda a: r.iallreduce(a).wait(),
        lambda a: r.reduce(a, 0),
        lambda a: r.ireduce(a, 0).wait(),
    ]
    wrong = [
        (None, TypeError, "numpy array, not NoneType"),
        ([0.0, 1.0, 2.0, 3.0], TypeError, "numpy array, not list"),
        (x[:3], ValueError, "holds 3 values but this rank's block holds 4"),
        (x.astype(np.float32), TypeError, "dtype is float32"),
        (np.arange(8.0)[::2], ValueError, "not contiguous"),
    ]
    for bad, error, text in wrong:
        for form in forms:
            with pytest.raises(error if last else ValueError, match=text if last else "another rank"):
                form(bad if last else x)
    # A rank with no values that passes some fails every rank too (a NULL buffer would not).
    empty_last = treefold.Reducer(COMM, 0 if last else 4, np.float64)
    for form in (lambda a: empty_last.allreduce(a), lambda a: empty_last.ireduce(a, 0).wait()):
        with pytest.raises(ValueError, match="holds 4 values but this rank's block holds 0" if last else ""):
            form(x)
    # Object Reducers and the one-call functions.
    objects = treefold.Reducer(COMM, 2, object, op=lambda a, b: a + b)
    ok = np.array(["a", "b"], dtype=object)
    for call in (lambda a: objects.allreduce(a), lambda a: objects.iallreduce(a).wait()):
        with pytest.raises(TypeError if last else ValueError, match="not NoneType" if last else ""):
            call(None if last else ok)
    with pytest.raises(TypeError, match="not NoneType" if last else ""):
        treefold.allreduce(COMM, None if last else x)
    with pytest.raises(TypeError, match="not NoneType" if last else ""):
        treefold.allreduce(COMM, None if last else ok, op=lambda a, b: a + b)
    with pytest.raises(ValueError):
        treefold.dot(COMM, None if last else x, x)
    # Everything works afterwards.
    assert r.allreduce(x) == 6 * P and r.iallreduce(x).wait() == 6 * P
    assert objects.allreduce(ok) == "ab" * P


def test_a_misspelled_keyword_is_a_type_error_that_names_it():
    # issue 44 (c): pybind11's "incompatible function arguments" printed the whole array.
    x = np.arange(1000, dtype=np.float64)
    r = treefold.Reducer(COMM, 1000, np.float64)
    cases = [
        (lambda: treefold.allreduce(COMM, x, exchange="direct"), "exchange", "allreduce(comm, array, op='sum')"),
        (lambda: treefold.allreduce(COMM, x, opp="max"), "opp", "did you mean 'op'"),
        (lambda: treefold.reduce(COMM, x, rooot=0), "rooot", "treefold.reduce(comm, array, root, op='sum')"),
        (lambda: treefold.dot(COMM, x, yy=x), "yy", "treefold.dot(comm, x, y)"),
        (lambda: treefold.dots(COMM, term=[x]), "term", "treefold.dots(comm, terms)"),
        (lambda: treefold.Reducer(COMM, 1000, np.float64, exchnage="direct"), "exchnage", "did you mean 'exchange'"),
        (lambda: r.allreduce(arr=x), "arr", "Reducer.allreduce(array)"),
        (lambda: r.reduce(x, rot=0), "rot", "Reducer.reduce(array, root)"),
        (lambda: r.iallreduce(x, root=0), "root", "Reducer.iallreduce(array)"),
        (lambda: r.ireduce(x, roots=0), "roots", "Reducer.ireduce(array, root)"),
        (lambda: r.buffer(copy=True), "copy", "Reducer.buffer()"),
    ]
    for call, word, accepted in cases:
        with pytest.raises(TypeError) as info:
            call()
        text = str(info.value)
        assert f"unexpected keyword argument '{word}'" in text and accepted in text, text
        assert "incompatible" not in text and "array(" not in text, text
    with pytest.raises(TypeError, match="missing the required argument 'root'"):
        r.reduce(x)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        r.allreduce(x, 0)
    import inspect

    assert str(inspect.signature(treefold.reduce)) == "(comm, array, root, op='sum')"
    assert r.allreduce(array=x) == treefold.allreduce(array=x, comm=COMM, op="sum")
