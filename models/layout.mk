# models/layout.mk
# Parallel layouts (models/layout/): memory, traffic and feasibility of
# DP/TP/PP/EP/ZeRO for inference and training. See docs/layouts.md.
models_libmodels_la_SOURCES += \
	models/layout/layout.h \
	models/layout/layout.c

check_PROGRAMS += tests/check_models_layout
TESTS += tests/check_models_layout
tests_check_models_layout_SOURCES = tests/check_models_layout.c
tests_check_models_layout_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_layout_LDADD = $(DSEC_TEST_LIBS)

TESTS += tests/e2e-strategies.sh
EXTRA_DIST += tests/e2e-strategies.sh
