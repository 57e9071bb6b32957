"""Every ```python block of docs/python.md runs, in order, in one
namespace, from a temporary folder where scenarios/ is the source tree's
scenarios folder (as in a checkout or next to installed scenarios)."""

import contextlib
import io
import os
import re

import pytest

from conftest import src

DOC = src("docs", "python.md")
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    out = []
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start(1)) + 1
        out.append((line, m.group(1)))
    return out


def test_docs_have_python_blocks():
    found = blocks()
    assert len(found) >= 10
    assert any("DSecOrchestrator(config)" in b for _, b in found)


def test_docs_python_blocks_run(tmp_path, monkeypatch):
    os.symlink(src("scenarios"), tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    ns = {"__name__": "__docs__"}
    out = io.StringIO()
    for line, code in blocks():
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{DOC}:{line}", "exec"), ns)
        except Exception as e:  # name the block that failed
            pytest.fail(f"docs/python.md block at line {line}: {type(e).__name__}: {e}")
    printed = out.getvalue()
    # what the walk-through shows happened
    assert "expected 2000" in printed
    assert ns["results"]["requests_completed"] > 2000
    assert "weight_dtype: int4" in ns["orchestrator"].scenario()
    assert ns["res"]["policy"] == "queue-step-py" and ns["res"]["scale_events"] > 0
    assert "typo.yaml:5:5: error: workload.synthetic.arival: unknown key" in printed
    assert "ZeroDivisionError" in printed
    assert (tmp_path / "seed-30min.json").stat().st_size > 1000
    assert ns["partial"]["sim_time_s"] == pytest.approx(600.0)  # advance() is to a time
