# reports/: SQLite schema and writer, summary table and JSON, the cost and
# comparison reports, the training reports, the gnuplot driver and the
# JSON-number helpers (fmt).
noinst_LTLIBRARIES += reports/libreports.la
reports_libreports_la_SOURCES = reports/db.c reports/db.h \
	reports/summary.c reports/summary.h reports/schema.h \
	reports/compare.c reports/compare-plot.c reports/compare.h \
	reports/fmt.c reports/fmt.h \
	reports/gnuplot.c reports/gnuplot.h reports/report.c reports/report.h \
	reports/report-int.h reports/report-charts.c reports/report-html.c \
	reports/report-pdf.c reports/report-compare.c \
	reports/train-report.c reports/train-report.h \
	reports/requests.c reports/requests.h
# cairo (optional) draws the PDF report; its flags reach dsec and the tests
# through this library.
reports_libreports_la_CPPFLAGS = $(AM_CPPFLAGS) $(CAIRO_CFLAGS)
reports_libreports_la_LIBADD = $(CAIRO_LIBS)
nodist_reports_libreports_la_SOURCES = reports/schema-sql.c

# The schema lives in one place, reports/schema.sql (installed for users'
# own tools); the library embeds it as a C string generated here, in the
# build tree, so VPATH builds and distcheck work from a read-only source tree.
# Automake refuses += before =, and Makefile.am sets neither variable; if
# another fragment needs one, move the "=" to Makefile.am and use += here.
dist_pkgdata_DATA = reports/schema.sql
BUILT_SOURCES = reports/schema-sql.c
CLEANFILES += reports/schema-sql.c
RPT_SCHEMA_SED = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' \
	-e 's/^/    "/' -e 's/$$/\\n"/'
reports/schema-sql.c: $(srcdir)/reports/schema.sql $(srcdir)/reports/local.mk
	$(AM_V_GEN)$(MKDIR_P) reports && { \
	  echo '/* Generated from reports/schema.sql; do not edit. */'; \
	  echo '#include "reports/schema.h"'; \
	  echo 'const char rpt_schema_sql[] ='; \
	  $(RPT_SCHEMA_SED) $(srcdir)/reports/schema.sql; \
	  echo '    ;'; \
	} >$@-t && mv -f $@-t $@

# The results record belongs to models/cluster/ but is written with these.
models_libmodels_la_SOURCES += models/cluster/results.c \
	models/cluster/results-fields.h

check_PROGRAMS += tests/check_rpt_db
TESTS += tests/check_rpt_db
tests_check_rpt_db_SOURCES = tests/check_rpt_db.c tests/results-fixture.h
tests_check_rpt_db_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_rpt_db_LDADD = $(DSEC_TEST_LIBS)
