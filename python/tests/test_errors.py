"""Errors: every failing call raises DSecError with the C diagnostics."""

import re

import pytest

import dsec
from conftest import src

LOC = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: ")

GOOD = """name: s
workload:
  synthetic:
    arrival: {rate_per_s: 1}
    requests: 10
server:
  kind: abstract
  service: {dist: exponential, mean_s: 1}
"""


def test_unknown_key_in_a_string_scenario_has_file_line_col():
    bad = GOOD.replace("    requests: 10\n", "    requests: 10\n    bogus_key: 3\n")
    sc = dsec.Scenario.from_string(bad, name="bad.yaml")
    with pytest.raises(dsec.DSecError) as ei:
        sc.validate()
    e = ei.value
    assert e.code == -2  # DSEC_EINVAL
    assert len(e.messages) == 1
    m = LOC.match(e.messages[0])
    assert m and m.group("file") == "bad.yaml"
    assert (m.group("line"), m.group("col")) == ("6", "5")
    assert "workload.synthetic.bogus_key: unknown key" in str(e)
    with pytest.raises(dsec.DSecError):
        dsec.run(sc)


def test_every_error_is_reported():
    bad = GOOD.replace("requests: 10", "requests: 0").replace("mean_s: 1", "mean_s: -1")
    with pytest.raises(dsec.DSecError) as ei:
        dsec.validate(dsec.Scenario.from_string(bad, name="two.yaml"))
    errs = ei.value.errors
    assert len(errs) == 2
    assert all(LOC.match(x) and x.startswith("two.yaml:") for x in errs)


def test_yaml_syntax_error_is_raised_at_load_with_its_position():
    with pytest.raises(dsec.DSecError) as ei:
        dsec.Scenario.from_string("name: x\nworkload: [a, b\n", name="syntax.yaml")
    assert ei.value.code == -4  # DSEC_EPARSE
    m = LOC.match(ei.value.messages[0])
    assert m and m.group("file") == "syntax.yaml" and m.group("line") == "3"
    with pytest.raises(dsec.DSecError) as ei:
        dsec.run(src("tests", "data", "e2e", "bad-syntax.yaml"))
    assert ei.value.code == -4
    assert LOC.match(ei.value.messages[0])
    assert "bad-syntax.yaml:" in ei.value.messages[0]


def test_override_errors():
    # The form is checked when the override is added ...
    sc = dsec.Scenario.from_string(GOOD, name="o.yaml")
    with pytest.raises(dsec.DSecError) as ei:
        sc.set("no-equals-sign")
    assert "KEY=VALUE" in str(ei.value)
    # ... the key and value when it is applied. libdsec reports these
    # without a file:line:col (the override is no line of the file); the
    # message names the override and the key.
    with pytest.raises(dsec.DSecError) as ei:
        dsec.run(sc, overrides={"cluster.replicas": "2x"})
    assert ei.value.code == -2
    assert ei.value.messages == [
        "error: override cluster.replicas=2x: cluster.replicas: expected an integer, got '2x'"]
    with pytest.raises(dsec.DSecError) as ei:
        dsec.validate(sc, overrides=["workload.synthetic.nokey=1"])
    assert "workload.synthetic.nokey: unknown key" in str(ei.value)
    # an override whose value is fine but whose consequence is not: the
    # error points into the scenario
    with pytest.raises(dsec.DSecError) as ei:
        dsec.validate(sc, overrides={"server.kind": "llm"})
    assert ei.value.messages and all(m.startswith(("o.yaml", "error:")) for m in ei.value.messages)


def test_missing_file_is_eio():
    with pytest.raises(dsec.DSecError) as ei:
        dsec.run("no/such/scenario.yaml")
    assert ei.value.code == -3  # DSEC_EIO
    assert ei.value.messages == ["no/such/scenario.yaml: error: cannot open: No such file or directory"]


def test_infeasible_layout_is_einfeasible():
    with pytest.raises(dsec.DSecError) as ei:
        dsec.validate(src("tests", "data", "e2e", "infeasible.yaml"))
    assert ei.value.code == -8  # DSEC_EINFEASIBLE
    assert "error:" in str(ei.value)


def test_bad_arguments_are_python_errors():
    with pytest.raises(TypeError):
        dsec.run(12345)
    with pytest.raises(ValueError):
        dsec.Scenario.from_string(GOOD).seed = -1
