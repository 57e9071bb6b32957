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

# The libFuzzer target (docs/build.md): only with --enable-fuzzing.
EXTRA_DIST += tests/fuzz-scn.c
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz-scn
tests_fuzz_scn_SOURCES = tests/fuzz-scn.c
tests_fuzz_scn_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_scn_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_scn_LDADD = $(DSEC_LIBS)
endif
