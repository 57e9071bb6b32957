# models/perf.mk
# The step-time model of one replica (models/perf/) and its calibration
# profiles. See docs/step-time.md.
models_libmodels_la_SOURCES += \
	models/perf/calib.h \
	models/perf/calib.c \
	models/perf/roofline.h \
	models/perf/roofline.c
EXTRA_DIST += models/perf/calibration-default.yaml

check_PROGRAMS += tests/check_models_physics
TESTS += tests/check_models_physics
tests_check_models_physics_SOURCES = tests/check_models_physics.c
tests_check_models_physics_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_physics_LDADD = $(DSEC_TEST_LIBS)
check_PROGRAMS += tests/check_models_step
TESTS += tests/check_models_step
tests_check_models_step_SOURCES = tests/check_models_step.c
tests_check_models_step_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_step_LDADD = $(DSEC_TEST_LIBS)

# The comparison with Vidur's measured A100 operator times; skips without
# the reference data (docs/step-time.md).
check_PROGRAMS += tests/vidur-check
TESTS += tests/vidur-check
tests_vidur_check_SOURCES = tests/vidur-check.c
tests_vidur_check_LDADD = $(DSEC_LIBS)

TESTS += tests/e2e-step.sh
EXTRA_DIST += tests/e2e-step.sh
