# models/physics.mk
# Hardware physics: the GPU catalog (models/gpu/) and the link and
# collective models (models/net/). See docs/hardware.md. The architecture
# catalog is in models/arch.mk, the step time in models/perf.mk and the
# parallel layouts in models/layout.mk.
models_libmodels_la_SOURCES += \
	models/gpu/gpu.h \
	models/gpu/table.c \
	models/gpu/b200.c \
	models/gpu/h100.c \
	models/gpu/h200.c \
	models/net/net.h
