# dsec-with.m4: optional vendor stacks. Each --with-FOO takes auto (default),
# no, yes or a DIR. For yes or DIR a missing package is an error; for auto a
# notice. Flags are substituted as FOO_CPPFLAGS/FOO_LDFLAGS/FOO_LIBS for the
# calib/ targets only, and HAVE_FOO is defined and set as a conditional.

# _DSEC_PROBE(NAME, VAR, HEADER, LIB, FUNC, DEFAULT_DIR, EXTRA_LIBS)
AC_DEFUN([_DSEC_PROBE], [
  AC_ARG_WITH([$1],
    [AS_HELP_STRING([--with-$1@<:@=DIR@:>@], [use $1 (default: auto)])],
    [], [with_$2=auto])
  dsec_have_$2=no
  $2_CPPFLAGS=""
  $2_LDFLAGS=""
  $2_LIBS=""
  AS_IF([test "x$with_$2" != xno], [
    dsec_dir=""
    AS_CASE(["$with_$2"], [auto|yes], [dsec_dir="$6"], [dsec_dir="$with_$2"])
    AS_IF([test -n "$dsec_dir" && test -d "$dsec_dir/include"],
          [$2_CPPFLAGS="-I$dsec_dir/include"])
    AS_IF([test -n "$dsec_dir" && test -d "$dsec_dir/lib64"],
          [$2_LDFLAGS="-L$dsec_dir/lib64"],
          [test -n "$dsec_dir" && test -d "$dsec_dir/lib"],
          [$2_LDFLAGS="-L$dsec_dir/lib"])
    dsec_save_CPPFLAGS="$CPPFLAGS"
    dsec_save_LDFLAGS="$LDFLAGS"
    dsec_save_LIBS="$LIBS"
    CPPFLAGS="$CPPFLAGS $$2_CPPFLAGS"
    LDFLAGS="$LDFLAGS $$2_LDFLAGS"
    LIBS=""
    AC_CHECK_HEADER([$3],
      [AC_CHECK_LIB([$4], [$5], [dsec_have_$2=yes; $2_LIBS="-l$4 $7"], [], [$7])])
    CPPFLAGS="$dsec_save_CPPFLAGS"
    LDFLAGS="$dsec_save_LDFLAGS"
    LIBS="$dsec_save_LIBS"
    AS_IF([test "x$dsec_have_$2" = xno && test "x$with_$2" != xauto],
          [AC_MSG_ERROR([--with-$1 was given but $3 / lib$4 was not found])])
    AS_IF([test "x$dsec_have_$2" = xno],
          [AC_MSG_NOTICE([$1 not found; the parts that need it are not built])])
  ])
  AS_IF([test "x$dsec_have_$2" = xyes],
        [AC_DEFINE([HAVE_]m4_toupper($2), [1], [Define if $1 is available])])
  AC_SUBST($2_CPPFLAGS)
  AC_SUBST($2_LDFLAGS)
  AC_SUBST($2_LIBS)
])

AC_DEFUN([DSEC_WITH_CUDA], [
  _DSEC_PROBE([cuda], [cuda], [cuda_runtime.h], [cudart], [cudaGetDeviceCount],
              [/usr/local/cuda], [])
  AC_PATH_PROG([NVCC], [nvcc], [], [$PATH:/usr/local/cuda/bin])
  AM_CONDITIONAL([HAVE_CUDA], [test "x$dsec_have_cuda" = xyes])
])

AC_DEFUN([DSEC_WITH_NCCL], [
  AS_IF([test "x$dsec_have_cuda" != xyes && test "x$with_nccl" != xno],
        [AS_IF([test "x$with_nccl" != x && test "x$with_nccl" != xauto],
               [AC_MSG_ERROR([--with-nccl needs CUDA])])
         with_nccl=no])
  _DSEC_PROBE([nccl], [nccl], [nccl.h], [nccl], [ncclGetVersion],
              [/usr/local/cuda], [])
  AM_CONDITIONAL([HAVE_NCCL], [test "x$dsec_have_nccl" = xyes])
])

AC_DEFUN([DSEC_WITH_VERBS], [
  _DSEC_PROBE([verbs], [verbs], [infiniband/verbs.h], [ibverbs],
              [ibv_get_device_list], [], [])
  AM_CONDITIONAL([HAVE_VERBS], [test "x$dsec_have_verbs" = xyes])
])

AC_DEFUN([DSEC_WITH_MPI], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi@<:@=DIR@:>@], [use MPI (default: auto)])],
    [], [with_mpi=auto])
  dsec_have_mpi=no
  mpi_CPPFLAGS=""
  mpi_LDFLAGS=""
  mpi_LIBS=""
  AS_IF([test "x$with_mpi" != xno], [
    AS_IF([test "x$PKG_CONFIG" != x && $PKG_CONFIG --exists ompi-c 2>/dev/null],
          [mpi_CPPFLAGS=`$PKG_CONFIG --cflags ompi-c`
           mpi_LIBS=`$PKG_CONFIG --libs ompi-c`
           dsec_have_mpi=yes],
          [test "x$with_mpi" != xauto && test "x$with_mpi" != xyes],
          [mpi_CPPFLAGS="-I$with_mpi/include"
           mpi_LDFLAGS="-L$with_mpi/lib"
           mpi_LIBS="-lmpi"
           dsec_have_mpi=yes])
    AS_IF([test "x$dsec_have_mpi" = xno && test "x$with_mpi" != xauto],
          [AC_MSG_ERROR([--with-mpi was given but MPI was not found])])
    AS_IF([test "x$dsec_have_mpi" = xno],
          [AC_MSG_NOTICE([MPI not found; distributed sweeps are not built])])
  ])
  AS_IF([test "x$dsec_have_mpi" = xyes],
        [AC_DEFINE([HAVE_MPI], [1], [Define if MPI is available])])
  AC_SUBST([mpi_CPPFLAGS])
  AC_SUBST([mpi_LDFLAGS])
  AC_SUBST([mpi_LIBS])
  AM_CONDITIONAL([HAVE_MPI], [test "x$dsec_have_mpi" = xyes])
])
