# models/train/: training jobs on the elastic cluster (issue #10).
models_libmodels_la_SOURCES += models/train/train.c models/train/train.h \
	models/train/config.h models/train/config.c

check_PROGRAMS += tests/check_models_train
TESTS += tests/check_models_train
tests_check_models_train_SOURCES = tests/check_models_train.c
tests_check_models_train_CFLAGS = $(DSEC_TEST_CFLAGS)
tests_check_models_train_LDADD = $(DSEC_TEST_LIBS)

TESTS += tests/e2e-train.sh
EXTRA_DIST += tests/e2e-train.sh tests/data/train/small.yaml \
	tests/data/train/bad.yaml tests/data/train/bad-recovery.yaml
dist_dsecdata_DATA += scenarios/training-405b-1024.yaml \
	scenarios/training-mixed-diurnal.yaml scenarios/training-405b-recovery.yaml
