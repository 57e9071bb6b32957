"""Scaling policies written in Python, through the policy ABI."""

import math

import pytest

import dsec
from conftest import plugin_path, without_run_time


class QueueStep(dsec.Policy):
    """contrib/policy-plugin/queue_step.c's rule, line for line: add step
    replicas when more than up_waiting requests wait per serving replica,
    remove one when none waits and the mean KV usage is below down_kv."""

    name = "queue-step-py"

    def __init__(self, up_waiting: float = 4.0, down_kv: float = 0.3, step: int = 1):
        self.up_waiting = up_waiting
        self.down_kv = down_kv
        self.step = step

    def decide(self, s: dsec.Snapshot) -> int:
        current = s.ready + s.pending
        per = s.num_waiting / (s.ready if s.ready > 0 else 1)
        if per > self.up_waiting:
            return current + self.step
        if s.num_waiting == 0 and s.kv_usage_mean < self.down_kv:
            return current - 1
        return current


BUSY = {"workload.synthetic.arrival.rate_per_s": 30}


def test_python_queue_step_equals_the_c_plugin(compare_small):
    so = plugin_path()
    if so is None:
        pytest.skip("DSEC_PLUGIN_DIR with libqueue_step.so not set (make check sets it)")
    py = dsec.run(compare_small, policy=QueueStep(up_waiting=1), overrides=BUSY, seed=3)
    c = dsec.run(compare_small, seed=3, overrides=dict(BUSY, **{
        "policy.plugin": so, "policy.name": "queue-step", "policy.params.up_waiting": 1}))
    assert py["policy"] == "queue-step-py" and c["policy"] == "queue-step"
    assert py["scale_events"] > 0  # the rule was exercised
    assert py["replicas"]["max"] > py["replicas"]["min"]
    assert without_run_time(py, also=("policy",)) == without_run_time(c, also=("policy",))
    # the defaults (up_waiting 4) too
    py4 = dsec.run(compare_small, policy=QueueStep, overrides=BUSY)
    c4 = dsec.run(compare_small, overrides=dict(BUSY, **{
        "policy.plugin": so, "policy.name": "queue-step"}))
    assert without_run_time(py4, also=("policy",)) == without_run_time(c4, also=("policy",))


def test_snapshot_has_the_c_field_names(compare_small):
    seen = []

    class Recorder(dsec.Policy):
        name = "recorder"

        def decide(self, s):
            seen.append(s)
            return None  # keep the size

    res = dsec.run(compare_small, policy=Recorder)
    assert res["policy"] == "recorder"
    assert res["scale_events"] <= 1
    assert len(seen) > 10
    s = seen[-1]
    from dsec._lib import ffi
    c_fields = [n for n, _ in ffi.typeof("struct pol_snapshot").fields]
    assert list(dsec.Snapshot.__slots__) == c_fields
    for name in ("ready", "pending", "num_waiting", "kv_usage_mean", "arrival_rate_per_s",
                 "target_itl_s", "nreplicas", "npools", "role"):
        assert hasattr(s, name)
    assert s.api_version == 1 and s.interval_s == 10.0
    assert s.min_replicas == 2 and s.max_replicas == 8
    # slo.tpot_ms (40 ms) when set, else cluster.target_latency_ms (30 ms)
    assert s.target_itl_s == pytest.approx(0.040)
    assert s.target_ttft_s == pytest.approx(1.0)
    assert s.nreplicas == len(s.replicas) and s.npools == len(s.pools) == 1
    assert s.pools[0].name == "local" and s.pools[0].capacity_replicas == 8
    r = s.replicas[0]
    assert set(dsec.Replica.__slots__) >= {"pool", "state", "num_running", "kv_usage", "ttft_p99_s"}
    assert r.pool == 0 and r.state in (0, 1, 2)
    assert 0.0 <= r.kv_usage <= 1.0
    assert s.as_dict()["pools"][0]["name"] == "local"
    times = [x.now_s for x in seen]
    assert times == sorted(times)


def test_each_run_gets_a_fresh_policy_object(compare_small):
    class Counter(dsec.Policy):
        name = "counter"

        def __init__(self):
            self.calls = 0

        def decide(self, s):
            self.calls += 1
            return (s.ready + s.pending, 0)

    proto = Counter()
    a = dsec.run(compare_small, policy=proto)
    b = dsec.run(compare_small, policy=proto)
    assert proto.calls == 0  # runs use deep copies
    assert without_run_time(a) == without_run_time(b)


def test_decision_forms(compare_small):
    answers = {
        "int": lambda s: s.ready + s.pending + 1,
        "tuple": lambda s: (s.ready + s.pending + 1, 0, "finish"),
        "dict": lambda s: {"desired": s.ready + s.pending + 1, "drain": 1},
        "object": lambda s: dsec.Decision(s.ready + s.pending + 1, borrow=0),
    }
    results = {}
    for kind, f in answers.items():
        P = type("P_" + kind, (dsec.Policy,), {"name": "grow-" + kind,
                                               "decide": lambda self, s, f=f: f(s)})
        results[kind] = dsec.run(compare_small, policy=P)
        assert results[kind]["replicas"]["max"] == 8, kind  # grows to the bound
    base = without_run_time(results["int"], also=("policy",))
    for kind in ("tuple", "dict", "object"):
        assert without_run_time(results[kind], also=("policy",)) == base, kind


def test_an_exception_in_decide_surfaces_after_the_run(compare_small):
    class Boom(dsec.Policy):
        name = "boom"

        def __init__(self):
            self.n = 0

        def decide(self, s):
            self.n += 1
            if self.n == 3:
                raise ZeroDivisionError("boom at the third evaluation")
            return s.ready + s.pending

    with pytest.raises(dsec.DSecError) as ei:
        dsec.run(compare_small, policy=Boom)
    assert isinstance(ei.value.__cause__, ZeroDivisionError)
    assert "policy boom: ZeroDivisionError: boom at the third evaluation" in str(ei.value)
    # the library is fine afterwards
    assert dsec.run(compare_small)["requests_completed"] > 0


def test_bad_answers_and_constructors_are_reported(compare_small):
    class Words(dsec.Policy):
        name = "words"

        def decide(self, s):
            return "more"

    with pytest.raises(dsec.DSecError) as ei:
        dsec.run(compare_small, policy=Words)
    assert isinstance(ei.value.__cause__, dsec.PolicyError)
    assert "desired must be an int" in str(ei.value)

    class NoInit(dsec.Policy):
        def __init__(self):
            raise RuntimeError("cannot start")

        def decide(self, s):
            return 1

    with pytest.raises(dsec.DSecError) as ei:
        dsec.run(compare_small, policy=NoInit)
    assert isinstance(ei.value.__cause__, RuntimeError)
    with pytest.raises(TypeError):
        dsec.run(compare_small, policy=object())


def test_python_policy_in_compare_on_threads(compare_small):
    calls = []

    class Grow(dsec.Policy):
        name = "grow-when-waiting"

        def decide(self, s):
            calls.append(s.now_s)
            return s.ready + s.pending + (1 if s.num_waiting > 0 else 0)

    one = dsec.compare(compare_small, [Grow, "target-latency"], replications=3, jobs=1)
    n1 = len(calls)
    two = dsec.compare(compare_small, [Grow, "target-latency"], replications=3, jobs=2)
    assert one == two
    assert one["policies"][0]["name"] == "grow-when-waiting"
    assert n1 > 0 and len(calls) == 2 * n1


def test_python_policy_in_a_session(compare_small):
    class Max(dsec.Policy):
        name = "max"

        def decide(self, s):
            return s.max_replicas

    with dsec.Session(compare_small, policy=Max) as s:
        s.advance("3min")
        st = s.state()
        assert st["desired"] == 8
        res = s.close(finish=True)
    assert res["policy"] == "max"
    assert math.isclose(res["replicas"]["max"], 8)


def test_read_decision_forms_and_borrow():
    from dsec.policy import read_decision

    class Plain:
        pass

    class WithBorrow:
        borrow = 2

    class BorrowMethod:
        def borrow(self, s):
            return s

    p = Plain()
    assert read_decision(p, None, None) is None
    assert read_decision(p, None, 5) == (5, None, 0)
    assert read_decision(p, None, 5.0) == (5, None, 0)
    assert read_decision(p, None, (5, 1)) == (5, 1, 0)
    assert read_decision(p, None, [5, 1, "migrate"]) == (5, 1, 2)
    assert read_decision(p, None, {"desired": 3, "drain": "finish"}) == (3, None, 1)
    assert read_decision(p, None, dsec.Decision(4, 1, 2)) == (4, 1, 2)
    assert read_decision(WithBorrow(), None, 6) == (6, 2, 0)
    assert read_decision(WithBorrow(), None, (6, 0)) == (6, 0, 0)
    assert read_decision(BorrowMethod(), 3, 6) == (6, 3, 0)
    for bad in (5.5, "5", (1, 2, 3, 4), {"borrow": 1}, {"desired": 1, "x": 2},
                (1, -1), (1, 0, "sideways"), (1, 0, 7)):
        with pytest.raises(dsec.PolicyError):
            read_decision(p, None, bad)
