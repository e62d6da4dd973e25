! The Fortran module under mpirun: the data sets' published bits (the C++ reducer's) and a
! Fortran evaluation of the tree for the others, through the one-call form and contexts with
! blocks in reverse rank order; real32, int64 and int32; context options (exchange=,
! threads=) and getters; nonblocking calls; an error class on every rank.
! Usage: test_fortran DATA_DIR FILE...   (DATA_DIR absent: the data-set part is skipped)
program test_fortran
  use, intrinsic :: iso_fortran_env, only: real64, real32, int64, int32, output_unit, error_unit
  use mpi_f08
  use treefold
  use, intrinsic :: iso_c_binding, only: c_associated
  implicit none

  integer :: rank, p, failures, ierr, i, nargs
  character(len=4096) :: dir, file
  logical :: have_dir

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  failures = 0

  nargs = command_argument_count()
  have_dir = .false.
  if (nargs >= 1) then
    call get_command_argument(1, dir)
    if (dir == '--error-stop') call stop_on_an_error()
    inquire (file=trim(dir)//'/reference_tree_sum.csv', exist=have_dir)
  end if
  if (have_dir) then
    do i = 2, nargs
      call get_command_argument(i, file)
      call check_data_set(trim(dir), trim(file))
    end do
  else if (rank == 0) then
    write (output_unit, '(a)') 'SKIPPED: ../shared/data/psllh not found; the data-set check did not run'
  end if

  call check_other_kinds()
  call check_options()
  call check_nonblocking()
  call check_nonblocking_arrays()
  call check_int32_counts()
  call check_errors()

  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) write (output_unit, '(a,i0,a,i0)') 'test_fortran: p = ', p, ', failures = ', failures
  call MPI_Finalize()
  if (failures /= 0) error stop 1

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    failures = failures + 1
    write (error_unit, '(a,i0,a)') 'test_fortran: rank ', rank, ': '//what
  end subroutine fail

  !> The tree over the global index, level by level: pairs of neighbours, an odd last one
  !> passes through (nothing shared with treefold). `single`: each sum rounded as real32 (xs
  !> then holds real32 values).
  real(real64) function tree_sum(xs, single) result(s)
    real(real64), intent(in) :: xs(:)
    logical, intent(in) :: single
    real(real64), allocatable :: level(:)
    integer(int64) :: n, k
    allocate (level(size(xs)))
    level(:) = xs
    n = size(level, kind=int64)
    do while (n > 1)
      do k = 1, n / 2
        if (single) then
          level(k) = real(real(level(2 * k - 1), real32) + real(level(2 * k), real32), real64)
        else
          level(k) = level(2 * k - 1) + level(2 * k)
        end if
      end do
      if (mod(n, 2_int64) == 1) level(n / 2 + 1) = level(n)
      n = (n + 1) / 2
    end do
    s = level(1)
  end function tree_sum

  !> Block r of n over p ranks with uneven sizes (rank r gets about (r+1)/sum weights): [lo, hi].
  subroutine block_of(n, r, lo, hi)
    integer(int64), intent(in) :: n
    integer, intent(in) :: r
    integer(int64), intent(out) :: lo, hi
    integer(int64) :: total
    total = int(p, int64) * (p + 1) / 2
    lo = n * (int(r, int64) * (r + 1) / 2) / total + 1
    hi = n * (int(r + 1, int64) * (r + 2) / 2) / total
  end subroutine block_of

  subroutine check_data_set(dir, file)
    character(len=*), intent(in) :: dir, file
    real(real64), allocatable :: xs(:)
    real(real64) :: got, want, at_root
    integer(int64) :: n, lo, hi, published, bits
    integer :: unit, r
    type(treefold_context) :: ctx
    logical :: has_published

    open (newunit=unit, file=dir//'/'//file, access='stream', form='unformatted', status='old', action='read')
    read (unit) n
    allocate (xs(n))
    read (unit) xs
    close (unit)
    call find_published(dir, file, has_published, published)

    want = tree_sum(xs, .false.)
    if (has_published .and. transfer(want, 0_int64) /= published) &
      call fail(file//': the oracle misses the published bits')

    ! One call, blocks in rank order.
    call block_of(n, rank, lo, hi)
    call treefold_allreduce(xs(lo:hi), got, MPI_COMM_WORLD, ierr)
    bits = transfer(got, 0_int64)
    if (ierr /= MPI_SUCCESS) call fail(file//': treefold_allreduce: '//treefold_error_message())
    if (bits /= transfer(want, 0_int64)) call fail(file//': treefold_allreduce bits differ')

    ! A context with declared blocks in reverse rank order, allreduce and a rooted reduce.
    call block_of(n, p - 1 - rank, lo, hi)
    call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                 global_start=lo - 1)
    if (ierr /= MPI_SUCCESS) call fail(file//': create: '//treefold_error_message())
    call treefold_allreduce_ctx(ctx, xs(lo:hi), got, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) &
      call fail(file//': treefold_allreduce_ctx bits differ')
    do r = 0, p - 1
      at_root = -1
      call treefold_reduce_ctx(ctx, xs(lo:hi), at_root, r, ierr)
      if (ierr /= MPI_SUCCESS) call fail(file//': treefold_reduce_ctx failed')
      if (rank == r .and. transfer(at_root, 0_int64) /= transfer(want, 0_int64)) &
        call fail(file//': treefold_reduce_ctx bits differ')
    end do
    call treefold_context_destroy(ctx, ierr)
    if (rank == 0) write (output_unit, '(a,z16.16)') file//' tree sum bits ', transfer(got, 0_int64)
  end subroutine check_data_set

  !> The published bits of `file` from reference_tree_sum.csv (file,HEX), if listed.
  subroutine find_published(dir, file, found, bits)
    character(len=*), intent(in) :: dir, file
    logical, intent(out) :: found
    integer(int64), intent(out) :: bits
    character(len=512) :: line
    integer :: unit, stat, comma
    found = .false.
    bits = 0
    open (newunit=unit, file=dir//'/reference_tree_sum.csv', status='old', action='read')
    do
      read (unit, '(a)', iostat=stat) line
      if (stat /= 0) exit
      comma = index(line, ',')
      if (comma > 0) then
        if (line(1:comma - 1) == file) then
          read (line(comma + 1:), '(z16)') bits
          found = .true.
        end if
      end if
    end do
    close (unit)
  end subroutine find_published

  subroutine check_other_kinds()
    integer(int64), parameter :: n = 1001
    real(real32) :: f(n), fgot, fwant
    integer(int64) :: k(n), kgot, lo, hi, i
    do i = 1, n
      f(i) = real(1.0_real64 / real(i, real64) * merge(1, -1, mod(i, 3_int64) == 0), real32)
      k(i) = i * i - 7
    end do
    call block_of(n, rank, lo, hi)
    call treefold_allreduce(f(lo:hi), fgot, MPI_COMM_WORLD, ierr)
    fwant = real(tree_sum(real(f, real64), .true.), real32)
    if (ierr /= MPI_SUCCESS .or. transfer(fgot, 0) /= transfer(fwant, 0)) call fail('real32 bits differ')
    call treefold_allreduce(k(lo:hi), kgot, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. kgot /= sum(k)) call fail('int64 sum differs')
    call treefold_allreduce(k(lo:hi), kgot, MPI_COMM_WORLD, ierr, op=MPI_MAX)
    if (ierr /= MPI_SUCCESS .or. kgot /= maxval(k)) call fail('int64 max differs')
    call check_int32_and_rows(k, lo, hi)
  end subroutine check_other_kinds

  !> int32 through the generic one-call form; a row context (k = 2 columns: k(i) and -2 k(i))
  !> against the scalar sums, on every rank and on a root.
  subroutine check_int32_and_rows(k, lo, hi)
    integer(int64), intent(in) :: k(:), lo, hi
    integer(int32) :: small(hi - lo + 1), sgot
    integer(int64) :: rows(2, hi - lo + 1), cols(2), at_root(2), kgot
    type(treefold_context) :: ctx
    small = int(mod(k(lo:hi), 1000_int64), int32)
    call treefold_allreduce(small, sgot, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. sgot /= int(sum(mod(k, 1000_int64)), int32)) call fail('int32 sum differs')
    call treefold_allreduce(small, sgot, MPI_COMM_WORLD, ierr, op=MPI_MIN)
    if (ierr /= MPI_SUCCESS .or. sgot /= int(minval(mod(k, 1000_int64)), int32)) call fail('int32 min differs')
    rows(1, :) = k(lo:hi)
    rows(2, :) = -2 * k(lo:hi)
    call treefold_context_create_rows(MPI_COMM_WORLD, hi - lo + 1, 2_int64, MPI_INTEGER8, MPI_SUM, ctx, ierr, &
                                      global_start=lo - 1)
    if (ierr /= MPI_SUCCESS) call fail('create_rows: '//treefold_error_message())
    call treefold_allreduce_rows(ctx, rows, cols, ierr)
    if (ierr /= MPI_SUCCESS .or. cols(1) /= sum(k) .or. cols(2) /= -2 * sum(k)) call fail('row sums differ')
    at_root = -1
    call treefold_reduce_rows(ctx, rows, at_root, p - 1, ierr)
    if (ierr /= MPI_SUCCESS .or. (rank == p - 1 .and. any(at_root /= cols)) .or. &
        (rank /= p - 1 .and. any(at_root /= -1))) call fail('rows reduced to a root differ')
    call treefold_context_destroy(ctx)
    ! The one-call reduce to a root, and a bad root on every rank.
    kgot = -1
    call treefold_reduce(k(lo:hi), kgot, p - 1, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. (rank == p - 1 .and. kgot /= sum(k)) .or. (rank /= p - 1 .and. kgot /= -1)) &
      call fail('treefold_reduce (int64) differs')
    call treefold_reduce(small, sgot, 0, MPI_COMM_WORLD, ierr, op=MPI_MAX)
    if (ierr /= MPI_SUCCESS .or. (rank == 0 .and. sgot /= int(maxval(mod(k, 1000_int64)), int32))) &
      call fail('treefold_reduce (int32 max) differs')
    call treefold_reduce(small, sgot, p, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_ERR_ROOT) call fail('expected MPI_ERR_ROOT on every rank')
  end subroutine check_int32_and_rows

  !> exchange=, threads= and kernel=: every exchange (1 to 3 threads, the kernels) gives the bits;
  !> the getters report the choice; a bad value is MPI_ERR_INFO_VALUE on every rank.
  subroutine check_options()
    integer(int64), parameter :: n = 5000
    character(len=*), parameter :: names(6) = [character(len=11) :: 'automatic', 'native', 'binomial', 'direct', &
                                                'dual4', 'schedule_rd']
    character(len=*), parameter :: kernels(6) = [character(len=7) :: 'best', 'scalar', 'sse2', 'scalar', 'best', &
                                                  'scalar']
    real(real64) :: xs(n), want, got
    integer(int64) :: lo, hi, i, messages, bytes, collectives, collective_bytes
    type(treefold_context) :: ctx
    integer :: e
    character(len=:), allocatable :: used
    do i = 1, n
      xs(i) = 1.0_real64 / real(i, real64) * merge(1, -1, mod(i, 7_int64) < 3) + 1e10_real64 * merge(1, 0, i == 17)
    end do
    want = tree_sum(xs, .false.)
    call block_of(n, rank, lo, hi)
    do e = 1, size(names)
      call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                   exchange=trim(names(e)), threads=1 + mod(rank + e, 3), kernel=trim(kernels(e)))
      if (ierr /= MPI_SUCCESS) call fail('create, exchange='//trim(names(e))//': '//treefold_error_message())
      used = treefold_context_exchange(ctx)
      if (e > 1 .and. used /= trim(names(e))) call fail('exchange '//trim(names(e))//' reported as '//used)
      if (e == 1 .and. len(used) == 0) call fail('automatic reports no exchange')
      if (treefold_context_threads(ctx) /= 1 + mod(rank + e, 3)) call fail('threads getter differs')
      used = treefold_context_kernel(ctx)
      if (used /= trim(kernels(e))) call fail('kernel '//trim(kernels(e))//' reported as '//used)
      if (treefold_context_global_count(ctx) /= n) call fail('global count differs')
      if (treefold_context_width(ctx) /= 1) call fail('width is not 1')
      call treefold_context_last_counters(ctx, messages, bytes, collectives, collective_bytes, ierr)
      if (ierr /= MPI_SUCCESS .or. messages /= 0 .or. bytes /= 0 .or. collectives /= 0 .or. collective_bytes /= 0) &
        call fail('counters before the first call are not 0')
      got = 0
      call treefold_allreduce_ctx(ctx, xs(lo:hi), got, ierr)
      if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) &
        call fail('exchange='//trim(names(e))//': bits differ')
      call treefold_context_last_counters(ctx, messages=messages, collectives=collectives)
      if (p > 1 .and. messages + collectives == 0) call fail(trim(names(e))//': nothing sent at p > 1')
      call treefold_context_destroy(ctx)
    end do
    ! A bad exchange on the last rank only, a bad thread count on rank 0: every rank's error.
    if (rank == p - 1) then
      call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                   exchange='nonesuch')
    else
      call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                   exchange='direct')
    end if
    if (ierr /= MPI_ERR_INFO_VALUE) call fail('exchange=nonesuch: expected MPI_ERR_INFO_VALUE on every rank')
    used = treefold_context_exchange(ctx)
    if (used /= '') call fail('a context that was not created reports an exchange')
    if (treefold_context_threads(ctx) /= -1) call fail('a context that was not created reports threads')
    call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                 threads=merge(0, 2, rank == 0))
    if (ierr /= MPI_ERR_INFO_VALUE) call fail('threads=0: expected MPI_ERR_INFO_VALUE on every rank')
    call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                 kernel=trim(merge('fastest', 'scalar ', rank == 0)))
    if (ierr /= MPI_ERR_INFO_VALUE) call fail('kernel=fastest: expected MPI_ERR_INFO_VALUE on every rank')
  end subroutine check_options

  !> iallreduce / ireduce with test and wait: the blocking call's bits; a non-contiguous local
  !> on rank 0 is MPI_ERR_BUFFER on every rank at the wait (rank 0 told why); a negative root
  !> is MPI_ERR_ROOT at every rank's wait.
  subroutine check_nonblocking()
    integer(int64), parameter :: n = 3001
    real(real64), asynchronous :: xs(2 * n), got, at_root
    integer(int64), asynchronous :: ks(n), kgot
    real(real32), asynchronous :: fs(n), fgot
    integer(int32), asynchronous :: is(n), igot
    complex(real64), asynchronous :: zs(n), zgot
    complex(real64) :: zwant
    real(real64) :: want
    integer(int64) :: lo, hi, i, m
    type(treefold_context) :: ctx, kctx, fctx, ictx, zctx
    type(treefold_request) :: req
    logical :: done
    integer :: polls
    character(len=:), allocatable :: msg
    do i = 1, 2 * n
      xs(i) = sin(real(i, real64)) * 10.0_real64**mod(i, 9_int64)
    end do
    ks = [(i * 3 - 1000, i = 1, n)]
    fs = real(xs(1:n), real32)
    is = int(ks, int32)
    want = tree_sum(xs(1:n), .false.)
    call block_of(n, rank, lo, hi)
    m = hi - lo + 1
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, global_start=lo - 1)
    got = 0
    call treefold_iallreduce_ctx(ctx, xs(lo:hi), got, req, ierr)
    if (ierr /= MPI_SUCCESS) call fail('iallreduce: '//treefold_error_message())
    done = .false.
    polls = 0
    do while (.not. done .and. ierr == MPI_SUCCESS)
      call treefold_test(req, done, ierr)
      polls = polls + 1
    end do
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) &
      call fail('iallreduce + test: bits differ')
    call treefold_wait(req, ierr) ! holds none now: completes at once
    if (ierr /= MPI_SUCCESS) call fail('wait on a completed request failed')
    at_root = -1
    call treefold_ireduce_ctx(ctx, xs(lo:hi), at_root, p - 1, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. (rank == p - 1 .and. transfer(at_root, 0_int64) /= transfer(want, 0_int64)) .or. &
        (rank /= p - 1 .and. transfer(at_root, 0_int64) /= transfer(-1.0_real64, 0_int64))) &
      call fail('ireduce + wait differs')
    ! rank 0 passes every other value of a longer array: not contiguous, so every rank fails.
    ! (rank 0 holds at least n / 10 > 1 values for p <= 4)
    if (rank == 0) then
      call treefold_iallreduce_ctx(ctx, xs(1:2 * m:2), got, req, ierr)
    else
      call treefold_iallreduce_ctx(ctx, xs(lo:hi), got, req, ierr)
    end if
    if (ierr /= MPI_SUCCESS) call fail('iallreduce with a non-contiguous local failed at the start')
    call treefold_wait(req, ierr)
    if (ierr /= MPI_ERR_BUFFER) call fail('non-contiguous local on rank 0: expected MPI_ERR_BUFFER on every rank')
    msg = treefold_error_message()
    if (rank == 0 .and. index(msg, 'not contiguous') == 0) call fail('non-contiguous local: the message says '//msg)
    ! A root that is no rank (-1 on every rank, then on the last rank only): every rank's wait.
    call treefold_ireduce_ctx(ctx, xs(lo:hi), at_root, -1, req, ierr)
    if (ierr /= MPI_SUCCESS .or. .not. c_associated(req%handle)) call fail('ireduce root -1 did not start')
    call treefold_wait(req, ierr)
    if (ierr /= MPI_ERR_ROOT) call fail('ireduce root -1: expected MPI_ERR_ROOT at the wait')
    call treefold_ireduce_ctx(ctx, xs(lo:hi), at_root, merge(-1, 0, rank == p - 1), req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_ERR_ROOT) call fail('ireduce root -1 on the last rank: expected MPI_ERR_ROOT on every rank')
    ! Destroying a context whose call is in flight is refused (it was a crash at the wait, or
    ! in MPI's progress for a program that never waits); the call then completes as usual.
    call treefold_iallreduce_ctx(ctx, xs(lo:hi), got, req, ierr)
    call treefold_context_destroy(ctx, ierr)
    if (ierr /= MPI_ERR_PENDING) call fail('destroy with a call in flight: expected MPI_ERR_PENDING')
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) &
      call fail('the call after the refused destroy differs')
    call treefold_context_destroy(ctx, ierr)
    if (ierr /= MPI_SUCCESS) call fail('destroy after the wait failed')
    ! The other kinds: the blocking calls' results.
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_INTEGER8, MPI_MAX, kctx, ierr)
    call treefold_iallreduce_ctx(kctx, ks(lo:hi), kgot, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. kgot /= maxval(ks)) call fail('int64 iallreduce differs')
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_REAL, MPI_SUM, fctx, ierr)
    call treefold_ireduce_ctx(fctx, fs(lo:hi), fgot, 0, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. (rank == 0 .and. transfer(fgot, 0) /= &
                                  transfer(real(tree_sum(real(fs, real64), .true.), real32), 0))) &
      call fail('real32 ireduce differs')
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_INTEGER4, MPI_SUM, ictx, ierr)
    call treefold_iallreduce_ctx(ictx, is(lo:hi), igot, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. igot /= sum(is)) call fail('int32 iallreduce differs')
    zs = cmplx(xs(1:n), -xs(n + 1:), real64)
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_DOUBLE_COMPLEX, MPI_SUM, zctx, ierr)
    call treefold_allreduce_ctx(zctx, zs(lo:hi), zwant, ierr)
    call treefold_iallreduce_ctx(zctx, zs(lo:hi), zgot, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. any(transfer(zgot, 0_int64, 2) /= transfer(zwant, 0_int64, 2))) &
      call fail('complex iallreduce differs from the blocking call')
    call treefold_context_destroy(kctx)
    call treefold_context_destroy(fctx)
    call treefold_context_destroy(ictx)
    call treefold_context_destroy(zctx)
  end subroutine check_nonblocking

  !> Issue 44 (e, f): a nonblocking call's local of another size than the context's count is
  !> an error at every rank's wait (it was read past its end), named on the rank that passed
  !> it, a rank without values passing some included; a local of any rank (or a scalar) works.
  subroutine check_nonblocking_arrays()
    integer(int64), parameter :: n = 1200
    real(real64), asynchronous :: xs(n + 1), got, want, grid(2, 3), one
    integer(int64) :: lo, hi, m, i
    type(treefold_context) :: ctx
    type(treefold_request) :: req
    character(len=:), allocatable :: msg
    logical :: done_flag
    xs = [(1.0_real64 / real(i, real64), i = 1, n + 1)]
    call block_of(n, rank, lo, hi)
    m = hi - lo + 1
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, global_start=lo - 1)
    call treefold_allreduce_ctx(ctx, xs(lo:hi), want, ierr)
    ! One value short on the last rank, one too many on rank 0 (both when p = 1).
    if (rank == p - 1) then
      call treefold_iallreduce_ctx(ctx, xs(lo:hi - 1), got, req, ierr)
    else if (rank == 0) then
      call treefold_iallreduce_ctx(ctx, xs(lo:hi + 1), got, req, ierr)
    else
      call treefold_iallreduce_ctx(ctx, xs(lo:hi), got, req, ierr)
    end if
    if (ierr /= MPI_SUCCESS) call fail('iallreduce of a wrong size failed at the start')
    call treefold_wait(req, ierr)
    if (ierr /= MPI_ERR_BUFFER) call fail('iallreduce of a wrong size: expected MPI_ERR_BUFFER on every rank')
    msg = treefold_error_message()
    if (rank == p - 1 .and. (index(msg, 'holds '//decimal(m - 1)//' values') == 0 .or. &
                             index(msg, 'block holds '//decimal(m)) == 0)) &
      call fail('a short local: the message does not name the sizes: '//msg)
    if (rank == 0 .and. p > 1 .and. index(msg, 'holds '//decimal(m + 1)//' values') == 0) &
      call fail('a long local: the message does not name the sizes: '//msg)
    call treefold_ireduce_ctx(ctx, xs(lo:hi - merge(1, 0, rank == p - 1)), got, 0, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_ERR_BUFFER) call fail('ireduce of a wrong size: expected MPI_ERR_BUFFER on every rank')
    ! The error is reported once: the next call succeeds and the message is gone.
    call treefold_iallreduce_ctx(ctx, xs(lo:hi), got, req, ierr)
    call treefold_test(req, done_flag, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) &
      call fail('iallreduce after the errors differs')
    msg = treefold_error_message()
    if (len(msg) /= 0) call fail('a message after a success: '//msg)
    call treefold_context_destroy(ctx)
    ! A rank without values that passes one: an error on every rank (a NULL buffer was fine).
    call treefold_context_create(MPI_COMM_WORLD, merge(0_int64, m, rank == p - 1), MPI_DOUBLE_PRECISION, MPI_SUM, &
                                 ctx, ierr)
    call treefold_iallreduce_ctx(ctx, xs(1:merge(1_int64, m, rank == p - 1)), got, req, ierr)
    if (ierr == MPI_SUCCESS) call treefold_wait(req, ierr) ! (p = 1, N = 0: C refuses at the start)
    if (ierr /= MPI_ERR_BUFFER) call fail('a value on a rank without values: expected MPI_ERR_BUFFER on every rank')
    call treefold_context_destroy(ctx)
    ! Any rank: a 2 x 3 array per rank, and a scalar for a count of 1.
    grid = reshape([(real(rank * 6 + i, real64), i = 1, 6)], [2, 3])
    call treefold_context_create(MPI_COMM_WORLD, 6_int64, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr)
    call treefold_iallreduce_ctx(ctx, grid, got, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. nint(got) /= 6 * p * (6 * p + 1) / 2) call fail('iallreduce of a 2-D array')
    call treefold_iallreduce_ctx(ctx, grid(:, 1:2), got, req, ierr) ! contiguous, 4 values
    call treefold_wait(req, ierr)
    if (ierr /= MPI_ERR_BUFFER) call fail('a 2-D array of 4 values: expected MPI_ERR_BUFFER')
    call treefold_context_destroy(ctx)
    one = real(rank + 1, real64)
    call treefold_context_create(MPI_COMM_WORLD, 1_int64, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr)
    call treefold_ireduce_ctx(ctx, one, got, p - 1, req, ierr)
    call treefold_wait(req, ierr)
    if (ierr /= MPI_SUCCESS .or. (rank == p - 1 .and. nint(got) /= p * (p + 1) / 2)) &
      call fail('ireduce of a scalar')
    call treefold_context_destroy(ctx)
  end subroutine check_nonblocking_arrays

  !> Issue 44 (f): default-integer (int32) counts make the same contexts as int64 ones.
  subroutine check_int32_counts()
    integer, parameter :: n = 999
    real(real64) :: xs(n), got, want, rows(2, n), cols(2)
    integer(int64) :: lo, hi, i
    type(treefold_context) :: ctx
    integer :: m, start
    xs = [(sin(real(i, real64)), i = 1, n)]
    rows(1, :) = xs
    rows(2, :) = -xs
    call block_of(int(n, int64), rank, lo, hi)
    m = int(hi - lo + 1)
    start = int(lo) - 1
    call treefold_context_create(MPI_COMM_WORLD, hi - lo + 1, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr)
    call treefold_allreduce_ctx(ctx, xs(lo:hi), want, ierr)
    call treefold_context_destroy(ctx)
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, global_start=start)
    if (ierr /= MPI_SUCCESS) call fail('int32 create')
    if (treefold_context_local_count(ctx) /= m) call fail('int32 create: another local count')
    call treefold_allreduce_ctx(ctx, xs(lo:hi), got, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) call fail('int32 context bits')
    call treefold_context_destroy(ctx)
    call treefold_context_create(MPI_COMM_WORLD, m, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, exchange='direct')
    call treefold_allreduce_ctx(ctx, xs(lo:hi), got, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(want, 0_int64)) call fail('int32 options')
    call treefold_context_destroy(ctx)
    call treefold_context_create_rows(MPI_COMM_WORLD, m, 2, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr, &
                                      global_start=start)
    call treefold_allreduce_rows(ctx, rows(:, lo:hi), cols, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(cols(1), 0_int64) /= transfer(want, 0_int64) .or. &
        transfer(cols(2), 0_int64) /= transfer(-want, 0_int64)) call fail('int32 row context')
    call treefold_context_destroy(ctx)
  end subroutine check_int32_counts

  !> n in decimal.
  function decimal(n) result(s)
    integer(int64), intent(in) :: n
    character(len=:), allocatable :: s
    character(len=24) :: buffer
    write (buffer, '(i0)') n
    s = trim(buffer)
  end function decimal

  !> test_fortran --error-stop: a failing call without ierr stops with treefold's message
  !> once ("treefold: ...", checked by the ctest's regular expressions).
  subroutine stop_on_an_error()
    real(real64) :: x(2), got
    x = 1
    call treefold_allreduce(x, got, MPI_COMM_NULL)
  end subroutine stop_on_an_error

  subroutine check_errors()
    type(treefold_context) :: ctx
    real(real64) :: x(3), got
    integer(int64) :: k0(1), kgot
    x = 1
    k0 = 0
    ! A datatype treefold does not reduce, on the last rank only: every rank gets MPI_ERR_TYPE.
    if (rank == p - 1) then
      call treefold_context_create(MPI_COMM_WORLD, 3_int64, MPI_CHARACTER, MPI_SUM, ctx, ierr)
    else
      call treefold_context_create(MPI_COMM_WORLD, 3_int64, MPI_DOUBLE_PRECISION, MPI_SUM, ctx, ierr)
    end if
    if (ierr /= MPI_ERR_TYPE) call fail('expected MPI_ERR_TYPE on every rank')
    if (len(treefold_error_message()) == 0) call fail('no error message')
    call treefold_allreduce(x, got, MPI_COMM_NULL, ierr)
    if (ierr /= MPI_ERR_COMM) call fail('expected MPI_ERR_COMM for MPI_COMM_NULL')
    call treefold_allreduce(x, got, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= transfer(3.0_real64 * p, 0_int64)) &
      call fail('a call after the errors failed')
    ! N = 0 on every rank: the predefined operation's identity.
    got = -1
    call treefold_allreduce(x(1:0), got, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. transfer(got, 0_int64) /= 0_int64) call fail('N = 0 sum is not +0.0')
    kgot = 0
    call treefold_allreduce(k0(1:0), kgot, MPI_COMM_WORLD, ierr, op=MPI_MAX)
    if (ierr /= MPI_SUCCESS .or. kgot /= -huge(kgot) - 1) call fail('N = 0 int64 max is not the lowest int64')
  end subroutine check_errors

end program test_fortran
