# models/: hardware, architectures, step time, workloads, serving, cluster.
noinst_LTLIBRARIES += models/libmodels.la
models_libmodels_la_SOURCES =

include models/physics.mk
include models/arch.mk
include models/perf.mk
include models/layout.mk
include models/workload.mk
include models/cluster.mk
include models/policy/local.mk
include models/train/local.mk
