"""ClusterConfig and DSecOrchestrator: the seed's snippet."""

import os

import pytest

import dsec
from conftest import src

SEED_SNIPPET = '''
from dsec import DSecOrchestrator, ClusterConfig
config = ClusterConfig(min_gpus=4, max_gpus=32, target_latency_ms=45,
                       kv_cache_offload=True, rdma_interface="mlx5_0")
orchestrator = DSecOrchestrator(config)
orchestrator.deploy_model(model_path="s3://models/deepseek-v3", strategy="tensor_parallel")
'''


def _seed_orchestrator():
    ns = {}
    exec(compile(SEED_SNIPPET, "<seed snippet>", "exec"), ns)  # unchanged
    return ns["orchestrator"]


def test_the_seed_snippet_runs_unchanged_and_simulates():
    orch = _seed_orchestrator()
    assert isinstance(orch, dsec.DSecOrchestrator)
    res = orch.simulate(duration="5min")
    assert res["requests_completed"] > 2000  # 12 requests/s for 5 minutes
    assert res["gpus_per_replica"] == 4
    assert 1 <= res["replicas"]["min"] <= res["replicas"]["max"] <= 8
    assert res["policy"] == "target-latency"
    assert res["pools"][0]["gpu"] == "h200"
    assert any("rdma_interface mlx5_0" in n for n in res["notes"])


def test_scenario_round_trip():
    orch = _seed_orchestrator()
    text = orch.scenario()
    # bf16 and fp8 weights do not fit 4 x H200: int4, said in a comment
    assert "  weight_dtype: int4\n" in text
    assert "# weight_dtype int4 chosen by DSecOrchestrator" in text
    for line in ("  model_path: s3://models/deepseek-v3", "  strategy: tensor_parallel",
                 "  min_gpus: 4", "  max_gpus: 32", "  target_latency_ms: 45",
                 "  kv_cache_offload: true", "  rdma_interface: mlx5_0", "  gpu: h200"):
        assert line + "\n" in text, line
    sc = dsec.Scenario.from_string(text, name="orchestrator.yaml")
    assert sc.validate() == []
    assert sc.name == "deepseek-v3-orchestrator"
    a = dsec.run(sc)
    b = orch.simulate()
    drop = ("wall_s", "events_per_s", "scenario")
    assert {k: v for k, v in a.items() if k not in drop} == \
        {k: v for k, v in b.items() if k not in drop}


def test_explicit_dtype_and_infeasible_layouts():
    cfg = dsec.ClusterConfig(min_gpus=4, max_gpus=32)
    orch = dsec.DSecOrchestrator(cfg).deploy_model("s3://models/deepseek-v3", weight_dtype="bf16")
    assert "chosen by" not in orch.scenario()
    with pytest.raises(dsec.DSecError) as ei:
        orch.simulate(duration="1min")
    assert ei.value.code == -8  # DSEC_EINFEASIBLE: the C error surfaces
    assert "deepseek-v3 in bf16 needs" in str(ei.value)
    small = dsec.DSecOrchestrator(dsec.ClusterConfig(min_gpus=1, max_gpus=2))
    small.deploy_model("s3://models/deepseek-v3")
    with pytest.raises(dsec.DSecError) as ei:
        small.scenario()  # nothing fits one GPU: no guess, the C error
    assert ei.value.code == -8
    with pytest.raises(dsec.DSecError, match="deploy_model"):
        dsec.DSecOrchestrator(cfg).scenario()


def test_a_model_that_fits_in_bf16_gets_no_dtype():
    orch = dsec.DSecOrchestrator(dsec.ClusterConfig(min_gpus=1, max_gpus=4, gpu="h100"))
    orch.deploy_model("meta-llama/Llama-3.1-8B-Instruct", tp=1)
    text = orch.scenario()
    assert "weight_dtype" not in text
    res = orch.simulate(workload={"arrival": {"rate_per_s": 5}, "requests": 200,
                                  "prompt_tokens": {"dist": "fixed", "value": 256},
                                  "output_tokens": {"dist": "fixed", "value": 32}})
    assert res["requests_completed"] == 200
    assert res["gpus_per_replica"] == 1


def test_workloads_trace_and_extra(tmp_path):
    trace = tmp_path / "three.csv"
    trace.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                     "2023-11-17 00:00:00.0,512,16\n"
                     "2023-11-17 00:00:01.0,256,8\n"
                     "2023-11-17 00:00:02.5,128,4\n")
    cfg = dsec.ClusterConfig(min_gpus=1, max_gpus=2, gpu="h100", initial_gpus=1,
                             extra={"slo.ttft_ms": 2000, "metrics": {"interval": "10s"}})
    orch = dsec.DSecOrchestrator(cfg, name="trace-run").deploy_model("llama-3.1-8b")
    text = orch.scenario(workload=str(trace))
    assert f"path: {trace}" in text
    assert "  initial_gpus: 1\n" in text and "slo:\n  ttft_ms: 2000\n" in text
    res = orch.simulate(workload=str(trace))
    assert res["requests_completed"] == 3
    assert res["scenario"] == "trace-run"
    assert res["input_tokens"] == 512 + 256 + 128


def test_local_hf_config_directory_becomes_model_hf_config():
    d = src("tests", "data", "hf", "llama-3.1-8b")
    orch = dsec.DSecOrchestrator(dsec.ClusterConfig(min_gpus=1, max_gpus=2, gpu="h100"))
    orch.deploy_model(d, tp=1)
    text = orch.scenario(duration=60)
    assert f"model:\n  hf_config: {os.path.abspath(d)}\n" in text
    assert "    duration: 60s\n" in text
    assert dsec.Scenario.from_string(text).validate() == []
