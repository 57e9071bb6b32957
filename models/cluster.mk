# models/cluster.mk
