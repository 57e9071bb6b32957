# models/workload.mk
