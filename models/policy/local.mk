# models/policy/: scaling policies behind one versioned interface, linked
# unchanged into dsec (and, later, dsec-scaler).
models_libmodels_la_SOURCES += models/policy/policy.h models/policy/table.c \
	models/policy/plugin.c \
	models/policy/guard.h models/policy/guard.c \
	models/policy/pol-util.h models/policy/pol-util.c \
	models/policy/static.c models/policy/hpa.c models/policy/keda.c \
	models/policy/kpa.c models/policy/apa.c models/policy/ray-serve.c \
	models/policy/dynamo-load.c models/policy/dynamo-throughput.c \
	models/policy/llmd-saturation.c models/policy/target-latency.c \
	models/policy/predictive.c

check_PROGRAMS += tests/check_pol_baselines tests/check_pol_planners
TESTS += tests/check_pol_baselines tests/check_pol_planners
tests_check_pol_baselines_SOURCES = tests/check_pol_baselines.c
tests_check_pol_baselines_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_pol_baselines_LDADD = $(DSEC_TEST_LIBS)
tests_check_pol_baselines_SOURCES += tests/pol-fixture.h
tests_check_pol_planners_SOURCES = tests/check_pol_planners.c tests/pol-fixture.h
tests_check_pol_planners_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_pol_planners_LDADD = $(DSEC_TEST_LIBS)
