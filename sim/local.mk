# sim/: the engine: event queue, loop, random streams, time, statistics.
# It builds on base/ and is used by models/ (never by models/policy/,
# scaler/ or calib/, which include base/ only).
noinst_LTLIBRARIES += sim/libsim.la
sim_libsim_la_SOURCES = \
	sim/event.h \
	sim/heap.c sim/heap.h \
	sim/loop.c sim/loop.h \
	sim/rng.c sim/rng.h \
	sim/time.h

DSEC_SIM_TEST_LIBS = sim/libsim.la base/libbase.la $(GSL_LIBS) \
	$(YAML_LIBS) $(CHECK_LIBS) -lm

check_PROGRAMS += tests/check_sim_heap tests/check_sim_loop
TESTS += tests/check_sim_heap tests/check_sim_loop
tests_check_sim_heap_SOURCES = tests/check_sim_heap.c
tests_check_sim_heap_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_sim_heap_LDADD = $(DSEC_SIM_TEST_LIBS)
tests_check_sim_loop_SOURCES = tests/check_sim_loop.c
tests_check_sim_loop_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_sim_loop_LDADD = $(DSEC_SIM_TEST_LIBS)

include sim/stats.mk
