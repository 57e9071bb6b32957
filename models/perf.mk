# models/perf.mk
# The step-time model of one replica (models/perf/). See docs/hardware.md.
models_libmodels_la_SOURCES += \
	models/perf/roofline.h \
	models/perf/roofline.c

check_PROGRAMS += tests/check_models_physics
TESTS += tests/check_models_physics
tests_check_models_physics_SOURCES = tests/check_models_physics.c
tests_check_models_physics_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_physics_LDADD = $(DSEC_TEST_LIBS)
