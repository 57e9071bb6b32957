# lib/: libdsec, dsec as a library (include/dsec.h, docs/library.md): the
# engine, the models, the scenario pipeline, sweeps and the summaries
# behind one C interface, shared (soname libdsec.so.1) and static, with
# dsec.pc for pkg-config. Only dsec_* symbols are exported; the policy ABI
# (include/dsec/policy.h) is plain data and function pointers.
lib_LTLIBRARIES += lib/libdsec.la
lib_libdsec_la_SOURCES = lib/dsec.c lib/compare.c lib/lib-int.h \
	include/dsec.h include/dsec/param.h include/dsec/policy.h
# -version-info current:revision:age; current 1 is the first interface.
# Change it (docs/library.md "Versions") whenever dsec.h changes.
lib_libdsec_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 \
	-export-symbols-regex '^dsec_[a-z]' -no-undefined
lib_libdsec_la_LIBADD = sweep/libsweep.la scenarios/libscenarios.la \
	reports/libreports.la models/libmodels.la sim/libsim.la \
	base/libbase.la \
	$(GSL_LIBS) $(YAML_LIBS) $(SQLITE_LIBS) $(JSONC_LIBS) $(CRYPTO_LIBS) \
	-lpthread -lm

include_HEADERS = include/dsec.h
dsecincludedir = $(includedir)/dsec
dsecinclude_HEADERS = include/dsec/param.h include/dsec/policy.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = lib/dsec.pc
EXTRA_DIST += lib/dsec.pc.in

# The C interface's suite, linked against the library as users link it.
check_PROGRAMS += tests/check_lib
TESTS += tests/check_lib tests/e2e-lib-install.sh
EXTRA_DIST += tests/e2e-lib-install.sh
tests_check_lib_SOURCES = tests/check_lib.c
tests_check_lib_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_lib_LDADD = lib/libdsec.la $(CHECK_LIBS) -lm

# The example plug-in (contrib/policy-plugin), built here from the public
# headers alone for the tests; and one that claims another API version.
check_LTLIBRARIES = tests/libqueue_step.la tests/libbadversion.la
PLUGIN_LDFLAGS = -module -shared -avoid-version -rpath /nowhere \
	$(AM_LDFLAGS)
tests_libqueue_step_la_SOURCES = contrib/policy-plugin/queue_step.c
tests_libqueue_step_la_CPPFLAGS = -I$(top_srcdir)/include
tests_libqueue_step_la_LDFLAGS = $(PLUGIN_LDFLAGS)
tests_libbadversion_la_SOURCES = tests/plugin-badversion.c
tests_libbadversion_la_CPPFLAGS = -I$(top_srcdir)/include
tests_libbadversion_la_LDFLAGS = $(PLUGIN_LDFLAGS)
EXTRA_DIST += contrib/policy-plugin/Makefile
