# python/: the Python package dsec (docs/python.md), a cffi binding of
# libdsec in ABI mode (nothing compiled). Installed under $(pythondir)/dsec
# when configure finds a Python 3, with a generated _config.py that records
# the installed libdir for the library lookup. Its pytest suite runs from
# tests/python.sh (TAP), which skips without cffi or pytest.
DSEC_PY_FILES = python/dsec/__init__.py python/dsec/_errors.py \
	python/dsec/_lib.py python/dsec/_yaml.py python/dsec/orchestrator.py \
	python/dsec/policy.py python/dsec/scenario.py python/dsec/session.py
DSEC_PY_TESTS = python/tests/conftest.py python/tests/test_compare.py \
	python/tests/test_docs.py python/tests/test_errors.py \
	python/tests/test_lib.py python/tests/test_orchestrator.py \
	python/tests/test_policy.py python/tests/test_run.py \
	python/tests/test_session.py python/tests/test_yaml.py

TESTS += tests/python.sh
EXTRA_DIST += tests/python.sh $(DSEC_PY_FILES) $(DSEC_PY_TESTS)

if HAVE_PYTHON
dsecpydir = $(pythondir)/dsec
dsecpy_PYTHON = $(DSEC_PY_FILES)
nodist_dsecpy_PYTHON = python/dsec/_config.py
noinst_DATA = python/dsec/_config.py
endif

# Written in the build tree: the source tree's package works without it.
python/dsec/_config.py: Makefile
	$(AM_V_GEN)$(MKDIR_P) python/dsec && \
	{ echo '"""Written by make (python/local.mk): where libdsec is installed."""'; \
	  echo 'LIBDIR = "$(libdir)"'; } >$@-t && mv $@-t $@
CLEANFILES += python/dsec/_config.py python/dsec/_config.py-t
