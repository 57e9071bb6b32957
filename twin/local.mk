# twin/: the digital twin behind dsec twin (issue #8): the session's
# answers (twin.c: vLLM /metrics, the Kubernetes scale subresource) and the
# libmicrohttpd server driving the session in real time (server.c).
noinst_LTLIBRARIES += twin/libtwin.la
twin_libtwin_la_SOURCES = twin/twin.h twin/twin.c twin/server.c
twin_libtwin_la_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
dsec_SOURCES += cli/cmd-twin.c
dsec_LDADD += twin/libtwin.la $(DSEC_LIBS) $(MHD_LIBS)

dist_dsecdata_DATA += scenarios/twin-flash-crowd.yaml

TESTS += tests/e2e-twin.sh tests/e2e-scaler-prometheus.sh
EXTRA_DIST += tests/e2e-twin.sh tests/e2e-scaler-prometheus.sh

# The session API behind the twin (models/cluster/session.c).
check_PROGRAMS += tests/check_models_session
TESTS += tests/check_models_session
tests_check_models_session_SOURCES = tests/check_models_session.c
tests_check_models_session_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_session_LDADD = $(DSEC_TEST_LIBS)

# The twin's answers, without a network (twin/twin.c).
check_PROGRAMS += tests/check_twin
TESTS += tests/check_twin
tests_check_twin_SOURCES = tests/check_twin.c
tests_check_twin_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_twin_LDADD = twin/libtwin.la $(DSEC_TEST_LIBS) $(MHD_LIBS)
