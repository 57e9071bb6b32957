# models/cluster: the cluster model, its replica engines and the run driver.
models_libmodels_la_SOURCES += models/cluster/config.h models/cluster/config.c \
	models/cluster/results.h models/cluster/cluster.h \
	models/cluster/cluster-int.h models/cluster/cluster.c \
	models/cluster/engine.h models/cluster/engine-table.c \
	models/cluster/abstract.c models/cluster/llm.c models/cluster/llm-plan.c
models_libmodels_la_SOURCES += models/cluster/kvcache.c models/cluster/kvcache.h
models_libmodels_la_SOURCES += models/cluster/session.c
# A scenario's training section run beside its serving part (models/train
# below, the cluster above it).
models_libmodels_la_SOURCES += models/cluster/training.c \
	models/cluster/training.h
models_libmodels_la_SOURCES += models/cluster/router.c models/cluster/replica-series.c
dist_dsecdata_DATA += scenarios/routing-sessions.yaml

check_PROGRAMS += tests/check_models_cluster
TESTS += tests/check_models_cluster
tests_check_models_cluster_SOURCES = tests/check_models_cluster.c
tests_check_models_cluster_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_cluster_LDADD = $(DSEC_TEST_LIBS)
models_libmodels_la_SOURCES += models/cluster/replica.c \
	models/cluster/orchestrator.c models/cluster/reclaim.c \
	models/cluster/spot-trace.c \
	models/policy/promhist.c \
	models/policy/promhist.h

check_PROGRAMS += tests/check_models_orchestrator
TESTS += tests/check_models_orchestrator
tests_check_models_orchestrator_SOURCES = tests/check_models_orchestrator.c
tests_check_models_orchestrator_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_orchestrator_LDADD = $(DSEC_TEST_LIBS)

check_PROGRAMS += tests/check_models_kv
TESTS += tests/check_models_kv
tests_check_models_kv_SOURCES = tests/check_models_kv.c
tests_check_models_kv_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_kv_LDADD = $(DSEC_TEST_LIBS)
dist_dsecdata_DATA += scenarios/mooncake-offload.yaml scenarios/multi-turn-chat.yaml
dist_dsecdata_DATA += scenarios/deepseek-pd.yaml

check_PROGRAMS += tests/check_models_engines
TESTS += tests/check_models_engines
tests_check_models_engines_SOURCES = tests/check_models_engines.c
tests_check_models_engines_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_engines_LDADD = $(DSEC_TEST_LIBS)

check_PROGRAMS += tests/check_models_results
TESTS += tests/check_models_results
tests_check_models_results_SOURCES = tests/check_models_results.c
tests_check_models_results_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_results_LDADD = $(DSEC_TEST_LIBS)
# The benchmark client between the source and the engines (issue #16).
models_libmodels_la_SOURCES += models/cluster/client.c
check_PROGRAMS += tests/check_models_client
TESTS += tests/check_models_client
tests_check_models_client_SOURCES = tests/check_models_client.c
tests_check_models_client_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_client_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/data/client
TESTS += tests/e2e-client.sh
EXTRA_DIST += tests/e2e-client.sh
# Prediction intervals from the calibration's uncertainty (issue #17).
models_libmodels_la_SOURCES += models/cluster/predict.c models/cluster/predict.h
