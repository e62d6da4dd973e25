!> The bits of the Fortran module's treefold_allreduce (real64 sum) of a .binpsllh file, printed
!> by rank 0 as `treefold sum` prints them, for the comparison of builds against different MPI
!> implementations (check_mpi_bits.sh); the Fortran twin of mpi_bits.c, with its layout: the
!> N values in rank order, the first mod(N, p) ranks one more. Usage: mpirun -n P mpi_bits_f FILE
program mpi_bits_f
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use mpi_f08, only: MPI_Init, MPI_Finalize, MPI_Comm_rank, MPI_Comm_size, MPI_Allreduce, MPI_COMM_WORLD, &
                     MPI_INTEGER, MPI_MIN
  use treefold, only: treefold_allreduce
  implicit none
  character(len=4096) :: path
  integer :: rank, size, unit, status, readable, all_readable, ierr
  integer(int64) :: n, base, extra, start, count
  real(real64), allocatable :: local(:)
  real(real64) :: total

  if (command_argument_count() /= 1) then
    write (error_unit, '(a)') 'usage: mpirun -n P mpi_bits_f FILE'
    error stop 1
  end if
  call get_command_argument(1, path)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)

  ! The file: a little-endian int64 N, then N little-endian real64 (the host's order here).
  readable = 0
  count = 0
  open (newunit=unit, file=trim(path), access='stream', form='unformatted', status='old', action='read', &
        iostat=status)
  if (status == 0) then
    read (unit, iostat=status) n
    if (status == 0) then
      base = n / size
      extra = mod(n, int(size, int64))
      start = rank * base + min(int(rank, int64), extra)
      count = base
      if (rank < extra) count = count + 1
      allocate (local(count))
      read (unit, pos=9 + 8 * start, iostat=status) local
      if (status == 0) readable = 1
    end if
    close (unit)
  end if
  if (readable == 0) write (error_unit, '(3a)') "mpi_bits_f: cannot read '", trim(path), "'"
  call MPI_Allreduce(readable, all_readable, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  if (all_readable == 0) then
    call MPI_Finalize()
    error stop 1
  end if

  total = 0
  call treefold_allreduce(local, total, MPI_COMM_WORLD, ierr)
  if (ierr /= 0) then
    write (error_unit, '(a, i0, a)') 'mpi_bits_f: treefold_allreduce failed (', ierr, ')'
    call MPI_Finalize()
    error stop 1
  end if
  if (rank == 0) write (*, '(a, z16.16)') 'tree sum bits    : ', transfer(total, 0_int64)
  call MPI_Finalize()
end program mpi_bits_f
