# calib/: dsec-calib, the calibration suite (issue #7, docs/calibration.md).
# The CPU half (import, fit, show) is always built and links models/ to
# check the profile it writes with dsec's own loader. The microbenchmarks
# of `run` are compiled only when configure found CUDA (cuBLAS and nvcc
# come with it), NCCL, ibverbs and MPI; without them `run` exits 3.
noinst_LTLIBRARIES += calib/libcalib.la
calib_libcalib_la_SOURCES = calib/cal.h calib/db.c calib/import.c \
	calib/import-serving.c calib/nls.c calib/fit.c calib/scenario.c \
	calib/scenario.h calib/scenario-int.h calib/fit-serving.c \
	calib/serving.h
CALIB_LIBS = calib/libcalib.la $(DSEC_LIBS)

bin_PROGRAMS += dsec-calib
dsec_calib_SOURCES = calib/main.c calib/run.c calib/run.h
dsec_calib_CPPFLAGS = $(AM_CPPFLAGS)
dsec_calib_LDADD = $(CALIB_LIBS)
EXTRA_dsec_calib_DEPENDENCIES =
if HAVE_CUDA
dsec_calib_SOURCES += calib/cuda/bench.c calib/cuda/bench.h
dsec_calib_CPPFLAGS += $(cuda_CPPFLAGS)
# The kernels: nvcc only, never the -fsanitize or warning flags of CFLAGS.
dsec_calib_LDADD += calib/cuda/stream-cu.o $(cuda_LDFLAGS) -lcublasLt \
	$(cuda_LIBS) -lstdc++
EXTRA_dsec_calib_DEPENDENCIES += calib/cuda/stream-cu.o
CLEANFILES += calib/cuda/stream-cu.o
# Hopper machine code (H100, H200) plus PTX that the driver compiles for
# any GPU from Ampere on; override with make CALIB_NVCCFLAGS=...
CALIB_NVCCFLAGS = -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_80,code=compute_80
calib/cuda/stream-cu.o: calib/cuda/stream.cu calib/cuda/bench.h
	@test -n "$(NVCC)" || { echo "nvcc not found: configure --without-cuda, or put nvcc on PATH" >&2; exit 1; }
	@$(MKDIR_P) calib/cuda
	$(AM_V_GEN)$(NVCC) -O3 -std=c++17 $(CALIB_NVCCFLAGS) -I$(top_srcdir) \
		-Xcompiler -fPIC \
		-c -o $@ $(srcdir)/calib/cuda/stream.cu
if HAVE_NCCL
dsec_calib_SOURCES += calib/nccl/coll.c calib/nccl/coll.h
dsec_calib_CPPFLAGS += $(nccl_CPPFLAGS)
dsec_calib_LDADD += $(nccl_LDFLAGS) $(nccl_LIBS)
endif
endif
if HAVE_MPI
dsec_calib_SOURCES += calib/mpi/mpi.c calib/mpi/mpi.h
dsec_calib_CPPFLAGS += $(mpi_CPPFLAGS)
dsec_calib_LDADD += $(mpi_LDFLAGS) $(mpi_LIBS)
if HAVE_VERBS
dsec_calib_SOURCES += calib/verbs/rdma.c calib/verbs/rdma.h
dsec_calib_CPPFLAGS += $(verbs_CPPFLAGS)
dsec_calib_LDADD += $(verbs_LDFLAGS) $(verbs_LIBS)
endif
endif
EXTRA_DIST += calib/cuda/stream.cu calib/run-on-device.sh

# Tests: the parsers on recorded logs in the tools' formats, the fits on
# synthetic data, the profile round trip, and dsec-calib end to end.
check_PROGRAMS += tests/check_calib_import tests/check_calib_fit
TESTS += tests/e2e-calib-uncertainty.sh
EXTRA_DIST += tests/e2e-calib-uncertainty.sh
TESTS += tests/check_calib_import tests/check_calib_fit tests/e2e-calib.sh \
	tests/e2e-calib-scenario.sh tests/e2e-calib-serving.sh
tests_check_calib_import_SOURCES = tests/check_calib_import.c
tests_check_calib_import_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_calib_import_LDADD = $(CALIB_LIBS) $(CHECK_LIBS)
tests_check_calib_fit_SOURCES = tests/check_calib_fit.c
tests_check_calib_fit_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_calib_fit_LDADD = $(CALIB_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/e2e-calib.sh tests/data/calib \
	tests/e2e-calib-scenario.sh tests/data/calib-scenario \
	tests/e2e-calib-serving.sh tests/data/calib-serving
