# sweep/: sweep files, the worker pool, the sweep driver and, when configure
# found MPI, the transport between ranks (the one file outside calib/ that
# includes mpi.h). Linked by dsec, the bench and tests/check_sweep only.
noinst_LTLIBRARIES += sweep/libsweep.la
sweep_libsweep_la_SOURCES = sweep/sweep-int.h sweep/buf.c \
	sweep/spec.c sweep/spec.h sweep/wire.c sweep/wire.h \
	sweep/pool.c sweep/pool.h sweep/exec.c sweep/exec.h sweep/mpi.h
sweep_libsweep_la_CPPFLAGS = $(AM_CPPFLAGS)
sweep_libsweep_la_LIBADD =
if HAVE_MPI
sweep_libsweep_la_SOURCES += sweep/mpi.c
sweep_libsweep_la_CPPFLAGS += $(mpi_CPPFLAGS)
sweep_libsweep_la_LIBADD += $(mpi_LDFLAGS) $(mpi_LIBS)
endif
# What links the sweep library: it first, then the libraries it uses.
SWEEP_LIBS = sweep/libsweep.la $(DSEC_LIBS)

check_PROGRAMS += tests/check_sweep
TESTS += tests/check_sweep tests/e2e-sweep.sh
tests_check_sweep_SOURCES = tests/check_sweep.c tests/results-fixture.h
tests_check_sweep_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_sweep_LDADD = $(SWEEP_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/e2e-sweep.sh tests/data/sweep
# The bundled sweeps refer to ../*.yaml, so they install one level below
# the scenarios.
dsecsweepsdir = $(pkgdatadir)/scenarios/sweeps
dist_dsecsweeps_DATA = scenarios/sweeps/llama-70b-grid.yaml
