"""Sessions: a run advanced step by step, as the digital twin does."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, Optional, Union

from ._errors import DSecError, new_err
from ._lib import DSEC_SESSION_EXTERNAL, ffi, lib, take_string
from .policy import PolicyLike
from .scenario import Results, ScenarioLike, _finish, _prepared

__all__ = ["Session", "seconds"]

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
          "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*([a-zµ]*)\s*$")


def seconds(t: Union[int, float, str]) -> float:
    """A duration in seconds: a number, or text with the scenario units
    ("90s", "10min", "1.5h", "500ms")."""
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        return float(t)
    if isinstance(t, str):
        m = _DURATION.match(t)
        if m and (m.group(2) or "s") in _UNITS:
            return float(m.group(1)) * _UNITS[m.group(2) or "s"]
        if t.strip() in ("inf", "end"):
            return math.inf
    raise ValueError(f"not a duration: {t!r} (a number of seconds, or 90s, 10min, 2h)")


class Session:
    """A run of a scenario advanced step by step (``dsec_session_*``).

    ``external=True`` never asks the policy: :meth:`set_desired` sizes the
    cluster, as the digital twin's Scale API does. Use it as a context
    manager, or call :meth:`close`, which returns the :class:`Results`.
    """

    def __init__(self, scenario: ScenarioLike, external: bool = False,
                 overrides: Any = None, seed: Optional[int] = None,
                 policy: Optional[PolicyLike] = None) -> None:
        self._sc = _prepared(scenario, overrides, seed, policy)
        out = ffi.new("dsec_session **")
        err = new_err()
        with self._sc._lock:
            rc = lib.dsec_session_open(self._sc._c,
                                       DSEC_SESSION_EXTERNAL if external else 0, out, err)
            _finish(self._sc, rc, err)
        self._ss = out[0]
        self.external = external
        self.results: Optional[Results] = None

    @classmethod
    def open(cls, scenario: ScenarioLike, external: bool = False, **kw: Any) -> "Session":
        """Opens a session at simulated time 0 (as the constructor)."""
        return cls(scenario, external=external, **kw)

    def _live(self):
        if self._ss is None:
            raise DSecError("error: the session is closed", -2)
        return self._ss

    def advance(self, t: Union[int, float, str]) -> float:
        """Runs every event up to and including simulated time t (seconds
        or a duration such as "10min"; "end" or math.inf: to the end).
        Returns the clock."""
        ss = self._live()
        err = new_err()
        rc = lib.dsec_session_advance(ss, seconds(t), err)
        _finish(self._sc, rc, err)
        return lib.dsec_session_now(ss)

    @property
    def now(self) -> float:
        """The simulated clock, in seconds."""
        return lib.dsec_session_now(self._live())

    def set_desired(self, n: int) -> int:
        """External sessions: sets the desired replicas now; returns the
        count clamped to the scenario's bounds."""
        rc = lib.dsec_session_set_desired(self._live(), int(n))
        if rc < 0:
            raise DSecError("error: set_desired() needs a session opened with "
                            "external=True", rc)
        return rc

    def state(self) -> Dict[str, Any]:
        """The cluster and every replica now (now_s, desired, serving,
        pending, ..., replicas: [...])."""
        return json.loads(take_string(lib.dsec_session_state_json(self._live())))

    def close(self, finish: bool = False) -> Results:
        """Ends the run and returns its results (a second call returns the
        same results). finish=False ends it at the clock: the results
        cover the simulated time so far, as dsec_session_close() does.
        finish=True first runs it to its end, so the results are those of
        a whole run (dsec.run())."""
        if self._ss is None:
            if self.results is None:
                raise DSecError("error: the session is closed", -2)
            return self.results
        if finish:
            self.advance(math.inf)
        ss, self._ss = self._ss, None
        out = ffi.new("dsec_results **")
        err = new_err()
        rc = lib.dsec_session_close(ss, out, err)
        _finish(self._sc, rc, err, out[0])
        self.results = Results(out[0])
        return self.results

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._ss is not None:
            ss, self._ss = self._ss, None
            lib.dsec_session_close(ss, ffi.NULL, ffi.NULL)

    def __del__(self) -> None:
        ss = getattr(self, "_ss", None)
        if ss is not None:
            self._ss = None
            try:
                lib.dsec_session_close(ss, ffi.NULL, ffi.NULL)
            except Exception:  # pragma: no cover - interpreter shutdown
                pass
