# sim/stats: owned by the statistics module (see sim/stats.h).
sim_libsim_la_SOURCES += sim/stats.c sim/stats.h

check_PROGRAMS += tests/check_sim_stats
TESTS += tests/check_sim_stats
tests_check_sim_stats_SOURCES = tests/check_sim_stats.c
tests_check_sim_stats_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_sim_stats_LDADD = $(DSEC_SIM_TEST_LIBS)
