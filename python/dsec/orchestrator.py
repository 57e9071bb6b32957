"""The seed's interface: ClusterConfig and DSecOrchestrator, which write a
scenario (docs/scenario.md) and run it with libdsec.

    config = ClusterConfig(min_gpus=4, max_gpus=32, target_latency_ms=45,
                           kv_cache_offload=True, rdma_interface="mlx5_0")
    orchestrator = DSecOrchestrator(config)
    orchestrator.deploy_model(model_path="s3://models/deepseek-v3",
                              strategy="tensor_parallel")
    results = orchestrator.simulate(duration="5min")
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _yaml
from ._errors import DSecError
from .policy import PolicyLike
from .scenario import Results, Scenario, run

__all__ = ["ClusterConfig", "DSecOrchestrator", "DEFAULT_WORKLOAD"]

#: DSEC_EINFEASIBLE: the scenario loads but no layout fits the GPUs.
_EINFEASIBLE = -8

#: The workload simulate() uses when given none: seed-dsec.yaml's traffic
#: (Poisson at 12 requests/s, prompt and output lengths of the Azure LLM
#: inference trace 2023's conversation service) without its diurnal cycle,
#: for the default duration.
DEFAULT_WORKLOAD: Dict[str, Any] = {
    "synthetic": {
        "arrival": {"process": "poisson", "rate_per_s": 12.0},
        "duration": "5min",
        "prompt_tokens": {"dist": "lognormal", "mean": 1155, "sd": 614},
        "output_tokens": {"dist": "lognormal", "mean": 211, "sd": 273, "max": 1000},
    }
}

#: Weight precisions tried, in order, when deploy_model() gets none.
_DTYPES = ("bf16", "fp8", "int4")


def _merge(dst: Dict[str, Any], key: str, value: Any) -> None:
    """Sets dst[a][b][c] = value for key "a.b.c"; dicts merge into dicts."""
    parts = key.split(".")
    node = dst
    for p in parts[:-1]:
        nxt = node.get(p)
        if not isinstance(nxt, dict):
            nxt = node[p] = {}
        node = nxt
    last = parts[-1]
    if isinstance(value, Mapping) and isinstance(node.get(last), dict):
        for k, v in value.items():
            _merge(node[last], k, v)
    else:
        node[last] = copy.deepcopy(value)


@dataclass
class ClusterConfig:
    """An elastic GPU cluster: the scenario's cluster.* and hardware.*
    keys (docs/scenario.md).

    min_gpus, max_gpus: the cluster's bounds (cluster.min_gpus/max_gpus);
    target_latency_ms: per output token (cluster.target_latency_ms, also
    the TPOT SLO); kv_cache_offload: KV blocks spill to host memory;
    rdma_interface: recorded for calibration, ignored by the simulator;
    initial_gpus: GPUs at t = 0 (the loader's default when None); gpu,
    gpus_per_node: hardware.gpu and hardware.gpus_per_node. extra: any
    other keys, as dotted paths (``{"cluster.drain": "finish"}``) or
    nested sections (``{"slo": {"ttft_ms": 2000}}``), merged last.
    """

    min_gpus: int
    max_gpus: int
    target_latency_ms: Optional[float] = None
    kv_cache_offload: bool = False
    rdma_interface: Optional[str] = None
    initial_gpus: Optional[int] = None
    gpu: str = "h200"
    gpus_per_node: int = 8
    extra: Dict[str, Any] = field(default_factory=dict)

    def sections(self) -> Dict[str, Any]:
        """The hardware: and cluster: sections as a dict (extra not
        included)."""
        cluster: Dict[str, Any] = {"min_gpus": self.min_gpus}
        if self.initial_gpus is not None:
            cluster["initial_gpus"] = self.initial_gpus
        cluster["max_gpus"] = self.max_gpus
        if self.target_latency_ms is not None:
            cluster["target_latency_ms"] = self.target_latency_ms
        if self.kv_cache_offload:
            cluster["kv_cache_offload"] = True
        if self.rdma_interface is not None:
            cluster["rdma_interface"] = self.rdma_interface
        return {
            "hardware": {"gpu": self.gpu, "gpus_per_node": self.gpus_per_node},
            "cluster": cluster,
        }


@dataclass
class _Deployment:
    model_path: str
    strategy: str = "tensor_parallel"
    tp: Optional[int] = None
    weight_dtype: Optional[str] = None


class DSecOrchestrator:
    """Deploys a model on a :class:`ClusterConfig` and simulates it.

    The orchestrator writes a scenario (:meth:`scenario`) and runs it with
    libdsec (:meth:`simulate`); nothing is deployed on real GPUs.
    """

    def __init__(self, config: ClusterConfig, name: Optional[str] = None) -> None:
        self.config = config
        self.name = name
        self.deployment: Optional[_Deployment] = None
        self._dtype_cache: Dict[str, Tuple[Optional[str], str]] = {}

    def deploy_model(self, model_path: str, strategy: str = "tensor_parallel",
                     tp: Optional[int] = None,
                     weight_dtype: Optional[str] = None) -> "DSecOrchestrator":
        """Sets the model and its layout (deploy.model_path, .strategy,
        .tp, .weight_dtype). dsec recognises the model from model_path's
        last component (``s3://models/deepseek-v3`` -> deepseek-v3 of its
        catalog); a local directory holding a Hugging Face config.json is
        read as ``model: {hf_config: DIR}`` instead. tp None: the loader
        derives it from min_gpus. weight_dtype None: bf16, or the first of
        fp8, int4 whose weights fit when bf16 does not (written as a
        comment in scenario()). Returns self."""
        if not isinstance(model_path, str) or not model_path:
            raise ValueError("model_path is a non-empty string")
        self.deployment = _Deployment(model_path, strategy, tp, weight_dtype)
        self._dtype_cache.clear()
        return self

    # -- the scenario --
    def _doc(self, workload: Any, duration: Any, dtype: Optional[str],
             trace_format: Optional[str] = None) -> Dict[str, Any]:
        if self.deployment is None:
            raise DSecError("error: no model: call deploy_model() first", -2)
        dep = self.deployment
        doc: Dict[str, Any] = {}
        base = os.path.basename(dep.model_path.rstrip("/")) or "model"
        doc["name"] = self.name or f"{base}-orchestrator"
        if os.path.isdir(dep.model_path) and os.path.isfile(
                os.path.join(dep.model_path, "config.json")):
            doc["model"] = {"hf_config": os.path.abspath(dep.model_path)}
        doc["workload"] = self._workload(workload, duration, trace_format)
        secs = self.config.sections()
        doc["hardware"] = secs["hardware"]
        deploy: Dict[str, Any] = {"model_path": dep.model_path, "strategy": dep.strategy}
        if dep.tp is not None:
            deploy["tp"] = dep.tp
        if dtype is not None:
            deploy["weight_dtype"] = dtype
        doc["deploy"] = deploy
        doc["cluster"] = secs["cluster"]
        for k, v in self.config.extra.items():
            _merge(doc, k, v)
        return doc

    @staticmethod
    def _workload(workload: Any, duration: Any, trace_format: Optional[str]) -> Dict[str, Any]:
        if workload is None:
            w = copy.deepcopy(DEFAULT_WORKLOAD)
        elif isinstance(workload, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(workload))
            tr: Dict[str, Any] = {"path": path}
            fmt = trace_format
            if fmt is None and path.endswith((".jsonl", ".ndjson")):
                fmt = "mooncake"
            if fmt is not None:
                tr["format"] = fmt
            w = {"trace": tr}
        elif isinstance(workload, Mapping):
            w = copy.deepcopy(dict(workload))
            if "arrival" in w:  # a synthetic section on its own
                w = {"synthetic": w}
        else:
            raise TypeError("workload is a dict (the workload: section), a trace "
                            f"path or None, not {type(workload).__name__}")
        if duration is not None:
            kinds = [k for k in ("synthetic", "trace", "inference_perf", "vllm_bench") if k in w]
            if len(kinds) != 1:
                raise ValueError("duration needs a workload with one of synthetic, trace, "
                                 "inference_perf, vllm_bench")
            if isinstance(duration, (int, float)) and not isinstance(duration, bool):
                duration = f"{duration:g}s"
            w[kinds[0]]["duration"] = duration
        return w

    def _choose_dtype(self) -> Tuple[Optional[str], str]:
        """(weight_dtype to write, comment) for the deployment."""
        dep = self.deployment
        if dep is None:
            raise DSecError("error: no model: call deploy_model() first", -2)
        if dep.weight_dtype is not None:
            return dep.weight_dtype, ""
        key = repr((dep, self.config))
        if key in self._dtype_cache:
            return self._dtype_cache[key]
        first: Optional[DSecError] = None
        misfits: List[str] = []
        for dt in _DTYPES:
            doc = self._doc(None, None, None if dt == "bf16" else dt)
            try:
                Scenario.from_dict(doc, name="<orchestrator>").validate()
            except DSecError as e:
                if e.code != _EINFEASIBLE:
                    raise
                first = first or e
                misfits.append(dt)
                continue
            if dt == "bf16":
                out: Tuple[Optional[str], str] = (None, "")
            else:
                out = (dt, (
                    f"weight_dtype {dt} chosen by DSecOrchestrator: deploy_model() "
                    f"named none and the weights do not fit the smallest replica "
                    f"({self.config.min_gpus} x {self.config.gpu}) in "
                    f"{' or '.join(misfits)}"))
            self._dtype_cache[key] = out
            return out
        assert first is not None
        raise first

    def scenario(self, workload: Any = None, duration: Any = None,
                 trace_format: Optional[str] = None) -> str:
        """The scenario as YAML text, as simulate() runs it (the same
        workload and duration arguments)."""
        dtype, why = self._choose_dtype()
        text = _yaml.dump(self._doc(workload, duration, dtype, trace_format))
        head = "# Written by dsec.DSecOrchestrator (docs/python.md).\n"
        if why:
            head += "".join(f"# {ln}\n" for ln in _wrap(why, 76))
        return head + text

    def simulate(self, workload: Any = None, duration: Any = None,
                 seed: Optional[int] = None, policy: Optional[PolicyLike] = None,
                 overrides: Any = None, trace_format: Optional[str] = None) -> Results:
        """Runs the deployment on a workload and returns the results.

        workload: a dict (the scenario's workload: section, such as
        ``{"synthetic": {...}}``, or a synthetic section alone), a path to
        a trace (``{"trace": {"path": ...}}``; format azure, or mooncake
        for .jsonl, or trace_format), or None for DEFAULT_WORKLOAD
        (seed-dsec.yaml's traffic, 5 minutes). duration: "10min", "2h" or
        seconds, written as the workload's duration. seed, policy,
        overrides: as :func:`dsec.run`.
        """
        sc = Scenario.from_string(self.scenario(workload, duration, trace_format),
                                  name="<orchestrator>", dir=os.getcwd())
        return run(sc, overrides=overrides, seed=seed, policy=policy)


def _wrap(text: str, width: int) -> List[str]:
    lines: List[str] = []
    cur = ""
    for w in text.split():
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return lines
