# plan/: the capacity planner behind `dsec plan` (docs/plan.md): layouts,
# the analytic bound, the search on the sweep's worker pool, the
# prediction intervals of --uncertainty, the frontier chart, the files of
# --launch. Linked by dsec and tests/check_plan, first and followed by the
# sweep library and the others (PLAN_LIBS).
noinst_LTLIBRARIES += plan/libplan.la
plan_libplan_la_SOURCES = plan/plan.h plan/bound.c plan/search.c \
	plan/predict.c plan/chart.c plan/launch.h plan/launch.c
PLAN_LIBS = plan/libplan.la $(SWEEP_LIBS)

check_PROGRAMS += tests/check_plan
TESTS += tests/check_plan tests/e2e-plan.sh
tests_check_plan_SOURCES = tests/check_plan.c
tests_check_plan_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_plan_LDADD = $(PLAN_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/e2e-plan.sh tests/data/plan
