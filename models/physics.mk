# models/physics.mk
# Hardware and model physics: the GPU catalog (models/gpu/), the
# architecture catalog (models/arch/) and the roofline step time
# (models/perf/). See docs/hardware.md and docs/models.md.
models_libmodels_la_SOURCES += \
	models/gpu/gpu.h \
	models/gpu/table.c \
	models/gpu/b200.c \
	models/gpu/h100.c \
	models/gpu/h200.c \
	models/arch/arch.h \
	models/arch/arch.c \
	models/arch/table.c \
	models/arch/deepseek-v3.c \
	models/arch/llama-3.1-70b.c \
	models/arch/llama-3.1-8b.c \
	models/perf/roofline.h \
	models/perf/roofline.c

check_PROGRAMS += tests/check_models_physics
TESTS += tests/check_models_physics
tests_check_models_physics_SOURCES = tests/check_models_physics.c
tests_check_models_physics_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_physics_LDADD = $(DSEC_TEST_LIBS)
