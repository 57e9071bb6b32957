# models/physics.mk
# Hardware physics: the GPU catalog (models/gpu/) and the link and
# collective models (models/net/). See docs/hardware.md. The architecture
# catalog is in models/arch.mk, the step time in models/perf.mk and the
# parallel layouts in models/layout.mk.
models_libmodels_la_SOURCES += \
	models/gpu/gpu.h \
	models/gpu/table.c \
	models/gpu/a100.c \
	models/gpu/b200.c \
	models/gpu/h100.c \
	models/gpu/h200.c \
	models/gpu/h800.c \
	models/gpu/l40s.c \
	models/gpu/mi300x.c \
	models/net/net.h \
	models/net/link.c \
	models/net/coll.c

check_PROGRAMS += tests/check_models_net
TESTS += tests/check_models_net
tests_check_models_net_SOURCES = tests/check_models_net.c
tests_check_models_net_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_net_LDADD = $(DSEC_TEST_LIBS)
