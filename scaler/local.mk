# scaler/: dsec-scaler, the live scaler (issue #8).
# The snapshot code shared with the simulator lives in models/policy/ and
# goes into libmodels, so that dsec and dsec-scaler build snapshots alike.
models_libmodels_la_SOURCES += models/policy/snapshot.h \
	models/policy/snapshot.c

noinst_LTLIBRARIES += scaler/libscaler.la
scaler_libscaler_la_SOURCES = scaler/conf.h scaler/conf.c \
	scaler/expo.h scaler/expo.c scaler/http.h scaler/http.c \
	scaler/promapi.h scaler/promapi.c scaler/source.h scaler/source.c \
	scaler/actuator.h scaler/actuator.c scaler/decide.h scaler/decide.c \
	scaler/log.h scaler/log.c scaler/serve.h scaler/serve.c \
	scaler/step.h scaler/step.c
scaler_libscaler_la_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(MHD_CFLAGS)

SCALER_LIBS = scaler/libscaler.la models/libmodels.la sim/libsim.la \
	base/libbase.la \
	$(CURL_LIBS) $(MHD_LIBS) $(GSL_LIBS) $(YAML_LIBS) $(JSONC_LIBS) \
	-lpthread -lm

bin_PROGRAMS += dsec-scaler
dsec_scaler_SOURCES = scaler/main.c
dsec_scaler_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(MHD_CFLAGS)
dsec_scaler_LDADD = $(SCALER_LIBS)

SCALER_TEST_LIBS = $(SCALER_LIBS) $(CHECK_LIBS)
SCALER_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CURL_CFLAGS) $(MHD_CFLAGS)
check_PROGRAMS += tests/check_scaler_parse
TESTS += tests/check_scaler_parse
tests_check_scaler_parse_SOURCES = tests/check_scaler_parse.c
tests_check_scaler_parse_CFLAGS = $(SCALER_TEST_CFLAGS)
tests_check_scaler_parse_LDADD = $(SCALER_TEST_LIBS)
EXTRA_DIST += tests/data/scaler
check_PROGRAMS += tests/check_scaler_safety
TESTS += tests/check_scaler_safety
tests_check_scaler_safety_SOURCES = tests/check_scaler_safety.c
tests_check_scaler_safety_CFLAGS = $(SCALER_TEST_CFLAGS)
tests_check_scaler_safety_LDADD = $(SCALER_TEST_LIBS)
check_PROGRAMS += tests/check_scaler_same
TESTS += tests/check_scaler_same
tests_check_scaler_same_SOURCES = tests/check_scaler_same.c
tests_check_scaler_same_CFLAGS = $(SCALER_TEST_CFLAGS)
tests_check_scaler_same_LDADD = $(SCALER_TEST_LIBS)
check_PROGRAMS += tests/check_scaler_hostile
TESTS += tests/check_scaler_hostile
tests_check_scaler_hostile_SOURCES = tests/check_scaler_hostile.c
tests_check_scaler_hostile_CFLAGS = $(SCALER_TEST_CFLAGS)
tests_check_scaler_hostile_LDADD = $(SCALER_TEST_LIBS)
TESTS += tests/e2e-scaler-cli.sh
EXTRA_DIST += tests/e2e-scaler-cli.sh
# contrib/ file by file: the build tree compiles contrib/policy-plugin/ (lib/local.mk), and
# a folder in EXTRA_DIST would ship its objects too.
EXTRA_DIST += contrib/systemd/dsec-scaler.service \
	contrib/kubernetes/dsec-scaler.yaml contrib/scaler.yaml
# Every numeric key of the calibration profile, the sweep file and this
# configuration through its extremes (docs/security.md); links the sweep
# and scenario libraries beside this one to run the profiles it loads.
check_PROGRAMS += tests/check_extremes_configs
TESTS += tests/check_extremes_configs
tests_check_extremes_configs_SOURCES = tests/check_extremes_configs.c \
	tests/extremes.h
tests_check_extremes_configs_CFLAGS = $(SCALER_TEST_CFLAGS)
tests_check_extremes_configs_LDADD = scaler/libscaler.la $(SWEEP_LIBS) \
	$(CURL_LIBS) $(MHD_LIBS) $(CHECK_LIBS)
# dsec help scaler prints the configuration's rows (scaler/conf.c).
dsec_LDADD += scaler/libscaler.la $(DSEC_LIBS) $(CURL_LIBS) $(MHD_LIBS)
