"""Runs, results, overrides, seeds."""

import math

import pytest

import dsec
from conftest import src, without_run_time

MM1 = src("scenarios", "mm1.yaml")


def test_mm1_mean_sojourn_is_one_over_mu_minus_lambda():
    lam, mu = 0.5, 1.0
    res = dsec.run(MM1, overrides={"workload.synthetic.requests": 50000,
                                   "workload.synthetic.arrival.rate_per_s": lam})
    expected_ms = 1000.0 / (mu - lam)  # M/M/1: W = 1 / (mu - lambda)
    e2e = res["e2e_ms"]
    assert e2e["n"] > 40000
    assert abs(e2e["mean"] - expected_ms) < 0.05 * expected_ms
    # and the queueing delay alone: Wq = rho / (mu - lambda)
    assert abs(res["queue_ms"]["mean"] - 1000.0 * (lam / mu) / (mu - lam)) < 0.1 * expected_ms
    assert res.get_field("e2e_ms.mean") == pytest.approx(e2e["mean"])


def test_overrides_as_strings_and_the_scenario_stays_unchanged():
    sc = dsec.Scenario.from_file(MM1)
    res = dsec.run(sc, overrides=["workload.synthetic.requests=2000"])
    assert res["requests_completed"] == 2000
    assert sc.overrides == []
    assert "requests: 1000000" in sc.text()
    sc.set("workload.synthetic.requests", 1500).set("workload.synthetic.arrival.rate_per_s=0.8")
    assert sc.overrides == ["workload.synthetic.requests=1500",
                            "workload.synthetic.arrival.rate_per_s=0.8"]
    assert "1500" in sc.text()
    assert dsec.run(sc)["requests_completed"] == 1500
    sc.clear_overrides()
    assert sc.overrides == []


def test_same_seed_same_json_other_seed_other_results():
    ov = {"workload.synthetic.requests": 3000}
    a = dsec.run(MM1, overrides=ov, seed=11)
    b = dsec.run(MM1, overrides=ov, seed=11)
    c = dsec.run(MM1, overrides=ov, seed=12)
    assert a["seed"] == 11 and c["seed"] == 12
    assert without_run_time(a) == without_run_time(b)
    assert a["e2e_ms"]["mean"] != c["e2e_ms"]["mean"]
    sc = dsec.Scenario.from_file(MM1)
    assert sc.seed == 1  # mm1.yaml's seed:
    sc.seed = 11
    assert sc.seed == 11
    assert without_run_time(dsec.run(sc, overrides=ov)) == without_run_time(a)


def test_results_fields_and_get_field():
    res = dsec.run(MM1, overrides={"workload.synthetic.requests": 1000})
    names = dsec.Results.fields()
    assert "ttft_ms.p99" in names and "requests_completed" in names
    assert res.get_field("requests_completed") == 1000.0
    assert res.get_field("ttft_ms.p99") == pytest.approx(res["ttft_ms"]["p99"])
    assert math.isnan(res.get_field("recovery_s_mean")) or res["recovery_s_mean"] is not None
    with pytest.raises(dsec.DSecError) as ei:
        res.get_field("no_such_field")
    assert ei.value.code == -6  # DSEC_ENOTFOUND
    assert isinstance(res, dict)
    assert '"requests_completed": 1000' in res.to_json(pretty=True)


def test_run_from_yaml_text_and_validate():
    text = ("name: tiny\nworkload:\n  synthetic:\n    arrival: {rate_per_s: 2}\n"
            "    requests: 100\nserver:\n  kind: abstract\n"
            "  service: {dist: exponential, mean_s: 100ms}\n")
    assert dsec.validate(text) == []
    res = dsec.run(text)
    assert res["scenario"] == "tiny"
    assert res["requests_completed"] == 100
    assert dsec.Scenario.of(text).name == "tiny"
    assert dsec.Scenario.of(MM1).name == "mm1"


def test_validate_returns_notes():
    doc = {"name": "vb", "model": "llama-3.1-8b",
           "workload": {"vllm_bench": {"num_prompts": 50, "request_rate": 5}},
           "hardware": {"gpu": "h100"}, "deploy": {"tp": 1}, "cluster": {"replicas": 1}}
    notes = dsec.validate(doc)
    assert len(notes) == 1
    assert notes[0].startswith("<dict>:4:3: note: workload.vllm_bench.ignore_eos: false")
    assert dsec.validate(src("scenarios", "seed-dsec.yaml")) == []


def test_threads_share_a_scenario_safely():
    import threading

    sc = dsec.Scenario.from_file(MM1)
    sc.set("workload.synthetic.requests", 5000)
    out = [None] * 6
    errors = []

    def work(i):
        try:
            out[i] = without_run_time(dsec.run(sc if i % 2 else MM1,
                                               overrides=None if i % 2 else
                                               {"workload.synthetic.requests": 5000}))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(out))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(o == out[0] for o in out)
    assert out[0]["requests_completed"] == 5000
