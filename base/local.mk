# base/: the toolbox below the engine: allocation (xalloc), error codes
# (errors), diagnostics with file:line:col (diag), parameter rows with
# units (param), durations and byte counts for people (fmt) and the
# commands' progress line (progress, which alone reads the wall clock; the
# simulation never calls it). Plain C and libc only; policies, the scaler
# and the calibration suite include it without the engine
# (docs/architecture.md).
noinst_LTLIBRARIES += base/libbase.la
base_libbase_la_SOURCES = \
	base/diag.c base/diag.h \
	base/errors.c base/errors.h \
	base/fmt.c base/fmt.h \
	base/param.c base/param.h \
	base/progress.c base/progress.h \
	base/xalloc.c base/xalloc.h
