"""Scenarios, runs, results and comparisons over libdsec."""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _yaml
from ._errors import DSecError, new_err, raise_for
from ._lib import borrowed_string, ffi, lib, take_string
from .policy import PolicyBridge, PolicyLike, is_policy

__all__ = ["Scenario", "Results", "run", "validate", "compare", "ScenarioLike"]

ScenarioLike = Union["Scenario", str, "os.PathLike[str]", Mapping[str, Any]]


_NO_VALUE: Any = object()


def _override_value(value: Any) -> str:
    """A Python value as the YAML value of a KEY=VALUE override."""
    if isinstance(value, str):
        return value  # YAML text as on the command line: 8/s, 10min, h200
    return _yaml.flow(value)


class Scenario:
    """A scenario: its YAML (from a file, a string or a dict) plus the
    overrides, seed and policy set on it.

    Running never changes it: libdsec opens a fresh internal scenario for
    every run, and :func:`run`, :func:`compare` and :class:`Session` work
    on a :meth:`copy` when they add overrides, a seed or a policy.
    ``from_file`` and ``from_string`` read the YAML at once and raise
    :class:`DSecError` on a missing file or a syntax error; the other
    checks happen in :meth:`validate` and at run time.
    """

    def __init__(self, text: str, name: str = "<string>", dir: Optional[str] = None,
                 path: Optional[str] = None) -> None:
        self._text = text
        self._name = name
        self._dir = dir
        self._path = path
        self._sets: List[str] = []
        self._seed: Optional[int] = None
        self._policy: Optional[PolicyBridge] = None
        # libdsec objects are used by one thread at a time: runs of one
        # Scenario from several Python threads take turns on it.
        self._lock = threading.RLock()
        self._c = self._open()  # checks the file and the YAML syntax now

    # -- constructors --
    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Scenario":
        """Reads the scenario at path; relative paths inside it are taken
        from its directory."""
        p = os.fspath(path)
        return cls("", name=p, dir=os.path.dirname(os.path.abspath(p)), path=p)

    @classmethod
    def from_string(cls, text: str, name: str = "<string>",
                    dir: Optional[str] = None) -> "Scenario":
        """A scenario from YAML text; name labels it in messages
        (``name:line:col: ...``), dir is where its relative paths start
        (the current directory when None)."""
        return cls(text, name=name, dir=dir)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], name: str = "<dict>",
                  dir: Optional[str] = None) -> "Scenario":
        """A scenario from a dict of the YAML's structure, written as YAML
        by dsec's own emitter (PyYAML not needed)."""
        return cls(_yaml.dump(dict(doc)), name=name, dir=dir)

    @classmethod
    def of(cls, scenario: ScenarioLike) -> "Scenario":
        """A Scenario from a Scenario (itself), a path, YAML text or a dict.
        A str is a path when it has no newline and names an existing file
        or ends in .yaml/.yml; otherwise YAML text."""
        if isinstance(scenario, Scenario):
            return scenario
        if isinstance(scenario, Mapping):
            return cls.from_dict(scenario)
        if isinstance(scenario, os.PathLike):
            return cls.from_file(scenario)
        if isinstance(scenario, str):
            if "\n" not in scenario and (
                os.path.isfile(scenario) or scenario.endswith((".yaml", ".yml"))
            ):
                return cls.from_file(scenario)
            return cls.from_string(scenario)
        raise TypeError(f"a scenario is a path, YAML text, a dict or a Scenario, "
                        f"not {type(scenario).__name__}")

    def _open(self):
        out = ffi.new("dsec_scenario **")
        err = new_err()
        if self._path is not None:
            rc = lib.dsec_scenario_load_file(self._path.encode(), out, err)
        else:
            data = self._text.encode()
            rc = lib.dsec_scenario_load_string(
                self._name.encode(), data, len(data),
                self._dir.encode() if self._dir is not None else ffi.NULL, out, err)
        raise_for(rc, err)
        return ffi.gc(out[0], lib.dsec_scenario_free)

    def copy(self) -> "Scenario":
        """An independent copy with the same overrides, seed and policy."""
        c = Scenario.__new__(Scenario)
        c._text, c._name, c._dir, c._path = self._text, self._name, self._dir, self._path
        c._sets = list(self._sets)
        c._seed = self._seed
        c._policy = self._policy
        c._lock = threading.RLock()
        c._c = c._open()
        for a in c._sets:
            err = new_err()
            raise_for(lib.dsec_scenario_set(c._c, a.encode(), err), err)
        if c._seed is not None:
            lib.dsec_scenario_set_seed(c._c, c._seed)
        if c._policy is not None:
            err = new_err()
            raise_for(lib.dsec_scenario_set_policy(c._c, c._policy.entry, err), err)
        return c

    # -- settings --
    def set(self, key: str, value: Any = _NO_VALUE) -> "Scenario":
        """Adds an override, as the command line's --set: ``set("k=v")`` or
        ``set(key, value)``. Python values: bool -> true/false, numbers,
        str as YAML text (``"8/s"``, ``"10min"``), lists and dicts in flow
        style, None as null. Overrides are checked by validate() and run();
        here only their form is. Returns self."""
        if value is _NO_VALUE:
            if "=" not in key:
                raise DSecError(f"error: override '{key}': expected KEY=VALUE", -2)
            assignment = key
        else:
            assignment = f"{key}={_override_value(value)}"
        err = new_err()
        with self._lock:
            raise_for(lib.dsec_scenario_set(self._c, assignment.encode(), err), err)
            self._sets.append(assignment)
        return self

    def update(self, overrides: Union[Mapping[str, Any], Iterable[str], None]) -> "Scenario":
        """Adds several overrides: a dict {key: value} or "KEY=VALUE"
        strings. Returns self."""
        if overrides is None:
            return self
        if isinstance(overrides, str):
            overrides = [overrides]
        if isinstance(overrides, Mapping):
            for k, v in overrides.items():
                self.set(k, v)
        else:
            for a in overrides:
                self.set(a)
        return self

    @property
    def overrides(self) -> List[str]:
        """The overrides added, as KEY=VALUE strings, in order."""
        return list(self._sets)

    def clear_overrides(self) -> None:
        """Removes every override."""
        with self._lock:
            lib.dsec_scenario_clear_sets(self._c)
            self._sets = []

    @property
    def seed(self) -> int:
        """The seed of the next runs: the one set here, else the
        scenario's ``seed:`` (1 when it has none)."""
        if self._seed is not None:
            return self._seed
        m = re.search(r"^seed:\s*['\"]?(\d+)", self.text(), re.MULTILINE)
        return int(m.group(1)) if m else 1

    @seed.setter
    def seed(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"a seed is an int >= 0, not {value!r}")
        with self._lock:
            lib.dsec_scenario_set_seed(self._c, value)
            self._seed = value

    @property
    def policy(self) -> Optional[str]:
        """The name of the Python policy attached, if any."""
        return self._policy.name if self._policy is not None else None

    def set_policy(self, policy: Optional[PolicyLike]) -> "Scenario":
        """Makes a Python policy (a :class:`dsec.Policy` subclass or
        instance) the scenario's scaling policy; None goes back to the
        scenario's own. Returns self."""
        bridge = None if policy is None else (
            policy if isinstance(policy, PolicyBridge) else PolicyBridge(policy))
        err = new_err()
        with self._lock:
            raise_for(lib.dsec_scenario_set_policy(
                self._c, bridge.entry if bridge is not None else ffi.NULL, err), err)
            self._policy = bridge
        return self

    # -- reading --
    @property
    def name(self) -> str:
        """The scenario's name: its name: key, else the file name's stem
        (as results and messages name it)."""
        # dsec_scenario_name() gives the file name's stem until the scenario
        # has been opened once (validated or run); read the key first.
        try:
            m = re.search(r"^name:[ \t]*(['\"]?)([^'\"#\n]*?)\1[ \t]*(?:#.*)?$",
                          self.text(), re.MULTILINE)
        except DSecError:
            m = None
        if m and m.group(2).strip():
            return m.group(2).strip()
        with self._lock:
            return borrowed_string(lib.dsec_scenario_name(self._c))

    def text(self) -> str:
        """The YAML with the overrides applied."""
        err = new_err()
        with self._lock:
            p = lib.dsec_scenario_text(self._c, err)
        if p == ffi.NULL:
            raise_for(-2, err)
        raise_for(0, err)
        return take_string(p)

    def validate(self) -> List[str]:
        """Checks the scenario as ``dsec validate`` does. Returns its
        notes and warnings (one a line); raises :class:`DSecError` with
        every error otherwise."""
        notes = ffi.new("char **")
        err = new_err()
        with self._lock:
            rc = lib.dsec_scenario_validate(self._c, notes, err)
        text = take_string(notes[0]) if notes[0] != ffi.NULL else ""
        raise_for(rc, err)
        return [ln for ln in text.splitlines() if ln.strip()]

    def __repr__(self) -> str:
        extra = f", {len(self._sets)} overrides" if self._sets else ""
        return f"<dsec.Scenario {self._name!r}{extra}>"


class Results(dict):
    """The results of a run: a dict of the JSON ``dsec run --json`` prints
    (docs/results.md), plus :meth:`get_field` for the numeric fields by
    name (``"ttft_ms.p99"``), read from the C results."""

    def __init__(self, c_results) -> None:
        self._c = ffi.gc(c_results, lib.dsec_results_free)
        text = take_string(lib.dsec_results_json(self._c, 0))
        super().__init__(json.loads(text))
        self.json_text = text

    def get_field(self, name: str) -> float:
        """A numeric field by its JSON name ("ttft_ms.p99",
        "requests_completed", "cost_usd"); NaN where the run has none.
        Raises DSecError (DSEC_ENOTFOUND) for a name that is no numeric
        field."""
        out = ffi.new("double *")
        rc = lib.dsec_results_get(self._c, name.encode(), out)
        if rc < 0:
            raise DSecError(f"error: results field '{name}': "
                            f"{borrowed_string(lib.dsec_strerror(rc))}", rc)
        return out[0]

    @staticmethod
    def fields() -> List[str]:
        """The names get_field() reads, in results order."""
        return [borrowed_string(lib.dsec_results_field_name(i))
                for i in range(lib.dsec_results_nfields())]

    def to_json(self, pretty: bool = True) -> str:
        """The results as the C library writes them."""
        return take_string(lib.dsec_results_json(self._c, 1 if pretty else 0))

    def __reduce__(self):  # pickles as a plain dict
        return (dict, (dict(self),))


def _prepared(scenario: ScenarioLike, overrides: Any = None, seed: Optional[int] = None,
              policy: Optional[PolicyLike] = None) -> Scenario:
    """A Scenario for one run: a copy when anything is added to one the
    caller passed, so theirs stays as it was."""
    sc = Scenario.of(scenario)
    if sc is scenario and (overrides or seed is not None or policy is not None):
        sc = sc.copy()
    sc.update(overrides)
    if seed is not None:
        sc.seed = seed
    if policy is not None:
        sc.set_policy(policy)
    return sc


def run(scenario: ScenarioLike, overrides: Any = None, seed: Optional[int] = None,
        policy: Optional[PolicyLike] = None) -> Results:
    """Validates and runs a scenario (a path, YAML text, a dict or a
    :class:`Scenario`) and returns its :class:`Results`. overrides: a dict
    {key: value} or "KEY=VALUE" strings, as --set. seed: the seed of the
    run. policy: a Python scaling policy (class or instance). Writes no
    file or database."""
    sc = _prepared(scenario, overrides, seed, policy)
    out = ffi.new("dsec_results **")
    err = new_err()
    with sc._lock:
        rc = lib.dsec_run(sc._c, out, err)
        _finish(sc, rc, err, out[0])
    return Results(out[0])


def _finish(sc: Scenario, rc: int, err, c_results=None) -> None:
    """Raises for a failed call or a policy that raised (its exception
    first); frees the results then."""
    failure: Optional[DSecError] = None
    try:
        raise_for(rc, err)
    except DSecError as e:
        failure = e
    try:
        if sc._policy is not None:
            sc._policy.raise_pending()
        if failure is not None:
            raise failure
    except BaseException:
        if c_results is not None and c_results != ffi.NULL:
            lib.dsec_results_free(c_results)
        raise


def validate(scenario: ScenarioLike, overrides: Any = None) -> List[str]:
    """Checks a scenario as ``dsec validate`` does; returns its notes,
    raises :class:`DSecError` with every error."""
    return _prepared(scenario, overrides).validate()


def compare(scenario: ScenarioLike, policies: Sequence[Any] = ("",), replications: int = 5,
            seed: Optional[int] = None, jobs: int = 0, overrides: Any = None,
            policy: Optional[PolicyLike] = None) -> Dict[str, Any]:
    """Runs each policy replications times with seeds seed, seed + 1, ...
    (common random numbers) and returns the JSON of ``dsec compare
    --json`` as a dict. policies: "NAME" or "NAME:KEY=VALUE,..." strings
    ("" for the scenario's own); at most one entry may be a Python policy
    (class or instance), which then stands for the scenario's own. seed:
    the first seed (the scenario's when None). jobs: threads (0: every
    CPU); a Python policy runs on them with the GIL held in its calls."""
    names: List[str] = []
    py = policy
    for p in policies:
        if is_policy(p):
            if py is not None:
                raise ValueError("compare() takes at most one Python policy")
            py = p
            names.append("")
        elif p is None or isinstance(p, str):
            names.append(p or "")
        else:
            raise TypeError(f"a policy is a name or a dsec.Policy, not {p!r}")
    sc = _prepared(scenario, overrides, None, py)
    first = sc.seed if seed is None else seed
    cstrs = [ffi.new("char[]", n.encode()) for n in names]
    arr = ffi.new("const char *[]", cstrs)
    err = new_err()
    out = ffi.new("char **")
    with sc._lock:
        rc = lib.dsec_compare_json(sc._c, arr, len(names), replications, first,
                                   jobs, out, err)
        try:
            if sc._policy is not None:
                sc._policy.raise_pending()
        except BaseException:
            lib.dsec_free(out[0])  # NULL is a no-op
            lib.dsec_free(err[0])
            raise
    raise_for(rc, err)
    return json.loads(take_string(out[0]))
