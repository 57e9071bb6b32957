"""Shared fixtures of the dsec package's tests.

The tests find the source tree through the environment variable
top_srcdir (set by `make check`), else relative to this file; the C
policy plug-in through DSEC_PLUGIN_DIR (tests that need it skip without
it); libdsec through DSEC_LIBRARY or the package's own lookup.
"""

import os
from typing import Optional

import pytest

SRCDIR = os.path.abspath(
    os.environ.get("top_srcdir")
    or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
)

#: Wall-clock fields of results, which differ between identical runs.
RUN_TIME_FIELDS = ("wall_s", "events_per_s")


def src(*parts: str) -> str:
    """A path in the source tree."""
    return os.path.join(SRCDIR, *parts)


def without_run_time(results: dict, also=()) -> dict:
    """The results without the fields that measure wall time."""
    drop = set(also)
    return {k: v for k, v in results.items()
            if k not in drop and not any(w in k for w in ("wall", "events_per_s"))}


def plugin_path(name: str = "libqueue_step.so") -> Optional[str]:
    d = os.environ.get("DSEC_PLUGIN_DIR")
    if not d:
        return None
    p = os.path.join(d, name)
    return os.path.abspath(p) if os.path.isfile(p) else None


@pytest.fixture
def srcdir() -> str:
    return SRCDIR


@pytest.fixture
def compare_small() -> str:
    """A small elastic scenario (Llama-3.1-8B on H100, 2..8 GPUs, 6 min)."""
    return src("tests", "data", "e2e", "compare-small.yaml")
