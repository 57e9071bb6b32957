"""Scaling policies written in Python, run by libdsec through the policy ABI
(include/dsec/policy.h).

A policy subclasses :class:`Policy` and implements ``decide(snapshot)``.
The bridge builds a ``struct pol_entry`` and its ``struct pol_ops`` in C
memory whose create/destroy/decide are cffi callbacks: each run creates a
fresh Python policy object (``cls()`` for a class, ``copy.deepcopy()`` of
an instance), so runs never share state, and each evaluation converts the
C snapshot into a :class:`Snapshot` whose attributes carry the C field
names.
"""

from __future__ import annotations

import copy
import operator
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ._lib import POL_API_VERSION, ffi

__all__ = ["Policy", "Decision", "Snapshot", "Replica", "Pool", "PolicyError"]

#: enum pol_drain by name.
DRAIN = {"default": 0, "finish": 1, "migrate": 2}
#: enum pol_replica_state
PENDING, READY, DRAINING = 0, 1, 2
#: enum pol_role
ROLE_ALL, ROLE_PREFILL, ROLE_DECODE = 0, 1, 2


def _fields(ctype: str) -> Tuple[str, ...]:
    return tuple(name for name, _ in ffi.typeof(ctype).fields)


class _Record:
    """A read-only-by-convention record with the fields of a C struct."""

    __slots__: Tuple[str, ...] = ()

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({inner})"

    def as_dict(self) -> Dict[str, Any]:
        """The fields as a dict (replicas and pools as lists of dicts)."""
        out: Dict[str, Any] = {}
        for k in self.__slots__:
            v = getattr(self, k)
            if isinstance(v, list):
                v = [x.as_dict() for x in v]
            out[k] = v
        return out


class Replica(_Record):
    """One replica's metrics: the fields of ``struct pol_replica``
    (``pool``, ``state``, ``age_s``, ``num_running``, ``num_waiting``,
    ``kv_usage``, ...). NaN means "not available"."""

    __slots__ = _fields("struct pol_replica")


class Pool(_Record):
    """One GPU pool: the fields of ``struct pol_pool`` (``name`` as str)."""

    __slots__ = _fields("struct pol_pool")


class Snapshot(_Record):
    """What a policy sees at one evaluation: every field of
    ``struct pol_snapshot`` under its C name (``now_s``, ``ready``,
    ``pending``, ``num_waiting``, ``kv_usage_mean``, ``arrival_rate_per_s``,
    ``target_itl_s``, ...), with ``replicas`` a list of :class:`Replica`
    and ``pools`` a list of :class:`Pool`. Copies: keeping one after
    ``decide`` returns is safe."""

    __slots__ = _fields("struct pol_snapshot")

    @classmethod
    def from_c(cls, s) -> "Snapshot":
        """Copies a ``const struct pol_snapshot *``."""
        self = cls.__new__(cls)
        for k in cls.__slots__:
            if k == "replicas":
                reps = []
                for i in range(s.nreplicas):
                    r = s.replicas[i]
                    o = Replica.__new__(Replica)
                    for f in Replica.__slots__:
                        setattr(o, f, getattr(r, f))
                    reps.append(o)
                self.replicas = reps
            elif k == "pools":
                pools = []
                for i in range(s.npools):
                    p = s.pools[i]
                    o = Pool.__new__(Pool)
                    for f in Pool.__slots__:
                        v = getattr(p, f)
                        if f == "name":
                            v = ffi.string(v).decode() if v != ffi.NULL else ""
                        setattr(o, f, v)
                    pools.append(o)
                self.pools = pools
            else:
                setattr(self, k, getattr(s, k))
        return self


class Decision:
    """A decision: ``desired`` replicas, ``borrow`` of the added ones from
    borrowable pools, ``drain`` ("default", "finish", "migrate" or
    enum pol_drain's value) for the replicas it removes."""

    __slots__ = ("desired", "borrow", "drain")

    def __init__(self, desired: int, borrow: int = 0,
                 drain: Union[int, str] = 0) -> None:
        self.desired = desired
        self.borrow = borrow
        self.drain = drain

    def __repr__(self) -> str:
        return f"Decision(desired={self.desired!r}, borrow={self.borrow!r}, drain={self.drain!r})"


class Policy:
    """Base class of scaling policies written in Python.

    Set ``name`` (how results and messages name the policy) and implement
    :meth:`decide`. It returns the desired number of replicas as an int,
    or ``(desired, borrow)`` / ``(desired, borrow, drain)``, or a dict or
    object with ``desired`` and optionally ``borrow`` and ``drain``, or
    None to keep the current size. When the answer has no borrow, the
    policy's ``borrow`` attribute (an int) or method ``borrow(snapshot)``
    gives it. dsec's guard rails (cooldowns, step limits, clamping to the
    bounds) apply afterwards, as for the built-in policies.

    Each run uses a fresh object: ``cls()`` when a class is handed to
    dsec, ``copy.deepcopy()`` of it when an instance is, so state kept on
    ``self`` lasts one run.
    """

    name: str = "python-policy"
    summary: str = "a scaling policy written in Python"

    def decide(self, snapshot: Snapshot) -> Any:
        """The desired replicas for this evaluation (see the class)."""
        raise NotImplementedError("a Policy implements decide(snapshot)")


class PolicyError(Exception):
    """A policy's answer could not be read (wrong type, negative value)."""


def _as_int(v: Any, what: str) -> int:
    if isinstance(v, float):
        if not v.is_integer():
            raise PolicyError(f"{what} must be a whole number, not {v!r}")
        return int(v)
    try:
        return operator.index(v)
    except TypeError:
        raise PolicyError(f"{what} must be an int, not {type(v).__name__} {v!r}") from None


def _drain(v: Any) -> int:
    if isinstance(v, str):
        try:
            return DRAIN[v]
        except KeyError:
            raise PolicyError(f"drain must be one of {', '.join(DRAIN)}, not {v!r}") from None
    d = _as_int(v, "drain")
    if d not in DRAIN.values():
        raise PolicyError(f"drain must be 0, 1 or 2, not {d}")
    return d


def read_decision(policy: Any, snap: Snapshot, ans: Any) -> Optional[Tuple[int, Optional[int], int]]:
    """(desired, borrow or None, drain) from a decide() answer; None keeps
    the preset decision."""
    if ans is None:
        return None
    borrow: Any = None
    drain: Any = 0
    if isinstance(ans, (tuple, list)):
        if not 1 <= len(ans) <= 3:
            raise PolicyError(f"decide() returned a sequence of {len(ans)}; "
                              "expected (desired[, borrow[, drain]])")
        desired = ans[0]
        if len(ans) > 1:
            borrow = ans[1]
        if len(ans) > 2:
            drain = ans[2]
    elif isinstance(ans, dict):
        if "desired" not in ans:
            raise PolicyError("decide() returned a dict without 'desired'")
        unknown = set(ans) - {"desired", "borrow", "drain"}
        if unknown:
            raise PolicyError(f"decide() returned unknown keys {sorted(unknown)}")
        desired = ans["desired"]
        borrow = ans.get("borrow")
        drain = ans.get("drain", 0)
    elif hasattr(ans, "desired"):
        desired = ans.desired
        borrow = getattr(ans, "borrow", None)
        drain = getattr(ans, "drain", 0)
    else:
        desired = ans
    if borrow is None:
        b = getattr(policy, "borrow", None)
        if callable(b):
            borrow = b(snap)
        elif b is not None:
            borrow = b
    desired_i = _as_int(desired, "desired")
    borrow_i = None if borrow is None else _as_int(borrow, "borrow")
    if borrow_i is not None and borrow_i < 0:
        raise PolicyError(f"borrow must be >= 0, not {borrow_i}")
    return desired_i, borrow_i, _drain(drain if drain is not None else 0)


PolicyLike = Union[Policy, type]


class _Failed:
    """Stands in for a policy whose constructor raised: it holds."""

    def decide(self, snapshot: Snapshot) -> Any:  # pragma: no cover - never asked
        return None


class PolicyBridge:
    """A Python policy as a ``struct pol_entry`` in C memory.

    Keep the bridge alive as long as any scenario holds ``entry``.
    Exceptions raised by the policy are kept in ``errors`` (the callback
    holds that round instead of unwinding through C) and re-raised by
    :meth:`raise_pending` after the C call returns.
    """

    def __init__(self, policy: PolicyLike) -> None:
        if isinstance(policy, type):
            if not callable(getattr(policy, "decide", None)):
                raise TypeError(f"{policy.__name__} has no decide() method")
            factory: Callable[[], Any] = policy
            proto: Any = policy
        else:
            if not callable(getattr(policy, "decide", None)):
                raise TypeError(f"{policy!r} has no decide() method")
            factory = lambda: copy.deepcopy(policy)  # noqa: E731
            proto = policy
        name = getattr(proto, "name", None) or getattr(proto, "__name__", None) \
            or type(proto).__name__
        if not isinstance(name, str) or not name:
            raise TypeError("a policy's name must be a non-empty str")
        summary = getattr(proto, "summary", "") or "a scaling policy written in Python"
        self.name = name
        self._factory = factory
        self.errors: List[BaseException] = []
        self._nerrors = 0
        self._lock = threading.Lock()
        self._live: Dict[int, Any] = {}
        self._name_c = ffi.new("char[]", name.encode())
        self._summary_c = ffi.new("char[]", str(summary).encode())
        self._create_cb = ffi.callback("void *(*)(const void *)", self._create)
        self._destroy_cb = ffi.callback("void (*)(void *)", self._destroy)
        self._decide_cb = ffi.callback(
            "int (*)(void *, const struct pol_snapshot *, struct pol_decision *)",
            self._decide, error=-1, onerror=self._onerror)
        self.ops = ffi.new("struct pol_ops *", {
            "version": POL_API_VERSION,
            "create": self._create_cb,
            "destroy": self._destroy_cb,
            "decide": self._decide_cb,
        })
        self.entry = ffi.new("struct pol_entry *", {
            "name": self._name_c,
            "summary": self._summary_c,
            "params": ffi.NULL,
            "params_size": 0,
            "ops": self.ops,
        })

    # -- callbacks (called by C, possibly from compare's threads) --
    def _create(self, params):
        try:
            obj = self._factory()
        except BaseException as e:  # noqa: BLE001 - re-raised after the run
            self._record(e)
            obj = _Failed()
        h = ffi.new_handle(obj)
        with self._lock:
            self._live[int(ffi.cast("uintptr_t", h))] = h
        return h

    def _destroy(self, state) -> None:
        if state == ffi.NULL:
            return
        with self._lock:
            self._live.pop(int(ffi.cast("uintptr_t", state)), None)

    def _decide(self, state, s, out) -> int:
        obj = ffi.from_handle(state)
        if isinstance(obj, _Failed):
            return -1
        try:
            snap = Snapshot.from_c(s)
            d = read_decision(obj, snap, obj.decide(snap))
        except BaseException as e:  # noqa: BLE001 - re-raised after the run
            self._record(e)
            return -1
        if d is not None:
            out.desired = d[0]
            if d[1] is not None:
                out.borrow = d[1]
            out.drain = d[2]
        return 0

    def _onerror(self, exc_type, exc_value, tb) -> None:
        if exc_value is not None:
            self._record(exc_value)

    def _record(self, e: BaseException) -> None:
        with self._lock:
            self._nerrors += 1
            if len(self.errors) < 16:
                self.errors.append(e)

    def raise_pending(self) -> None:
        """Raises the first exception the policy raised since the last
        call (as DSecError with the exception as its cause), and forgets
        them."""
        with self._lock:
            errs, self.errors = self.errors, []
            n, self._nerrors = self._nerrors, 0
        if errs:
            from ._errors import DSecError

            first = errs[0]
            if isinstance(first, (KeyboardInterrupt, SystemExit)):
                raise first
            more = f" (and {n - 1} more)" if n > 1 else ""
            raise DSecError(
                f"error: policy {self.name}: {type(first).__name__}: {first}{more}; "
                "the run held the size at those evaluations",
                -2,
            ) from first

    @property
    def live(self) -> int:
        """Policy objects created and not yet destroyed."""
        return len(self._live)


def is_policy(obj: Any) -> bool:
    """Whether obj is a Python policy (class or instance with decide)."""
    if isinstance(obj, type):
        return callable(getattr(obj, "decide", None))
    return not isinstance(obj, str) and callable(getattr(obj, "decide", None))


