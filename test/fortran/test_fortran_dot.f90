! treefold_dot and treefold_dots from Fortran under mpirun: for several N and ragged rank-order
! blocks, the dot has the bits of treefold_allreduce of the stored products (so the same for
! every p), treefold_dots' k results those of k separate calls, and errors come back on every rank.
program test_fortran_dot
  use, intrinsic :: iso_fortran_env, only: real64, int64, output_unit, error_unit
  use mpi_f08
  use treefold
  implicit none

  integer :: rank, p, failures, ierr, s, ragged, i, k, total
  integer(int64) :: n, lo, hi, w, acc, r
  integer(int64), parameter :: sizes(6) = [0_int64, 1_int64, 7_int64, 100_int64, 1000_int64, 4099_int64]
  real(real64), allocatable :: x(:, :), prod(:), ones(:)
  real(real64) :: got, ref, single(4), res(4), sums(2)
  real(real64) :: a(3), big(200)
  character(len=:), allocatable :: msg
  integer, parameter :: ycols(4) = [2, 4, 2, 1] ! dots column c: x(:, c) . x(:, ycols(c))

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  failures = 0

  do s = 1, size(sizes)
    do ragged = 0, 1
      n = sizes(s)
      w = 0
      do r = 0, p - 1
        w = w + merge(r, 1_int64, ragged == 1)
      end do
      acc = 0
      lo = 0
      hi = 0
      do r = 0, rank
        lo = merge(n * acc / w, 0_int64, w > 0)
        acc = acc + merge(r, 1_int64, ragged == 1)
        hi = merge(n * acc / w, n, w > 0)
      end do
      allocate (x(hi - lo, 4), prod(hi - lo), ones(hi - lo))
      do i = 1, int(hi - lo)
        do k = 1, 4
          x(i, k) = value(lo + i - 1, k)
        end do
      end do
      prod = x(:, 1) * x(:, 2)
      ones = 1.0_real64
      call treefold_dot(x(:, 1), x(:, 2), got, MPI_COMM_WORLD, ierr)
      call expect(ierr == MPI_SUCCESS, 'treefold_dot')
      call treefold_allreduce(prod, ref, MPI_COMM_WORLD, ierr)
      call expect(ierr == MPI_SUCCESS .and. same(got, ref), 'dot against the stored products')
      do k = 1, 4
        call treefold_dot(x(:, k), x(:, ycols(k)), single(k), MPI_COMM_WORLD, ierr)
      end do
      do k = 1, 4
        res = -1.0_real64
        call treefold_dots(x(:, 1:k), res, MPI_COMM_WORLD, ierr, y=x(:, ycols(1:k)))
        call expect(ierr == MPI_SUCCESS .and. all(same4(res(1:k), single(1:k))), 'dots against separate calls')
      end do
      call treefold_allreduce(x(:, 3), ref, MPI_COMM_WORLD, ierr)
      call treefold_dots(x(:, 3:4), sums, MPI_COMM_WORLD, ierr)
      call expect(ierr == MPI_SUCCESS .and. same(sums(1), ref), 'dots without y: sums')
      call treefold_dot(x(:, 3), ones, got, MPI_COMM_WORLD, ierr)
      call expect(ierr == MPI_SUCCESS .and. same(got, ref), 'a dot with ones is the sum')
      deallocate (x, prod, ones)
    end do
  end do

  ! Errors on one rank are errors on every rank; a good call works afterwards.
  a = [1.0_real64, 2.0_real64, 3.0_real64]
  if (rank == p - 1) then
    call treefold_dot(a, a(1:2), got, MPI_COMM_WORLD, ierr)
  else
    call treefold_dot(a, a, got, MPI_COMM_WORLD, ierr)
  end if
  call expect(ierr == MPI_ERR_BUFFER, 'y of another length')
  ! Issue 44 (d): the rank that passed them is told the sizes differ (it said "NULL y"), and an
  ! empty x with a longer y fails too (it passed unnoticed).
  msg = treefold_error_message()
  if (rank == p - 1) call expect(index(msg, 'differ in size (3 and 2 values)') > 0, 'the sizes, named: '//msg)
  if (rank == p - 1) then
    call treefold_dot(a(1:0), a, got, MPI_COMM_WORLD, ierr)
  else
    call treefold_dot(a, a, got, MPI_COMM_WORLD, ierr)
  end if
  call expect(ierr == MPI_ERR_BUFFER, 'an empty x with a y of 3 values')
  msg = treefold_error_message()
  if (rank == p - 1) call expect(index(msg, 'differ in size (0 and 3 values)') > 0, 'the sizes, named: '//msg)
  ! Sections with a stride are fine (the compiler passes a contiguous copy): the same bits.
  big = [(value(int(i, int64), 1), i = 1, 200)]
  call treefold_dot(big(1:200:2), big(2:200:2), got, MPI_COMM_WORLD, ierr)
  call treefold_dot(pack(big, mod([(i, i = 1, 200)], 2) == 1), pack(big, mod([(i, i = 1, 200)], 2) == 0), ref, &
                    MPI_COMM_WORLD, ierr)
  call expect(ierr == MPI_SUCCESS .and. same(got, ref), 'a strided section')
  call treefold_dots(reshape([a, a, a, a, a], [3, 5]), res, MPI_COMM_WORLD, ierr)
  call expect(ierr == MPI_ERR_ARG, 'k = 5')
  call treefold_dots(reshape([a, a], [3, 2]), res, MPI_COMM_WORLD, ierr, y=reshape([a, a], [2, 3]))
  call expect(ierr == MPI_ERR_ARG, 'y of another shape')
  msg = treefold_error_message()
  call expect(index(msg, 'y has shape (2, 3) but x (3, 2)') > 0, 'the shapes, named: '//msg)
  call treefold_dots(reshape([a, a], [3, 2]), res, MPI_COMM_WORLD, ierr, y=reshape([a, a], [3, 2]))
  call expect(ierr == MPI_SUCCESS .and. all(same4(res(1:2), 14.0_real64 * p)), 'dots after errors')

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) write (output_unit, '(a,i0,a)') 'test_fortran_dot: p = ', p, merge(', passed', ', FAILED', total == 0)
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  !> A value of global index i in array j: varied signs and exponents, the same on every p.
  real(real64) function value(i, j)
    integer(int64), intent(in) :: i
    integer, intent(in) :: j
    integer(int64) :: h
    h = modulo(i * 2654435761_int64 + j * 40503_int64, 2147483647_int64)
    value = real(modulo(h, 1000003_int64), real64) / 1000003.0_real64 * 2.0_real64**int(modulo(h, 41_int64) - 20)
    if (modulo(h, 2_int64) == 1) value = -value
  end function value

  logical function same(u, v)
    real(real64), intent(in) :: u, v
    same = transfer(u, 0_int64) == transfer(v, 0_int64)
  end function same

  elemental logical function same4(u, v)
    real(real64), intent(in) :: u, v
    same4 = transfer(u, 0_int64) == transfer(v, 0_int64)
  end function same4

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      write (error_unit, '(a,i0,a,i0,2a)') 'test_fortran_dot: rank ', rank, ', N = ', n, ': ', what
      failures = failures + 1
    end if
  end subroutine expect
end program test_fortran_dot
