# tests/: end-to-end scripts that run the dsec binary (TAP).
TESTS += tests/e2e-run.sh
EXTRA_DIST += tests/e2e-run.sh tests/data/e2e
TESTS += tests/e2e-compare.sh
TESTS += tests/e2e-report.sh
EXTRA_DIST += tests/e2e-report.sh
check_PROGRAMS += tests/check_rpt_report
TESTS += tests/check_rpt_report
tests_check_rpt_report_SOURCES = tests/check_rpt_report.c
tests_check_rpt_report_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_rpt_report_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/e2e-compare.sh
check_PROGRAMS += tests/check_rpt_compare
TESTS += tests/check_rpt_compare
tests_check_rpt_compare_SOURCES = tests/check_rpt_compare.c
tests_check_rpt_compare_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_rpt_compare_LDADD = $(DSEC_TEST_LIBS)
