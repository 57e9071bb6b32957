# models/workload.mk: request sources (synthetic and Azure trace replay).
models_libmodels_la_SOURCES += models/workload/dist.c models/workload/dist.h models/workload/source.c \
	models/workload/source.h models/workload/workload-int.h \
	models/workload/synthetic.c models/workload/azure.c

check_PROGRAMS += tests/check_models_workload
TESTS += tests/check_models_workload
tests_check_models_workload_SOURCES = tests/check_models_workload.c
tests_check_models_workload_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_workload_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/data/trace
