! A Fortran user's program: the sum of 1/i over i = 1..1000 spread over the ranks with
! treefold_allreduce. Built by test/consumer/check.cmake with the README's link line alone:
!   mpifort allreduce.f90 $(pkg-config --cflags --libs treefold-fortran)
program consumer
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi_f08
  use treefold
  implicit none
  integer :: rank, p, i, lo, hi, ierr
  real(real64), allocatable :: x(:)
  real(real64) :: total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  lo = 1000 * rank / p + 1
  hi = 1000 * (rank + 1) / p
  x = [(1.0_real64 / i, i = lo, hi)]
  call treefold_allreduce(x, total, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,es24.17)', 'fortran consumer: sum of 1/i for i=1..1000 = ', total
  call MPI_Finalize()
  if (ierr /= MPI_SUCCESS .or. total < 7.48_real64 .or. total > 7.49_real64) error stop 1
end program consumer
