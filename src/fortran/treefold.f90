!> The reproducible reduction from Fortran 2008: module treefold over the C API
!> (include/treefold/treefold.h), with mpi_f08 handles. Every call reduces ALL values of the
!> distributed array to one value along treefold's tree (the same bits as the C++
!> treefold::reducer for every process count); errors come back in ierr as MPI error classes
!> on every rank (without ierr, an error stops the program with the message).
!>
!>   call treefold_allreduce(local, result, comm [, ierr] [, op=])   ! real64, real32, int64, int32
!>   call treefold_reduce(local, result, root, comm [, ierr] [, op=])  ! result on root only
!>   call treefold_context_create(comm, local_count, datatype, op, ctx [, ierr] [, global_start=])
!>   call treefold_context_create_rows(comm, local_count, k, datatype, op, ctx [, ierr] [, global_start=])
!>   call treefold_allreduce_ctx(ctx, local, result [, ierr])
!>   call treefold_reduce_ctx(ctx, local, result, root [, ierr])
!>   call treefold_allreduce_rows(ctx, local, result [, ierr])          ! result(k)
!>   call treefold_reduce_rows(ctx, local, result, root [, ierr])
!>   call treefold_context_destroy(ctx [, ierr])
!>   msg = treefold_error_message()
module treefold
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_ptr, c_null_ptr, c_char, c_size_t, c_f_pointer, &
                                         c_associated
  use, intrinsic :: iso_fortran_env, only: real64, real32, int64, int32
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op, MPI_SUCCESS, MPI_SUM, MPI_DOUBLE_PRECISION, MPI_REAL, &
                     MPI_INTEGER8, MPI_INTEGER4
  implicit none
  private

  public :: treefold_context, treefold_allreduce, treefold_context_create, treefold_allreduce_ctx, &
            treefold_reduce_ctx, treefold_context_destroy, treefold_context_local_count, treefold_error_message, &
            treefold_context_create_rows, treefold_allreduce_rows, treefold_reduce_rows, treefold_reduce

  !> A planned reduction (treefold_context in C).
  type :: treefold_context
    type(c_ptr) :: handle = c_null_ptr
  end type treefold_context

  !> The one-call reduction of local (rank order) into result on every rank.
  interface treefold_allreduce
    module procedure allreduce_real64, allreduce_real32, allreduce_int64, allreduce_int32
  end interface treefold_allreduce

  !> The one-call reduction of local (rank order) into result on rank `root` only.
  interface treefold_reduce
    module procedure reduce_real64, reduce_real32, reduce_int64, reduce_int32
  end interface treefold_reduce

  interface
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

    integer(c_int) function c_context_create(comm, has_start, start, count, datatype, op, ctx) &
        bind(C, name='treefold_f_context_create')
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: comm, has_start, datatype, op
      integer(c_int64_t), value :: start, count
      type(c_ptr), intent(out) :: ctx
    end function c_context_create

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

    integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function c_strlen
  end interface

contains

  !> The message of the last treefold call on this thread that failed ('' after a success).
  function treefold_error_message() result(msg)
    character(len=:), allocatable :: msg
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = c_last_error()
    n = 0
    if (c_associated(p)) n = int(c_strlen(p))
    allocate (character(len=n) :: msg)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      msg(i:i) = chars(i)
    end do
  end function treefold_error_message

  !> ierr = rc where present; otherwise an error stops the program with its message.
  subroutine finish(rc, ierr)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: ierr
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
  subroutine treefold_context_create_rows(comm, local_count, k, datatype, op, ctx, ierr, global_start)
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
  end subroutine treefold_context_create_rows

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
  !> this rank's block at global_start, counted from 0). Collective.
  subroutine treefold_context_create(comm, local_count, datatype, op, ctx, ierr, global_start)
    type(MPI_Comm), intent(in) :: comm
    integer(int64), intent(in) :: local_count
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(treefold_context), intent(out) :: ctx
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: global_start
    integer(c_int) :: has_start
    integer(c_int64_t) :: start
    has_start = 0
    start = 0
    if (present(global_start)) then
      has_start = 1
      start = global_start
    end if
    call finish(c_context_create(comm%MPI_VAL, has_start, start, local_count, datatype%MPI_VAL, op%MPI_VAL, &
                                 ctx%handle), ierr)
  end subroutine treefold_context_create

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

  subroutine treefold_context_destroy(ctx, ierr)
    type(treefold_context), intent(inout) :: ctx
    integer, intent(out), optional :: ierr
    call finish(c_context_destroy(ctx%handle), ierr)
  end subroutine treefold_context_destroy

end module treefold
