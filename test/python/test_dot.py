"""treefold.dot and treefold.dots under mpirun: the bits of the tree over the stored products
(a pure-numpy evaluation, the same for every p) and of allreduce of the products, for random
ragged layouts; the k-at-once form against k separate calls; errors on every rank."""

import numpy as np
import pytest
from mpi4py import MPI

import treefold
from test_treefold import tree

COMM = MPI.COMM_WORLD
P = COMM.Get_size()
RANK = COMM.Get_rank()


def tree_sum(xs):
    """treefold's tree over the global index (test_treefold's numpy evaluation); 0.0 for N = 0."""
    return tree(np.asarray(xs, dtype=np.float64), np.add) if len(xs) else 0.0


def layout(n, seed):
    """This rank's [lo, hi) of random rank-order blocks (some empty), the same on every rank."""
    rng = np.random.default_rng(seed)
    cuts = np.concatenate([[0], np.sort(rng.integers(0, n + 1, P - 1)), [n]])
    return int(cuts[RANK]), int(cuts[RANK + 1])


def data(n, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n)) for _ in range(4)]


def bits(v):
    return np.float64(v).tobytes()


@pytest.mark.parametrize("n", [0, 1, 7, 100, 1000, 4099])
def test_dot_bits(n):
    x, y, z, w = data(n, n)
    lo, hi = layout(n, n + 1)
    got = treefold.dot(COMM, x[lo:hi], y[lo:hi])
    products = x * y
    assert isinstance(got, float)
    assert bits(got) == bits(tree_sum(products))
    assert bits(got) == bits(treefold.allreduce(COMM, np.ascontiguousarray(products[lo:hi])))


@pytest.mark.parametrize("n", [0, 5, 1000, 4099])
def test_dots_equal_separate_calls(n):
    x, y, z, w = data(n, 2 * n)
    lo, hi = layout(n, 3 * n)
    b = [a[lo:hi] for a in (x, y, z, w)]
    single = [treefold.dot(COMM, b[0], b[1]), treefold.dot(COMM, b[2], b[3]),
              treefold.allreduce(COMM, b[2]), treefold.dot(COMM, b[1], b[1])]
    terms = [(b[0], b[1]), (b[2], b[3]), (b[2], None), (b[1], b[1])]
    for k in range(1, 5):
        got = treefold.dots(COMM, terms[:k])
        assert [bits(g) for g in got] == [bits(s) for s in single[:k]]
    assert [bits(g) for g in treefold.dots(COMM, [b[2]])] == [bits(single[2])]


def test_errors_on_every_rank():
    a = np.ones(3)
    last = P - 1
    with pytest.raises(ValueError):  # another length on the last rank
        treefold.dot(COMM, a, a[:2] if RANK == last else a)
    with pytest.raises(ValueError):  # float32 on rank 0
        treefold.dot(COMM, a.astype(np.float32) if RANK == 0 else a, a)
    with pytest.raises(ValueError):  # not contiguous
        treefold.dot(COMM, np.ones(6)[::2] if RANK == last else a, a)
    with pytest.raises(ValueError):  # too many terms
        treefold.dots(COMM, [(a, a)] * 5)
    with pytest.raises(ValueError):  # not a term, on the last rank
        treefold.dots(COMM, [(a, a, a)] if RANK == last else [(a, a)])
    with pytest.raises(ValueError):  # no terms
        treefold.dots(COMM, [])
    assert treefold.dots(COMM, [(a, a), a]) == [3.0 * P, 3.0 * P]
