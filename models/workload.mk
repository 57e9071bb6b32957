# models/workload.mk: request sources (synthetic; Azure, Mooncake, BurstGPT
# and ServeGen traces; the inference-perf and vllm bench clients).
models_libmodels_la_SOURCES += models/workload/config.h models/workload/config.c \
	models/workload/dist.c models/workload/dist.h models/workload/source.c \
	models/workload/source.h models/workload/workload-int.h \
	models/workload/synthetic.c models/workload/azure.c \
	models/workload/lines.c models/workload/mooncake.c \
	models/workload/burstgpt.c models/workload/servegen.c \
	models/workload/sessions.c models/workload/inference-perf.c \
	models/workload/vllm-bench.c models/workload/table.c

check_PROGRAMS += tests/check_models_workload
TESTS += tests/check_models_workload
tests_check_models_workload_SOURCES = tests/check_models_workload.c
tests_check_models_workload_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_workload_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/data/trace

check_PROGRAMS += tests/check_models_traces
TESTS += tests/check_models_traces
tests_check_models_traces_SOURCES = tests/check_models_traces.c
tests_check_models_traces_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_traces_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/data/traces tests/e2e-traces.sh
TESTS += tests/e2e-traces.sh

check_PROGRAMS += tests/check_models_formats
TESTS += tests/check_models_formats
tests_check_models_formats_SOURCES = tests/check_models_formats.c
tests_check_models_formats_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_formats_LDADD = $(DSEC_TEST_LIBS)
