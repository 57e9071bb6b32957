# The floors: which folders each folder may include (docs/architecture.md).
TESTS += tests/floors.sh
EXTRA_DIST += tests/floors.sh

# Results pinned field for field (tests/pin-results.sh --update rewrites).
TESTS += tests/pin-results.sh
EXTRA_DIST += tests/pin-results.sh tests/data/pinned
# Fast-forwarded decode against every iteration an event, every scenario.
TESTS += tests/e2e-fast-forward.sh
EXTRA_DIST += tests/e2e-fast-forward.sh
# The TAP helpers the end-to-end scripts source.
EXTRA_DIST += tests/tap.sh
# tests/: end-to-end scripts that run the dsec binary (TAP).
TESTS += tests/e2e-run.sh
EXTRA_DIST += tests/e2e-run.sh tests/data/e2e
TESTS += tests/e2e-compare.sh
TESTS += tests/e2e-hardware.sh
EXTRA_DIST += tests/e2e-hardware.sh
TESTS += tests/e2e-report.sh tests/e2e-report-finance.sh
EXTRA_DIST += tests/e2e-report.sh tests/e2e-report-finance.sh tests/data/e2e/report-borrow.yaml
TESTS += tests/e2e-plan-launch.sh
EXTRA_DIST += tests/e2e-plan-launch.sh
check_PROGRAMS += tests/check_rpt_report
TESTS += tests/check_rpt_report
tests_check_rpt_report_SOURCES = tests/check_rpt_report.c \
	tests/results-fixture.h
tests_check_rpt_report_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_rpt_report_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/e2e-compare.sh
check_PROGRAMS += tests/check_rpt_compare
TESTS += tests/check_rpt_compare
tests_check_rpt_compare_SOURCES = tests/check_rpt_compare.c
tests_check_rpt_compare_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_rpt_compare_LDADD = $(DSEC_TEST_LIBS)
TESTS += tests/e2e-help.sh tests/man-pages.sh
EXTRA_DIST += tests/e2e-help.sh tests/man-pages.sh

# Citations of docs/sources.md resolve; no development paths in user docs.
TESTS += tests/sources.sh
EXTRA_DIST += tests/sources.sh

check_PROGRAMS += tests/check_models_prefix
TESTS += tests/check_models_prefix
tests_check_models_prefix_SOURCES = tests/check_models_prefix.c
tests_check_models_prefix_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_prefix_LDADD = $(DSEC_TEST_LIBS)

check_PROGRAMS += tests/check_models_router
TESTS += tests/check_models_router
tests_check_models_router_SOURCES = tests/check_models_router.c
tests_check_models_router_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_router_LDADD = $(DSEC_TEST_LIBS)
TESTS += tests/e2e-routing.sh
TESTS += tests/e2e-requests.sh
EXTRA_DIST += tests/e2e-requests.sh
EXTRA_DIST += tests/e2e-routing.sh
# Spot interruptions from a trace file (pools[].interruptions.trace).
TESTS += tests/e2e-spot-trace.sh
TESTS += tests/e2e-start.sh
EXTRA_DIST += tests/e2e-start.sh
EXTRA_DIST += tests/e2e-spot-trace.sh
dist_dsecsweeps_DATA += scenarios/sweeps/routing.yaml

# dsec's defaults against real vLLM benchmark runs (skips without them);
# `make validate` prints the tables docs/validation.md shows.
TESTS += tests/validate-vllm.sh tests/validate-calib.sh \
	tests/validate-deepseek.sh
EXTRA_DIST += tests/validate-vllm.sh tests/validate-calib.sh \
	tests/validate-deepseek.sh \
	tests/run-fixture.h
validate: all tests/vidur-check$(EXEEXT)
	@echo "## dsec (defaults) against vLLM benchmark runs"
	@echo
	@top_srcdir=$(top_srcdir) top_builddir=$(top_builddir) \
	    $(SHELL) $(top_srcdir)/tests/validate-vllm.sh --markdown
	@echo
	@echo "## dsec calibrated from serving runs"
	@echo
	@top_srcdir=$(top_srcdir) top_builddir=$(top_builddir) \
	    $(SHELL) $(top_srcdir)/tests/validate-calib.sh --markdown
	@echo
	@echo "## DeepSeek-V3 at scale against DeepSeek's published rates"
	@echo
	@top_builddir=$(top_builddir) \
	    $(SHELL) $(top_srcdir)/tests/validate-deepseek.sh --markdown
	@echo
	@echo "## dsec's operator costs against Vidur's A100 timings"
	@echo
	@top_srcdir=$(top_srcdir) tests/vidur-check$(EXEEXT) | sed -n 's/^# //p'
.PHONY: validate

# Every numeric scenario key through its extremes (docs/security.md).
check_PROGRAMS += tests/check_extremes
TESTS += tests/check_extremes
tests_check_extremes_SOURCES = tests/check_extremes.c tests/extremes.h
tests_check_extremes_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_extremes_LDADD = $(SWEEP_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/data/extremes
