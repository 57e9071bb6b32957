"""dsec from Python: scenarios, runs, comparisons, step-by-step sessions
and scaling policies written in Python, over libdsec (include/dsec.h) with
cffi. docs/python.md walks through it.

    >>> import dsec
    >>> res = dsec.run("scenarios/mm1.yaml",
    ...                overrides={"workload.synthetic.requests": 2000})
    >>> res["requests_completed"]
    2000
"""

from ._errors import DSecError
from ._lib import LIBRARY_PATH, POL_API_VERSION, borrowed_string as _bs, lib as _clib
from .orchestrator import ClusterConfig, DSecOrchestrator
from .policy import Decision, Policy, PolicyError, Pool, Replica, Snapshot
from .scenario import Results, Scenario, compare, run, validate
from .session import Session, seconds

#: The release of the loaded libdsec (dsec_version()).
__version__: str = _bs(_clib.dsec_version())

__all__ = [
    "ClusterConfig",
    "DSecError",
    "DSecOrchestrator",
    "Decision",
    "LIBRARY_PATH",
    "POL_API_VERSION",
    "Policy",
    "PolicyError",
    "Pool",
    "Replica",
    "Results",
    "Scenario",
    "Session",
    "Snapshot",
    "compare",
    "run",
    "seconds",
    "validate",
    "__version__",
]
