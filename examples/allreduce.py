"""The reproducible sum of a .binpsllh file (uint64 N, then N float64) from Python, as in
README.md: each rank reads its block in rank order and treefold.allreduce sums all N values.
Run: mpirun -n 4 python3 examples/allreduce.py FILE   (prints the sum and its bits)."""
import sys

import numpy as np
from mpi4py import MPI

import treefold

comm = MPI.COMM_WORLD
n = int(np.fromfile(sys.argv[1], dtype="<u8", count=1)[0])
lo, hi = n * comm.rank // comm.size, n * (comm.rank + 1) // comm.size
local = np.fromfile(sys.argv[1], dtype="<f8", count=hi - lo, offset=8 + 8 * lo)

total = treefold.allreduce(comm, local)  # same bits for every number of processes
if comm.rank == 0:
    print(f"tree sum      : {total!r}")
    print(f"tree sum bits : {int(total.view(np.uint64)):016X}")
