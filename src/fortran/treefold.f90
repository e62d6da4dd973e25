!> The reproducible reduction from Fortran (2008, with 2018's assumed-type and assumed-rank
!> arguments): module treefold over the C API (include/treefold/treefold.h), with mpi_f08
!> handles. Every call reduces ALL values of the distributed array to one value along
!> treefold's tree (the same bits as the C++ treefold::reducer for every process count);
!> errors come back in ierr as MPI error classes on every rank (without ierr, an error stops
!> the program with the message).
!>
!>   call treefold_allreduce(local, result, comm [, ierr] [, op=])   ! real64, real32, int64, int32
!>   call treefold_reduce(local, result, root, comm [, ierr] [, op=])  ! result on root only
!>   call treefold_context_create(comm, local_count, datatype, op, ctx [, ierr] [, global_start=] &
!>                                [, exchange=] [, threads=] [, kernel=])   ! counts int64 or int32
!>   call treefold_context_create_rows(comm, local_count, k, datatype, op, ctx [, ierr] [, global_start=])
!>   call treefold_allreduce_ctx(ctx, local, result [, ierr])
!>   call treefold_reduce_ctx(ctx, local, result, root [, ierr])
!>   call treefold_allreduce_rows(ctx, local, result [, ierr])          ! result(k)
!>   call treefold_reduce_rows(ctx, local, result, root [, ierr])
!>   call treefold_iallreduce_ctx(ctx, local, result, request [, ierr])   ! nonblocking, local of any rank
!>   call treefold_ireduce_ctx(ctx, local, result, root, request [, ierr])
!>   call treefold_wait(request [, ierr]);  call treefold_test(request, flag [, ierr])
!>   name = treefold_context_exchange(ctx);  n = treefold_context_threads(ctx);  k = treefold_context_kernel(ctx)
!>   call treefold_context_last_counters(ctx [, messages=] [, bytes=] [, collectives=] [, collective_bytes=])
!>   call treefold_context_destroy(ctx [, ierr])
!>   call treefold_dot(x, y, result, comm [, ierr])        ! real64: the reproducible x . y
!>   call treefold_dots(x, results, comm [, ierr] [, y=])  ! x(n, k), y(n, k): k dots (sums without y) in one exchange
!>   msg = treefold_error_message()
module treefold
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_ptr, c_null_ptr, c_char, c_size_t, c_f_pointer, &
                                         c_associated, c_loc, c_double
  use, intrinsic :: iso_fortran_env, only: real64, real32, int64, int32
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op, MPI_Info, MPI_SUCCESS, MPI_SUM, MPI_DOUBLE_PRECISION, MPI_REAL, &
                     MPI_INTEGER8, MPI_INTEGER4, MPI_INFO_NULL, MPI_Info_create, MPI_Info_set, MPI_Info_free, &
                     operator(/=)
  implicit none
  private

  public :: treefold_context, treefold_allreduce, treefold_context_create, treefold_allreduce_ctx, &
            treefold_reduce_ctx, treefold_context_destroy, treefold_context_local_count, treefold_error_message, &
            treefold_context_create_rows, treefold_allreduce_rows, treefold_reduce_rows, treefold_reduce, &
            treefold_request, treefold_iallreduce_ctx, treefold_ireduce_ctx, treefold_wait, treefold_test, &
            treefold_context_exchange, treefold_context_threads, treefold_context_last_counters, treefold_context_kernel, &
            treefold_context_global_count, treefold_context_width, treefold_dot, treefold_dots

  !> A planned reduction (treefold_context in C).
  type :: treefold_context
    type(c_ptr) :: handle = c_null_ptr
  end type treefold_context

  !> A nonblocking call in flight (treefold_request in C); a fresh variable holds none.
  type :: treefold_request
    type(c_ptr) :: handle = c_null_ptr
    !> This rank's own reason when its arguments made the call fail (reported at the wait).
    character(len=:), allocatable, private :: why
  end type treefold_request

  !> The one-call reduction of local (rank order) into result on every rank.
  interface treefold_allreduce
    module procedure allreduce_real64, allreduce_real32, allreduce_int64, allreduce_int32
  end interface treefold_allreduce

  !> The one-call reduction of local (rank order) into result on rank `root` only.
  interface treefold_reduce
    module procedure reduce_real64, reduce_real32, reduce_int64, reduce_int32
  end interface treefold_reduce

  !> Plans a reduction (C's treefold_context_create_info); local_count and global_start are
  !> both integer(int64) or both default integer (int32).
  interface treefold_context_create
    module procedure context_create_int64, context_create_int32
  end interface treefold_context_create

  !> Plans an element-wise reduction (C's treefold_context_create_rows); local_count, k and
  !> global_start are all integer(int64) or all default integer (int32).
  interface treefold_context_create_rows
    module procedure context_create_rows_int64, context_create_rows_int32
  end interface treefold_context_create_rows

  interface
    integer(c_int) function c_dot(x, y, count, y_count, result, comm) bind(C, name='treefold_f_dot')
      import :: c_int, c_int64_t, c_double
      real(c_double), dimension(*), intent(in) :: x, y
      integer(c_int64_t), value :: count, y_count
      real(c_double), intent(inout) :: result
      integer(c_int), value :: comm
    end function c_dot

    integer(c_int) function c_dots(k, x, y, count, results, comm) bind(C, name='treefold_f_dots')
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: k
      real(c_double), dimension(*), intent(in) :: x
      type(c_ptr), value :: y
      integer(c_int64_t), value :: count
      real(c_double), dimension(*), intent(inout) :: results
      integer(c_int), value :: comm
    end function c_dots

    integer(c_int) function c_allreduce(sendbuf, recvbuf, count, datatype, op, comm) &
        bind(C, name='treefold_f_allreduce')
      import :: c_int, c_int64_t
      type(*), dimension(*), intent(in) :: sendbuf
      type(*), intent(inout) :: recvbuf
      integer(c_int64_t), value :: count
      integer(c_int), value :: datatype, op, comm
    end function c_allreduce

    integer(c_int) function c_reduce(sendbuf, recvbuf, count, datatype, op, root, comm) &
        bind(C, name='treefold_f_reduce')
      import :: c_int, c_int64_t
      type(*), dimension(*), intent(in) :: sendbuf
      type(*), intent(inout) :: recvbuf
      integer(c_int64_t), value :: count
      integer(c_int), value :: datatype, op, root, comm
    end function c_reduce

    integer(c_int) function c_context_create_info(comm, has_start, start, count, datatype, op, info, ctx) &
        bind(C, name='treefold_f_context_create_info')
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: comm, has_start, datatype, op, info
      integer(c_int64_t), value :: start, count
      type(c_ptr), intent(out) :: ctx
    end function c_context_create_info

    integer(c_int) function c_istart(ctx, local, result, request) bind(C, name='treefold_iallreduce_ctx')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, local, result
      type(c_ptr), intent(out) :: request
    end function c_istart

    integer(c_int) function c_istart_root(ctx, local, result, root, request) bind(C, name='treefold_ireduce_ctx')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, local, result
      integer(c_int), value :: root
      type(c_ptr), intent(out) :: request
    end function c_istart_root

    integer(c_int) function c_wait(request) bind(C, name='treefold_wait')
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: request
    end function c_wait

    integer(c_int) function c_test(request, flag) bind(C, name='treefold_test')
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: request
      integer(c_int), intent(out) :: flag
    end function c_test

    type(c_ptr) function c_context_exchange(ctx) bind(C, name='treefold_context_exchange')
      import :: c_ptr
      type(c_ptr), value :: ctx
    end function c_context_exchange

    type(c_ptr) function c_context_kernel(ctx) bind(C, name='treefold_context_kernel')
      import :: c_ptr
      type(c_ptr), value :: ctx
    end function c_context_kernel

    integer(c_int) function c_context_threads(ctx) bind(C, name='treefold_context_threads')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function c_context_threads

    integer(c_int64_t) function c_context_global_count(ctx) bind(C, name='treefold_context_global_count')
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: ctx
    end function c_context_global_count

    integer(c_int64_t) function c_context_width(ctx) bind(C, name='treefold_context_width')
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: ctx
    end function c_context_width

    integer(c_int) function c_context_last_counters(ctx, messages, bytes, collectives, collective_bytes) &
        bind(C, name='treefold_context_last_counters')
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int64_t), intent(out), optional :: messages, bytes, collectives, collective_bytes
    end function c_context_last_counters

    integer(c_int) function c_context_create_rows(comm, has_start, start, count, k, datatype, op, ctx) &
        bind(C, name='treefold_f_context_create_rows')
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: comm, has_start, datatype, op
      integer(c_int64_t), value :: start, count, k
      type(c_ptr), intent(out) :: ctx
    end function c_context_create_rows

    ! The row forms: the same C functions, with k results.
    integer(c_int) function c_allreduce_rows(ctx, local, result) bind(C, name='treefold_allreduce_ctx')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(*), dimension(*), intent(in) :: local
      type(*), dimension(*), intent(inout) :: result
    end function c_allreduce_rows

    integer(c_int) function c_reduce_rows(ctx, local, result, root) bind(C, name='treefold_reduce_ctx')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(*), dimension(*), intent(in) :: local
      type(*), dimension(*), intent(inout) :: result
      integer(c_int), value :: root
    end function c_reduce_rows

    integer(c_int) function c_allreduce_ctx(ctx, local, result) bind(C, name='treefold_allreduce_ctx')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(*), dimension(*), intent(in) :: local
      type(*), intent(inout) :: result
    end function c_allreduce_ctx

    integer(c_int) function c_reduce_ctx(ctx, local, result, root) bind(C, name='treefold_reduce_ctx')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(*), dimension(*), intent(in) :: local
      type(*), intent(inout) :: result
      integer(c_int), value :: root
    end function c_reduce_ctx

    integer(c_int) function c_context_destroy(ctx) bind(C, name='treefold_context_destroy')
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: ctx
    end function c_context_destroy

    integer(c_int64_t) function c_context_local_count(ctx) bind(C, name='treefold_context_local_count')
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: ctx
    end function c_context_local_count

    type(c_ptr) function c_last_error() bind(C, name='treefold_last_error')
      import :: c_ptr
    end function c_last_error

    ! This module's own reasons, per thread (src/capi/fortran.cpp).
    subroutine c_set_message(text, length) bind(C, name='treefold_f_set_message')
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: text
      integer(c_size_t), value :: length
    end subroutine c_set_message

    type(c_ptr) function c_message() bind(C, name='treefold_f_message')
      import :: c_ptr
    end function c_message

    type(c_ptr) function c_failed_local() bind(C, name='treefold_f_failed_local')
      import :: c_ptr
    end function c_failed_local

    integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function c_strlen
  end interface

contains

  !> The message of the last treefold call on this thread that failed ('' after a success):
  !> the module's own reason where this rank's arguments caused it, else the C API's message.
  function treefold_error_message() result(msg)
    character(len=:), allocatable :: msg
    type(c_ptr) :: own
    own = c_message()
    if (c_associated(own)) then
      msg = from_c_string(own)
    else
      msg = from_c_string(c_last_error())
    end if
  end function treefold_error_message

  !> A Fortran copy of the NUL-terminated C string at p ('' for a NULL pointer).
  function from_c_string(p) result(msg)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: msg
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = 0
    if (c_associated(p)) n = int(c_strlen(p))
    allocate (character(len=n) :: msg)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      msg(i:i) = chars(i)
    end do
  end function from_c_string

  !> ierr = rc where present; otherwise an error stops the program with its message. `why`:
  !> this rank's own reason, when its arguments made the call fail (the C API only saw the
  !> failing buffer the module passed in their place); treefold_error_message() returns it.
  subroutine finish(rc, ierr, why)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: ierr
    character(len=*), intent(in), optional :: why
    integer(c_size_t) :: length
    length = 0
    if (rc /= MPI_SUCCESS .and. present(why)) length = len(why, kind=c_size_t)
    if (length > 0) then
      call c_set_message(why, length)
    else
      call c_set_message('', length)
    end if
    if (present(ierr)) then
      ierr = rc
    else if (rc /= MPI_SUCCESS) then
      error stop treefold_error_message() ! the message starts with "treefold: "
    end if
  end subroutine finish

  integer function op_handle(op)
    type(MPI_Op), intent(in), optional :: op
    if (present(op)) then
      op_handle = op%MPI_VAL
    else
      op_handle = MPI_SUM%MPI_VAL
    end if
  end function op_handle

  !> The reproducible dot product of x and y (this rank's blocks, rank order) into result on
  !> every rank: the bits of treefold_allreduce of the stored products x(i)*y(i), for every p.
  !> y of another size than x is MPI_ERR_BUFFER on every rank.
  subroutine treefold_dot(x, y, result, comm, ierr)
    real(real64), intent(in) :: x(:), y(:)
    real(real64), intent(inout) :: result
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    character(len=:), allocatable :: why
    why = ''
    if (size(x) /= size(y)) why = 'treefold: treefold_dot: x and y differ in size ('//decimal(size(x, kind=int64))// &
                                  ' and '//decimal(size(y, kind=int64))//' values)'
    ! C reads sizes that differ as a NULL second array, an error on every rank when the first
    ! holds values: the larger one goes first.
    if (size(x) >= size(y)) then
      call finish(c_dot(x, y, size(x, kind=int64), size(y, kind=int64), result, comm%MPI_VAL), ierr, why)
    else
      call finish(c_dot(y, x, size(y, kind=int64), size(x, kind=int64), result, comm%MPI_VAL), ierr, why)
    end if
  end subroutine treefold_dot

  !> n in decimal, for messages.
  function decimal(n) result(s)
    integer(int64), intent(in) :: n
    character(len=:), allocatable :: s
    character(len=24) :: buffer
    write (buffer, '(i0)') n
    s = trim(buffer)
  end function decimal

  !> k = size(x, 2) reductions in one exchange: results(c) the dot of x(:, c) and y(:, c),
  !> or without y the sum of x(:, c) (a dot with a column of ones gives a sum's bits too).
  !> y must have x's shape and results k values (else MPI_ERR_ARG on every rank); k at most 4.
  subroutine treefold_dots(x, results, comm, ierr, y)
    real(real64), intent(in), contiguous, target :: x(:, :)
    real(real64), intent(inout) :: results(:)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    real(real64), intent(in), contiguous, target, optional :: y(:, :)
    type(c_ptr) :: yp
    integer(c_int) :: k
    real(real64), target :: dummy(1) = 0.0_real64
    character(len=:), allocatable :: why
    k = int(size(x, 2), c_int)
    yp = c_null_ptr
    why = ''
    if (present(y)) then
      if (all(shape(y) == shape(x))) then
        if (size(y) > 0) yp = c_loc(y)
      else
        why = 'treefold: treefold_dots: y has shape ('//decimal(size(y, 1, kind=int64))//', '// &
              decimal(size(y, 2, kind=int64))//') but x ('//decimal(size(x, 1, kind=int64))//', '// &
              decimal(size(x, 2, kind=int64))//')'
      end if
    end if
    if (size(results) < size(x, 2)) then
      why = 'treefold: treefold_dots: results holds '//decimal(size(results, kind=int64))//' values for '// &
            decimal(size(x, 2, kind=int64))//' columns of x'
    end if
    if (len(why) > 0) k = -1 ! reported as a bad k on every rank (this rank: why)
    if (size(x) == 0) then
      call finish(c_dots(k, dummy, yp, size(x, 1, kind=int64), results, comm%MPI_VAL), ierr, why)
    else
      call finish(c_dots(k, x, yp, size(x, 1, kind=int64), results, comm%MPI_VAL), ierr, why)
    end if
  end subroutine treefold_dots

  subroutine allreduce_real64(local, result, comm, ierr, op)
    real(real64), intent(in) :: local(:)
    real(real64), intent(inout) :: result
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_allreduce(local, result, size(local, kind=int64), MPI_DOUBLE_PRECISION%MPI_VAL, op_handle(op), &
                            comm%MPI_VAL), ierr)
  end subroutine allreduce_real64

  ! The other kinds differ from allreduce_real64 only in the declared type and the datatype
  ! handle (Fortran has no generic bodies).
  subroutine allreduce_real32(local, result, comm, ierr, op)
    real(real32), intent(in) :: local(:)
    real(real32), intent(inout) :: result
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_allreduce(local, result, size(local, kind=int64), MPI_REAL%MPI_VAL, op_handle(op), comm%MPI_VAL), ierr)
  end subroutine allreduce_real32

  subroutine allreduce_int64(local, result, comm, ierr, op)
    integer(int64), intent(in) :: local(:)
    integer(int64), intent(inout) :: result
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_allreduce(local, result, size(local, kind=int64), MPI_INTEGER8%MPI_VAL, op_handle(op), &
                            comm%MPI_VAL), ierr)
  end subroutine allreduce_int64

  subroutine allreduce_int32(local, result, comm, ierr, op)
    integer(int32), intent(in) :: local(:)
    integer(int32), intent(inout) :: result
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_allreduce(local, result, size(local, kind=int64), MPI_INTEGER4%MPI_VAL, op_handle(op), &
                            comm%MPI_VAL), ierr)
  end subroutine allreduce_int32

  ! The rooted forms, one per kind as for treefold_allreduce (C's treefold_reduce_c: it plans
  ! on every call, so every argument error is returned on every rank).
  subroutine reduce_real64(local, result, root, comm, ierr, op)
    real(real64), intent(in) :: local(:)
    real(real64), intent(inout) :: result
    integer, intent(in) :: root
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_reduce(local, result, size(local, kind=int64), MPI_DOUBLE_PRECISION%MPI_VAL, op_handle(op), &
                         int(root, c_int), comm%MPI_VAL), ierr)
  end subroutine reduce_real64

  subroutine reduce_real32(local, result, root, comm, ierr, op)
    real(real32), intent(in) :: local(:)
    real(real32), intent(inout) :: result
    integer, intent(in) :: root
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_reduce(local, result, size(local, kind=int64), MPI_REAL%MPI_VAL, op_handle(op), int(root, c_int), &
                         comm%MPI_VAL), ierr)
  end subroutine reduce_real32

  subroutine reduce_int64(local, result, root, comm, ierr, op)
    integer(int64), intent(in) :: local(:)
    integer(int64), intent(inout) :: result
    integer, intent(in) :: root
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_reduce(local, result, size(local, kind=int64), MPI_INTEGER8%MPI_VAL, op_handle(op), &
                         int(root, c_int), comm%MPI_VAL), ierr)
  end subroutine reduce_int64

  subroutine reduce_int32(local, result, root, comm, ierr, op)
    integer(int32), intent(in) :: local(:)
    integer(int32), intent(inout) :: result
    integer, intent(in) :: root
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(MPI_Op), intent(in), optional :: op
    call finish(c_reduce(local, result, size(local, kind=int64), MPI_INTEGER4%MPI_VAL, op_handle(op), &
                         int(root, c_int), comm%MPI_VAL), ierr)
  end subroutine reduce_int32

  !> Plans an element-wise reduction: each global index holds a row of k values of
  !> `datatype` (this rank: local_count rows, local(1:k) the first); column c of the result is
  !> the reduction of column c over all indices (C's treefold_context_create_rows). Collective.
  subroutine context_create_rows_int64(comm, local_count, k, datatype, op, ctx, ierr, global_start)
    type(MPI_Comm), intent(in) :: comm
    integer(int64), intent(in) :: local_count, k
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(treefold_context), intent(out) :: ctx
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: global_start
    integer(c_int64_t) :: start
    start = -1 ! TREEFOLD_RANK_ORDER
    if (present(global_start)) start = global_start
    call finish(c_context_create_rows(comm%MPI_VAL, merge(1_c_int, 0_c_int, present(global_start)), start, &
                                      local_count, k, datatype%MPI_VAL, op%MPI_VAL, ctx%handle), ierr)
  end subroutine context_create_rows_int64

  !> treefold_context_create_rows with default-integer (int32) counts.
  subroutine context_create_rows_int32(comm, local_count, k, datatype, op, ctx, ierr, global_start)
    type(MPI_Comm), intent(in) :: comm
    integer(int32), intent(in) :: local_count, k
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(treefold_context), intent(out) :: ctx
    integer, intent(out), optional :: ierr
    integer(int32), intent(in), optional :: global_start
    if (present(global_start)) then
      call context_create_rows_int64(comm, int(local_count, int64), int(k, int64), datatype, op, ctx, ierr, &
                                     int(global_start, int64))
    else
      call context_create_rows_int64(comm, int(local_count, int64), int(k, int64), datatype, op, ctx, ierr)
    end if
  end subroutine context_create_rows_int32

  !> A row context's k column results into result(1:k) on every rank. Collective.
  subroutine treefold_allreduce_rows(ctx, local, result, ierr)
    type(treefold_context), intent(in) :: ctx
    type(*), intent(in) :: local(*)
    type(*), intent(inout) :: result(*)
    integer, intent(out), optional :: ierr
    call finish(c_allreduce_rows(ctx%handle, local, result), ierr)
  end subroutine treefold_allreduce_rows

  !> As treefold_allreduce_rows, result set on `root` only. Collective.
  subroutine treefold_reduce_rows(ctx, local, result, root, ierr)
    type(treefold_context), intent(in) :: ctx
    type(*), intent(in) :: local(*)
    type(*), intent(inout) :: result(*)
    integer, intent(in) :: root
    integer, intent(out), optional :: ierr
    call finish(c_reduce_rows(ctx%handle, local, result, int(root, c_int)), ierr)
  end subroutine treefold_reduce_rows

  !> Plans a reduction of local_count values of `datatype` per rank (blocks in rank order, or
  !> this rank's block at global_start, counted from 0), with C's context options as keywords:
  !> exchange= ('automatic', 'native', 'binomial', 'direct', 'dual4', 'schedule_rd'; the same
  !> on every rank), threads= (this rank's threads, > 0) and kernel= ('best', 'scalar', 'sse2',
  !> 'avx2', 'avx512f'). Collective.
  subroutine context_create_int64(comm, local_count, datatype, op, ctx, ierr, global_start, exchange, threads, kernel)
    type(MPI_Comm), intent(in) :: comm
    integer(int64), intent(in) :: local_count
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(treefold_context), intent(out) :: ctx
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: global_start
    character(len=*), intent(in), optional :: exchange
    integer, intent(in), optional :: threads
    character(len=*), intent(in), optional :: kernel
    integer(c_int64_t) :: start
    type(MPI_Info) :: info
    character(len=32) :: text
    integer(c_int) :: rc
    start = -1 ! TREEFOLD_RANK_ORDER
    if (present(global_start)) start = global_start
    info = MPI_INFO_NULL
    if (present(exchange) .or. present(threads) .or. present(kernel)) call MPI_Info_create(info)
    if (present(exchange)) call MPI_Info_set(info, 'exchange', exchange)
    if (present(kernel)) call MPI_Info_set(info, 'kernel', kernel)
    if (present(threads)) then
      write (text, '(i0)') threads ! C checks it: not positive is MPI_ERR_INFO_VALUE on every rank
      call MPI_Info_set(info, 'threads', trim(text))
    end if
    rc = c_context_create_info(comm%MPI_VAL, merge(1_c_int, 0_c_int, present(global_start)), start, local_count, &
                               datatype%MPI_VAL, op%MPI_VAL, info%MPI_VAL, ctx%handle)
    if (info /= MPI_INFO_NULL) call MPI_Info_free(info)
    call finish(rc, ierr)
  end subroutine context_create_int64

  !> treefold_context_create with default-integer (int32) counts.
  subroutine context_create_int32(comm, local_count, datatype, op, ctx, ierr, global_start, exchange, threads, kernel)
    type(MPI_Comm), intent(in) :: comm
    integer(int32), intent(in) :: local_count
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(treefold_context), intent(out) :: ctx
    integer, intent(out), optional :: ierr
    integer(int32), intent(in), optional :: global_start
    character(len=*), intent(in), optional :: exchange
    integer, intent(in), optional :: threads
    character(len=*), intent(in), optional :: kernel
    if (present(global_start)) then
      call context_create_int64(comm, int(local_count, int64), datatype, op, ctx, ierr, int(global_start, int64), &
                                exchange, threads, kernel)
    else
      call context_create_int64(comm, int(local_count, int64), datatype, op, ctx, ierr, exchange=exchange, &
                                threads=threads, kernel=kernel)
    end if
  end subroutine context_create_int32

  !> The exchange the context runs (for 'automatic', the one it chose); '' for a context that
  !> was not created.
  function treefold_context_exchange(ctx) result(name)
    type(treefold_context), intent(in) :: ctx
    character(len=:), allocatable :: name
    name = from_c_string(c_context_exchange(ctx%handle))
  end function treefold_context_exchange

  !> The local kernel's name ('best' by default); '' for a context that was not created.
  function treefold_context_kernel(ctx) result(name)
    type(treefold_context), intent(in) :: ctx
    character(len=:), allocatable :: name
    name = from_c_string(c_context_kernel(ctx%handle))
  end function treefold_context_kernel

  !> The threads this rank's values are reduced on (1 by default; -1: not created).
  integer function treefold_context_threads(ctx)
    type(treefold_context), intent(in) :: ctx
    treefold_context_threads = int(c_context_threads(ctx%handle))
  end function treefold_context_threads

  !> N, the values over all ranks (-1 for a context that was not created).
  integer(int64) function treefold_context_global_count(ctx)
    type(treefold_context), intent(in) :: ctx
    treefold_context_global_count = c_context_global_count(ctx%handle)
  end function treefold_context_global_count

  !> Values per global index: k for a row context, else 1 (-1: not created).
  integer(int64) function treefold_context_width(ctx)
    type(treefold_context), intent(in) :: ctx
    treefold_context_width = c_context_width(ctx%handle)
  end function treefold_context_width

  !> What this rank sent during the context's last call: point-to-point messages and bytes,
  !> collective operations and bytes (0 before the first call). Local.
  subroutine treefold_context_last_counters(ctx, messages, bytes, collectives, collective_bytes, ierr)
    type(treefold_context), intent(in) :: ctx
    integer(int64), intent(out), optional :: messages, bytes, collectives, collective_bytes
    integer, intent(out), optional :: ierr
    call finish(c_context_last_counters(ctx%handle, messages, bytes, collectives, collective_bytes), ierr)
  end subroutine treefold_context_last_counters

  !> Starts treefold_allreduce_ctx and returns at once (C's treefold_iallreduce_ctx). local:
  !> this rank's values, a contiguous array of any rank (or a scalar) holding the context's
  !> local count of them; result: one value; both of the context's datatype (assumed type, as
  !> for treefold_allreduce_ctx). Neither may be touched until the request completes: declare
  !> them asynchronous in the caller, as for MPI's nonblocking calls. A local of another size,
  !> or not contiguous (it is read in place), takes part as this rank's failure: MPI_ERR_BUFFER
  !> at every rank's wait. Collective.
  subroutine treefold_iallreduce_ctx(ctx, local, result, request, ierr)
    type(treefold_context), intent(in) :: ctx
    type(*), dimension(..), intent(in), target, asynchronous :: local
    type(*), intent(inout), target, asynchronous :: result
    type(treefold_request), intent(out) :: request
    integer, intent(out), optional :: ierr
    type(c_ptr) :: address
    call local_address(ctx, local, address, request%why)
    call finish(c_istart(ctx%handle, address, c_loc(result), request%handle), ierr, request%why)
  end subroutine treefold_iallreduce_ctx

  !> As treefold_iallreduce_ctx, result set on `root` only (C's treefold_ireduce_ctx); a root
  !> outside [0, p) on any rank is MPI_ERR_ROOT at every rank's wait.
  subroutine treefold_ireduce_ctx(ctx, local, result, root, request, ierr)
    type(treefold_context), intent(in) :: ctx
    type(*), dimension(..), intent(in), target, asynchronous :: local
    type(*), intent(inout), target, asynchronous :: result
    integer, intent(in) :: root
    type(treefold_request), intent(out) :: request
    integer, intent(out), optional :: ierr
    type(c_ptr) :: address
    call local_address(ctx, local, address, request%why)
    call finish(c_istart_root(ctx%handle, address, c_loc(result), int(root, c_int), request%handle), ierr, &
                request%why)
  end subroutine treefold_ireduce_ctx

  !> The address of a nonblocking call's local values, read in place until the request
  !> completes (NULL when empty). When they cannot be used (another size than the context's
  !> local count, or not contiguous: a copy would not outlive the call), C's MPI_IN_PLACE, with
  !> which the call takes part as this rank's failure, and `why` says what is wrong ('' else).
  subroutine local_address(ctx, local, address, why)
    type(treefold_context), intent(in) :: ctx
    type(*), dimension(..), intent(in), target, asynchronous :: local
    type(c_ptr), intent(out) :: address
    character(len=:), allocatable, intent(out) :: why
    integer(int64) :: n, want
    address = c_null_ptr
    why = ''
    want = c_context_local_count(ctx%handle)
    if (want < 0) return ! no context: C says so at once
    want = want * c_context_width(ctx%handle)
    n = size(local, kind=int64)
    if (n < 0) then
      why = 'treefold: local is an assumed-size array (its size is unknown); pass a section, local(1:n)'
    else if (n /= want) then
      why = 'treefold: local holds '//decimal(n)//' values but this rank''s block holds '//decimal(want)
    else if (.not. is_contiguous(local)) then
      why = 'treefold: local is not contiguous (a nonblocking call reads it in place: pass a contiguous copy, '// &
            'kept until the request completes)'
    else
      if (n > 0) address = c_loc(local)
      return
    end if
    address = c_failed_local()
  end subroutine local_address

  !> Completes the request (it then holds none) and returns the call's error class, as the
  !> blocking call would (a request holding none completes at once).
  subroutine treefold_wait(request, ierr)
    type(treefold_request), intent(inout) :: request
    integer, intent(out), optional :: ierr
    character(len=:), allocatable :: why
    why = '' ! (finish takes '' as no reason)
    if (allocated(request%why)) call move_alloc(request%why, why) ! (reported once: the request then holds none)
    call finish(c_wait(request%handle), ierr, why)
  end subroutine treefold_wait

  !> flag = .true. and as treefold_wait once the call has completed (or request holds none);
  !> else flag = .false. and ierr = MPI_SUCCESS. Local.
  subroutine treefold_test(request, flag, ierr)
    type(treefold_request), intent(inout) :: request
    logical, intent(out) :: flag
    integer, intent(out), optional :: ierr
    integer(c_int) :: done, rc
    character(len=:), allocatable :: why
    done = 0
    rc = c_test(request%handle, done)
    flag = done /= 0
    why = '' ! (finish takes '' as no reason)
    if (flag .and. allocated(request%why)) call move_alloc(request%why, why) ! (as treefold_wait)
    call finish(rc, ierr, why)
  end subroutine treefold_test

  !> The reduction of every rank's values into result on every rank. local holds this rank's
  !> local_count values of the context's datatype; result is one value of it. Collective.
  subroutine treefold_allreduce_ctx(ctx, local, result, ierr)
    type(treefold_context), intent(in) :: ctx
    type(*), intent(in) :: local(*)
    type(*), intent(inout) :: result
    integer, intent(out), optional :: ierr
    call finish(c_allreduce_ctx(ctx%handle, local, result), ierr)
  end subroutine treefold_allreduce_ctx

  !> The reduction into result on rank `root` only. Collective.
  subroutine treefold_reduce_ctx(ctx, local, result, root, ierr)
    type(treefold_context), intent(in) :: ctx
    type(*), intent(in) :: local(*)
    type(*), intent(inout) :: result
    integer, intent(in) :: root
    integer, intent(out), optional :: ierr
    call finish(c_reduce_ctx(ctx%handle, local, result, int(root, c_int)), ierr)
  end subroutine treefold_reduce_ctx

  !> This rank's number of values (-1 for a context that was not created).
  integer(int64) function treefold_context_local_count(ctx)
    type(treefold_context), intent(in) :: ctx
    treefold_context_local_count = c_context_local_count(ctx%handle)
  end function treefold_context_local_count

  !> Frees the context (and its duplicate communicators); every rank destroys its context,
  !> before MPI_Finalize. A context whose nonblocking call is in flight is not destroyed:
  !> ierr = MPI_ERR_PENDING and ctx stays valid (complete the call with treefold_wait first).
  subroutine treefold_context_destroy(ctx, ierr)
    type(treefold_context), intent(inout) :: ctx
    integer, intent(out), optional :: ierr
    call finish(c_context_destroy(ctx%handle), ierr)
  end subroutine treefold_context_destroy

end module treefold
