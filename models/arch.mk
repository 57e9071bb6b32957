# models/arch.mk
# The model-architecture catalog (models/arch/): config.json shapes and the
# quantities derived from them, and the Hugging Face config.json reader. See
# docs/models.md.
models_libmodels_la_SOURCES += \
	models/arch/arch.h \
	models/arch/arch.c \
	models/arch/dtype.h \
	models/arch/dtype.c \
	models/arch/hf.h \
	models/arch/hf.c \
	models/arch/table.c \
	models/arch/deepseek-v3.c \
	models/arch/deepseek-v3.2.c \
	models/arch/llama-2-70b.c \
	models/arch/llama-3.1-405b.c \
	models/arch/llama-3.1-70b.c \
	models/arch/llama-3.1-8b.c \
	models/arch/qwen2.5-72b.c \
	models/arch/qwen3-235b-a22b.c \
	models/arch/qwen3-32b.c

check_PROGRAMS += tests/check_models_arch
TESTS += tests/check_models_arch
tests_check_models_arch_SOURCES = tests/check_models_arch.c
tests_check_models_arch_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_arch_LDADD = $(DSEC_TEST_LIBS)

TESTS += tests/e2e-model.sh
EXTRA_DIST += tests/e2e-model.sh tests/data/hf
