# cli/: the dsec command table and main.
bin_PROGRAMS += dsec
dsec_SOURCES = cli/cli.h cli/main.c cli/table.c cli/util.c cli/cmd-help.c \
	cli/cmd-compare.c cli/cmd-report.c cli/cmd-run.c cli/cmd-validate.c cli/cmd-version.c
dsec_LDADD = $(DSEC_LIBS)
