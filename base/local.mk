# base/: the toolbox below the engine: allocation (xalloc), error codes
# (errors), diagnostics with file:line:col (diag), parameter rows with
# units (param), the one YAML-over-rows walker (yaml-rows, the only file
# here that needs a library: libyaml), durations and byte counts for people
# (fmt) and the commands' progress line (progress, which alone reads the
# wall clock; the simulation never calls it). Policies, the scaler and the
# calibration suite include it without the engine (docs/architecture.md).
noinst_LTLIBRARIES += base/libbase.la
base_libbase_la_SOURCES = \
	base/diag.c base/diag.h \
	base/errors.c base/errors.h \
	base/fmt.c base/fmt.h \
	base/param.c base/param.h \
	base/progress.c base/progress.h \
	base/xalloc.c base/xalloc.h \
	base/yaml-rows.c base/yaml-rows.h
# libyaml's headers come with AM_CPPFLAGS; its library goes with libbase.
base_libbase_la_LIBADD = $(YAML_LIBS)

# The walker's suite needs nothing above the toolbox.
check_PROGRAMS += tests/check_base_yaml
TESTS += tests/check_base_yaml
tests_check_base_yaml_SOURCES = tests/check_base_yaml.c
tests_check_base_yaml_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_base_yaml_LDADD = base/libbase.la $(YAML_LIBS) $(CHECK_LIBS) -lm
