# scenarios/: the scenario language (loader, schema, units) and bundled YAML.
noinst_LTLIBRARIES += scenarios/libscenarios.la
scenarios_libscenarios_la_SOURCES = scenarios/load.c scenarios/load.h scenarios/schema.c scenarios/schema.h scenarios/help.c
check_PROGRAMS += tests/check_scn_load
TESTS += tests/check_scn_load
tests_check_scn_load_SOURCES = tests/check_scn_load.c
tests_check_scn_load_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_scn_load_LDADD = $(DSEC_TEST_LIBS)
EXTRA_DIST += tests/data/scn

check_PROGRAMS += tests/check_scn_fuzz
TESTS += tests/check_scn_fuzz
tests_check_scn_fuzz_SOURCES = tests/check_scn_fuzz.c
tests_check_scn_fuzz_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_scn_fuzz_LDADD = $(DSEC_TEST_LIBS)

# The libFuzzer targets (docs/build.md): only with --enable-fuzzing.
# `make fuzz` runs each for FUZZ_SECONDS on corpora seeded from the test
# data (tests/fuzz.sh); CI runs it briefly.
EXTRA_DIST += tests/fuzz-scn.c tests/fuzz-scaler.c tests/fuzz-trace.c \
	tests/fuzz-calib.c tests/fuzz.sh tests/fuzz-file.h
FUZZ_SECONDS = 60
FUZZ_SEED =
if ENABLE_FUZZING
FUZZ_TARGETS = tests/fuzz-scn tests/fuzz-scaler tests/fuzz-trace \
	tests/fuzz-calib
noinst_PROGRAMS += $(FUZZ_TARGETS)
tests_fuzz_scn_SOURCES = tests/fuzz-scn.c
tests_fuzz_scn_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_scn_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_scn_LDADD = $(DSEC_LIBS)
tests_fuzz_scaler_SOURCES = tests/fuzz-scaler.c
tests_fuzz_scaler_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer $(CURL_CFLAGS) \
	$(MHD_CFLAGS)
tests_fuzz_scaler_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_scaler_LDADD = $(SCALER_LIBS)
tests_fuzz_trace_SOURCES = tests/fuzz-trace.c
tests_fuzz_trace_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_trace_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_trace_LDADD = $(DSEC_LIBS)
tests_fuzz_calib_SOURCES = tests/fuzz-calib.c
tests_fuzz_calib_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_calib_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_calib_LDADD = $(CALIB_LIBS)
fuzz: $(FUZZ_TARGETS)
	top_srcdir=$(top_srcdir) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	    FUZZ_SEED=$(FUZZ_SEED) sh $(top_srcdir)/tests/fuzz.sh $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: configure with CC=clang --enable-fuzzing first" \
	    "(docs/build.md, Fuzzing)" >&2; exit 1
endif
.PHONY: fuzz
