"""The small YAML emitter that writes dict scenarios."""

import math

import pytest

import dsec
from dsec import _yaml

DOC = {
    "name": "emitted",
    "workload": {
        "synthetic": {
            "arrival": {"process": "poisson", "rate_per_s": 0.5},
            "requests": 300,
            "prompt_tokens": {"dist": "fixed", "value": 1},
            "output_tokens": {"dist": "fixed", "value": 1},
        }
    },
    "server": {"kind": "abstract", "service": {"dist": "exponential", "mean_s": "1s"},
               "concurrency": 1},
    "cluster": {"replicas": 1},
    "faults": {"scripted": [{"at": "5min"}, {"at": "12min", "kind": "node"}]},
}


def test_scalars():
    assert _yaml.scalar(True) == "true"
    assert _yaml.scalar(False) == "false"
    assert _yaml.scalar(None) == "null"
    assert _yaml.scalar(12) == "12"
    assert _yaml.scalar(0.5) == "0.5"
    assert _yaml.scalar("10min") == "10min"
    assert _yaml.scalar("s3://models/deepseek-v3") == "s3://models/deepseek-v3"
    for s in ("true", "no", "12", "-1", "1e6", "null", "a: b", "x #y", "", "- a", "[x]", "{y}"):
        assert _yaml.scalar(s).startswith('"'), s
    assert _yaml.scalar('say "hi"\n') == '"say \\"hi\\"\\n"'
    with pytest.raises(ValueError):
        _yaml.scalar(math.inf)
    with pytest.raises(TypeError):
        _yaml.scalar(object())


def test_block_and_flow_layout():
    text = _yaml.dump({"a": {"b": [1, {"c": "x", "d": [2, 3]}], "e": {}}})
    assert text == "a:\n  b:\n    - 1\n    - c: x\n      d:\n        - 2\n        - 3\n  e: {}\n"
    assert _yaml.flow({"a": [1, "b: c"], "d": True}) == '{a: [1, "b: c"], d: true}'


def test_round_trip_through_pyyaml():
    yaml = pytest.importorskip("yaml")
    odd = dict(DOC, notes=["true", "12", "a: b", "x #y", "quote \"q\"", "tab\there", "-x", "90%"])
    assert yaml.safe_load(_yaml.dump(odd)) == odd
    assert yaml.safe_load(_yaml.flow(odd)) == odd


def test_the_c_loader_reads_a_dict_scenario():
    sc = dsec.Scenario.from_dict(DOC)
    assert sc.name == "emitted"
    assert sc.validate() == []
    assert "scripted:\n    - at: 5min\n    - at: 12min\n      kind: node\n" in sc.text()
    res = dsec.run(DOC)
    assert res["requests_completed"] == 300
    assert res["scenario"] == "emitted"
