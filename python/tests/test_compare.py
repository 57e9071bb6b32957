"""Comparisons of policies (dsec_compare_json)."""

import pytest

import dsec

POLICIES = ["static:replicas=4", "target-latency"]


def test_compare_two_builtin_policies_jobs_1_equals_jobs_2(compare_small):
    one = dsec.compare(compare_small, POLICIES, replications=3, jobs=1)
    two = dsec.compare(compare_small, POLICIES, replications=3, jobs=2)
    assert one == two
    assert one["scenario"] == "compare-small"
    assert one["replications"] == 3
    assert one["seed"] == 7  # the scenario's seed
    assert [p["label"] for p in one["policies"]] == POLICIES
    static = one["policies"][0]["metrics"]
    assert len(static["gpu_hours"]["values"]) == 3
    # 4 replicas x 1 GPU for about 6 minutes
    assert 0.3 < static["gpu_hours"]["mean"] < 0.5
    assert one["policies"][0]["diff_vs_first"] is None
    assert one["policies"][1]["diff_vs_first"] is not None


def test_compare_seed_and_overrides(compare_small):
    c = dsec.compare(compare_small, POLICIES, replications=2, seed=100, jobs=1,
                     overrides={"workload.synthetic.duration": "3min"})
    assert c["seed"] == 100
    full = dsec.compare(compare_small, POLICIES, replications=2, seed=100, jobs=1)
    assert (c["policies"][0]["metrics"]["gpu_hours"]["mean"]
            < full["policies"][0]["metrics"]["gpu_hours"]["mean"])


def test_compare_errors(compare_small, srcdir):
    with pytest.raises(dsec.DSecError, match="replications"):
        dsec.compare(compare_small, POLICIES, replications=0)
    # One replication runs, as dsec compare --replications 1 does.
    one = dsec.compare(compare_small, POLICIES, replications=1, jobs=1)
    assert one["replications"] == 1
    with pytest.raises(dsec.DSecError, match="no-such-policy"):
        dsec.compare(compare_small, ["no-such-policy"], replications=2)
    with pytest.raises(dsec.DSecError, match="elastic"):
        dsec.compare(srcdir + "/scenarios/mm1.yaml", ["hpa"], replications=2)
