# models/arch.mk
# The model-architecture catalog (models/arch/): config.json shapes and the
# quantities derived from them. See docs/models.md.
models_libmodels_la_SOURCES += \
	models/arch/arch.h \
	models/arch/arch.c \
	models/arch/table.c \
	models/arch/deepseek-v3.c \
	models/arch/llama-3.1-70b.c \
	models/arch/llama-3.1-8b.c
