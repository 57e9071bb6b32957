# tests/: end-to-end scripts that run the dsec binary (TAP).
TESTS += tests/e2e-run.sh
EXTRA_DIST += tests/e2e-run.sh tests/data/e2e
