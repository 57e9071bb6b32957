"""Sessions: a run stepped as the digital twin steps it."""

import math

import pytest

import dsec
from conftest import without_run_time


def test_stepping_and_state(compare_small):
    with dsec.Session(compare_small) as s:
        assert s.now == 0.0
        assert s.advance(60) == pytest.approx(60.0)
        assert s.now == pytest.approx(60.0)
        st = s.state()
        assert st["now_s"] == pytest.approx(60.0)
        assert st["serving"] == 2 == len(st["replicas"])
        assert {"serial", "pool", "state", "num_running", "num_waiting", "kv_usage"} <= set(st["replicas"][0])
        assert st["replicas"][0]["pool"] == "local"
        assert 0 < st["completed"] <= st["arrived"]
        s.advance("2min")
        assert s.now == pytest.approx(120.0)
        s.advance(30)  # before the clock: a no-op
        assert s.now == pytest.approx(120.0)
        with pytest.raises(dsec.DSecError):
            s.set_desired(4)  # not external
        res = s.close(finish=True)
    whole = dsec.run(compare_small)
    assert without_run_time(res) == without_run_time(whole)
    assert res["requests_completed"] > 0


def test_close_without_finish_ends_at_the_clock(compare_small):
    s = dsec.Session.open(compare_small)
    s.advance(60)
    part = s.close()
    assert part["sim_time_s"] == pytest.approx(60.0)
    assert part["requests_arrived"] < dsec.run(compare_small)["requests_arrived"]
    assert s.close() is part
    with pytest.raises(dsec.DSecError, match="closed"):
        s.advance(90)


def test_external_session_is_sized_by_the_caller(compare_small):
    with dsec.Session(compare_small, external=True) as s:
        s.advance(10)
        assert s.set_desired(6) == 6
        assert s.set_desired(100) == 8  # clamped to max_gpus / gpus_per_replica
        assert s.state()["desired"] == 8
        s.advance(120)
        st = s.state()
        assert st["serving"] + st["pending"] == 8
        res = s.close(finish=True)
    assert res["replicas"]["max"] == 8


def test_seconds():
    assert dsec.seconds(90) == 90.0
    assert dsec.seconds("1.5h") == 5400.0
    assert dsec.seconds("500ms") == 0.5
    assert dsec.seconds("10min") == 600.0
    assert math.isinf(dsec.seconds("end"))
    with pytest.raises(ValueError):
        dsec.seconds("10 parsecs")
