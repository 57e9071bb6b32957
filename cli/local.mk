# cli/: the dsec command table and main.
bin_PROGRAMS += dsec
dsec_SOURCES = cli/cli.h cli/main.c cli/table.c cli/util.c cli/cmd-help.c \
	cli/cmd-compare.c cli/cmd-report.c cli/cmd-run.c cli/cmd-validate.c cli/cmd-version.c
dsec_SOURCES += cli/cmd-model.c
dsec_SOURCES += cli/cmd-strategies.c
dsec_SOURCES += cli/cmd-step.c
dsec_SOURCES += cli/cmd-train.c
dsec_LDADD = $(DSEC_LIBS)
# configure's --enable-lto (the default): the simulator's calls across files
# inlined at link time.
dsec_LDFLAGS = $(AM_LDFLAGS) $(DSEC_LTO_LDFLAGS)
# dsec sweep: the sweep library needs the others after it (static order).
dsec_SOURCES += cli/cmd-sweep.c
dsec_LDADD += sweep/libsweep.la $(DSEC_LIBS)
# dsec plan: the planner library, then the sweep library and the others.
dsec_SOURCES += cli/cmd-plan.c
dsec_LDADD += $(PLAN_LIBS)
