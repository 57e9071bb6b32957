#!/bin/sh
# End-to-end tests of `dsec plan --launch DIR` (plan/launch.c, docs/plan.md
# "Launching the chosen configuration"), printing TAP: the files it writes
# for a static cluster (tests/data/plan/small.yaml), an elastic one under
# hpa (launch-hpa.yaml) and under target-latency (the same with the policy
# changed), a disaggregated one (launch-pd.yaml), and its errors; also
# that --save-scenario keeps the scenario's own duration under --duration.
# Each figure checked in the files is read from the plan's own --json.
# Run by `make check` (top_srcdir, DSEC set by the harness) or by hand
# from the build directory. The YAML is parsed with PyYAML when python3
# has it, else checked by grep (said in the test's line); the tests that
# read --json need jq and skip without it.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..16"

. "$srcdir/tests/tap.sh"

dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
scaler=$(dirname "$dsec")/dsec-scaler
data=$(cd "$srcdir/tests/data/plan" && pwd)
have_jq=0
command -v jq >/dev/null 2>&1 && have_jq=1
have_pyyaml=0
python3 -c 'import yaml' >/dev/null 2>&1 && have_pyyaml=1

# yaml_check FILE: every document parses; prints "kind name" per document.
yaml_kinds() {
    python3 - "$1" <<'EOF'
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d is None:
        continue
    print(d["kind"], d["metadata"]["name"])
EOF
}

# vllm_line FILE ROLE: the `vllm serve` line of ROLE in serve.sh.
vllm_line() {
    sed -n "/^$2)\$/,/;;/p" "$1" | grep 'vllm serve'
}

# 1-6. A static cluster: small.yaml on h100 and h200.
st=0
$dsec plan "$data/small.yaml" --gpus h100,h200 -j 2 --quiet --json \
    --launch "$tmp/static" >"$tmp/static.json" 2>"$tmp/err" || st=1
for f in serve.sh deployment.yaml README.md; do
    [ -s "$tmp/static/$f" ] || { echo "# no $f"; st=1; }
done
[ -x "$tmp/static/serve.sh" ] || st=1
[ -e "$tmp/static/scaler.yaml" ] && { echo "# a scaler.yaml for a static cluster"; st=1; }
grep -q 'HorizontalPodAutoscaler' "$tmp/static/deployment.yaml" 2>/dev/null && st=1
[ $st -ne 0 ] && show "$tmp/err"
ok "static: serve.sh, deployment.yaml, README.md; no autoscaler for a fixed size" $st

sh -n "$tmp/static/serve.sh"
ok "static: sh -n serve.sh" $?

if [ $have_jq -eq 1 ]; then
    tp=$(jq -r '.configurations[.chosen].overrides["deploy.tp"]' "$tmp/static.json")
    g=$(jq -r '.configurations[.chosen].gpus_per_replica' "$tmp/static.json")
    r=$(jq -r '.configurations[.chosen].replicas' "$tmp/static.json")
    line=$(vllm_line "$tmp/static/serve.sh" replica)
    st=0
    echo "$line" | grep -q -- "vllm serve \"\$MODEL\" .*--tensor-parallel-size $tp " || st=1
    echo "$line" | grep -q -- '--max-num-seqs [0-9]* --max-num-batched-tokens [0-9]*' || st=1
    echo "$line" | grep -q -- '--enable-prefix-caching' || st=1
    grep -q "^    # replica: [a-z0-9]* tp$tp bf16, $g GPUs* per replica; replicas $r (fixed); \\\$[0-9.]* per GPU-hour" \
        "$tmp/static/serve.sh" || st=1
    grep -qx "              nvidia.com/gpu: $g" "$tmp/static/deployment.yaml" || st=1
    grep -qx "  replicas: $r" "$tmp/static/deployment.yaml" || st=1
    [ $st -ne 0 ] && { echo "# tp $tp, gpus $g, replicas $r"; show "$tmp/static/serve.sh"; }
    ok "static: the vllm line carries tp $tp; the Deployment $r replicas of $g GPUs (the plan's)" $st
else
    skip "static: the vllm line and the Deployment carry the plan's figures" "jq not found"
fi

# Llama-3.1-8B's Hugging Face id is not in dsec's sources: the script
# refuses to start without MODEL, naming it.
st=0
grep -q '^MODEL=${MODEL:?set MODEL to the Hugging Face id of the model, dsec does not know it for llama-3.1-8b}$' "$tmp/static/serve.sh" || st=1
(unset MODEL; sh "$tmp/static/serve.sh") >"$tmp/out" 2>&1 && st=1
grep -q 'MODEL: set MODEL to the Hugging Face id of the model' "$tmp/out" || st=1
[ $st -ne 0 ] && show "$tmp/out"
ok "unknown model id: serve.sh fails clearly without MODEL" $st

if [ $have_pyyaml -eq 1 ]; then
    yaml_kinds "$tmp/static/deployment.yaml" >"$tmp/kinds" 2>"$tmp/err" &&
        [ "$(cat "$tmp/kinds")" = "Deployment small-llama
Service small-llama" ] &&
        python3 - "$tmp/static/deployment.yaml" <<'EOF'
import sys, yaml
d = [x for x in yaml.safe_load_all(open(sys.argv[1])) if x][0]
c = d["spec"]["template"]["spec"]["containers"][0]
assert c["image"].startswith("vllm/vllm-openai"), c["image"]
assert c["command"] == ["vllm", "serve"]
assert all(isinstance(a, str) for a in c["args"]), c["args"]
assert c["args"][0] == "$(MODEL)"
assert c["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}
assert d["spec"]["selector"]["matchLabels"] == d["spec"]["template"]["metadata"]["labels"]
EOF
    st=$?
    [ $st -ne 0 ] && show "$tmp/kinds" "$tmp/err"
    ok "static: deployment.yaml parses (PyYAML): a Deployment and a Service, string args, /health probe" $st
else
    st=0
    [ "$(grep -c '^kind: ' "$tmp/static/deployment.yaml")" -eq 2 ] &&
        grep -q '^---$' "$tmp/static/deployment.yaml" &&
        grep -q '^          image: vllm/vllm-openai:' "$tmp/static/deployment.yaml" &&
        grep -q '^              path: /health$' "$tmp/static/deployment.yaml" || st=1
    ok "static: deployment.yaml by structural grep (PyYAML not importable)" $st
fi

# Nothing of the machine that planned: neither the fixtures' directory nor
# the launch directory appears in the files.
if grep -rqF -e "$data" -e "$tmp" "$tmp/static"; then st=1; else st=0; fi
grep -q '^# Written by dsec plan from scenario small.yaml (small-llama):$' "$tmp/static/serve.sh" || st=1
ok "static: the files name the scenario by its file name, no path" $st

# 7-9. An elastic cluster under hpa: the HPA's bounds are the plan's.
$dsec plan "$data/launch-hpa.yaml" --gpus h100 -j 2 --quiet --json \
    --launch "$tmp/hpa" >"$tmp/hpa.json" 2>"$tmp/err"
st=$?
[ -e "$tmp/hpa/scaler.yaml" ] && st=1
if [ $st -eq 0 ] && [ $have_jq -eq 1 ]; then
    max=$(jq -r '.configurations[.chosen].replicas' "$tmp/hpa.json")
    min=$(jq -r '.configurations[.chosen].min_replicas' "$tmp/hpa.json")
    init=$(jq -r '.configurations[.chosen].overrides["cluster.initial_gpus"]' "$tmp/hpa.json")
    [ "$min" -lt "$max" ] || { echo "# the fixture no longer scales: $min-$max"; st=1; }
    grep -qx "  minReplicas: $min" "$tmp/hpa/deployment.yaml" &&
        grep -qx "  maxReplicas: $max" "$tmp/hpa/deployment.yaml" &&
        grep -qx "  replicas: $init" "$tmp/hpa/deployment.yaml" || st=1
    ok "hpa: the HorizontalPodAutoscaler's min $min and max $max, the Deployment's $init replicas are the plan's" $st
else
    [ $st -ne 0 ] && show "$tmp/err"
    if [ $have_jq -eq 1 ]; then ok "hpa: the HPA's bounds are the plan's" $st; else
        skip "hpa: the HPA's bounds are the plan's" "jq not found"; fi
fi

st=0
grep -qx '          name: vllm_num_requests_running_and_waiting' "$tmp/hpa/deployment.yaml" &&
    grep -qx '          averageValue: "8"' "$tmp/hpa/deployment.yaml" &&
    grep -q "^#     metricsQuery: 'sum(vllm:num_requests_running{<<.LabelMatchers>>} + vllm:num_requests_waiting" "$tmp/hpa/deployment.yaml" &&
    grep -qx '      stabilizationWindowSeconds: 300' "$tmp/hpa/deployment.yaml" || st=1
[ $st -ne 0 ] && show "$tmp/hpa/deployment.yaml"
ok "hpa: a Pods metric of running + waiting requests at the policy's target (8), its adapter rule" $st

if [ $have_pyyaml -eq 1 ]; then
    yaml_kinds "$tmp/hpa/deployment.yaml" >"$tmp/kinds" 2>"$tmp/err"
    st=$?
    [ "$(cat "$tmp/kinds")" = "Deployment hpa-llama
Service hpa-llama
HorizontalPodAutoscaler hpa-llama" ] || st=1
    [ $st -ne 0 ] && show "$tmp/kinds" "$tmp/err"
    ok "hpa: deployment.yaml parses (PyYAML): Deployment, Service, HorizontalPodAutoscaler" $st
else
    [ "$(grep -c '^kind: ' "$tmp/hpa/deployment.yaml")" -eq 3 ] &&
        grep -q '^apiVersion: autoscaling/v2$' "$tmp/hpa/deployment.yaml"
    ok "hpa: deployment.yaml by structural grep (PyYAML not importable)" $?
fi

# 10-11. The same under target-latency: scaler.yaml, which dsec-scaler
# loads (--once --dry-run then fails to reach Prometheus: exit 3, not the
# 1 of a bad configuration).
sed 's/^policy: .*/policy: {name: target-latency, interval: 15s}/' \
    "$data/launch-hpa.yaml" >"$tmp/tl.yaml"
$dsec plan "$tmp/tl.yaml" --gpus h100 -j 2 --quiet --json \
    --launch "$tmp/tl" >"$tmp/tl.json" 2>"$tmp/err"
st=$?
[ -s "$tmp/tl/scaler.yaml" ] || st=1
grep -q 'HorizontalPodAutoscaler' "$tmp/tl/deployment.yaml" && st=1
if [ $st -eq 0 ] && [ $have_jq -eq 1 ]; then
    max=$(jq -r '.configurations[.chosen].replicas' "$tmp/tl.json")
    min=$(jq -r '.configurations[.chosen].min_replicas' "$tmp/tl.json")
    grep -qx "min_replicas: $min" "$tmp/tl/scaler.yaml" &&
        grep -qx "max_replicas: $max" "$tmp/tl/scaler.yaml" || st=1
fi
grep -qx '  name: target-latency' "$tmp/tl/scaler.yaml" &&
    grep -qx '  deployment: hpa-llama' "$tmp/tl/scaler.yaml" || st=1
[ $st -ne 0 ] && show "$tmp/err" "$tmp/tl/scaler.yaml"
ok "target-latency: scaler.yaml names the policy, the plan's bounds and the Deployment; no HPA" $st

if [ -x "$scaler" ]; then
    # No listener: a port in use by a parallel test would fail it.
    { cat "$tmp/tl/scaler.yaml"; echo "listen: ''"; } >"$tmp/scaler.yaml"
    "$scaler" --config "$tmp/scaler.yaml" --once --dry-run >"$tmp/out" 2>&1
    st=$?
    if [ $st -eq 0 ] || [ $st -eq 3 ]; then st=0; else st=1; fi
    grep -q ': error: ' "$tmp/out" && st=1
    [ $st -ne 0 ] && show "$tmp/out"
    ok "target-latency: dsec-scaler loads scaler.yaml" $st
else
    skip "target-latency: dsec-scaler loads scaler.yaml" "no dsec-scaler beside dsec"
fi

# 12-13. Disaggregated prefill/decode: a prefill and a decode line, each
# with its replicas and GPUs.
$dsec plan "$data/launch-pd.yaml" --gpus h200 -j 2 --quiet --json \
    --launch "$tmp/pd" >"$tmp/pd.json" 2>"$tmp/err"
st=$?
pre=$(vllm_line "$tmp/pd/serve.sh" prefill)
dec=$(vllm_line "$tmp/pd/serve.sh" decode)
for l in "$pre" "$dec"; do
    echo "$l" | grep -qF -- "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'" &&
        echo "$l" | grep -q -- '--enable-expert-parallel' &&
        echo "$l" | grep -q -- '--kv-cache-dtype fp8 --quantization fp8' || st=1
done
echo "$pre" | grep -q -- '--tensor-parallel-size 1 --data-parallel-size 8 ' &&
    echo "$dec" | grep -q -- '--tensor-parallel-size 1 --data-parallel-size 16 ' || st=1
grep -q "^MODEL=\${MODEL:-'Qwen/Qwen3-235B-A22B'}\$" "$tmp/pd/serve.sh" || st=1
sh -n "$tmp/pd/serve.sh" || st=1
[ $st -ne 0 ] && show "$tmp/err" "$tmp/pd/serve.sh"
ok "p/d: prefill (dp 8) and decode (dp 16) lines with NixlConnector, the model's Hugging Face id" $st

if [ $have_jq -eq 1 ]; then
    p=$(jq -r '.configurations[.chosen].prefill_replicas' "$tmp/pd.json")
    d=$(jq -r '.configurations[.chosen].decode_replicas' "$tmp/pd.json")
    got=$(awk '/^  name: /{name=$2} /^  replicas: /{printf "%s=%s ", name, $2}
               /nvidia.com\/gpu: /{printf "%s ", $2}' "$tmp/pd/deployment.yaml")
    [ "$got" = "pd-qwen-prefill=$p 8 pd-qwen-decode=$d 16 " ]
    st=$?
    [ $st -ne 0 ] && echo "# $got"
    ok "p/d: Deployments pd-qwen-prefill ($p x 8 GPUs) and pd-qwen-decode ($d x 16), the plan's split" $st
else
    skip "p/d: the Deployments carry the plan's split" "jq not found"
fi

# 14. DIR is a regular file: exit 1, naming it.
: >"$tmp/file"
$dsec plan "$data/small.yaml" --gpus h100 -j 2 --quiet --launch "$tmp/file" >/dev/null 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -qx "dsec plan: error: --launch $tmp/file: exists and is not a directory" "$tmp/err"; then
    st=0
else st=1; fi
[ $st -ne 0 ] && show "$tmp/err"
ok "--launch on a regular file: exit 1 naming it" $st

# 15. Nothing chosen: exit 1, nothing written.
$dsec plan "$data/elastic.yaml" --gpus h100 --policies hpa --max-gpus 1 -j 2 --quiet \
    --launch "$tmp/none" >/dev/null 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -qx "dsec plan: error: --launch $tmp/none: nothing chosen; nothing written" "$tmp/err" &&
    [ ! -e "$tmp/none" ]; then st=0; else st=1; fi
[ $st -ne 0 ] && show "$tmp/err"
ok "--launch with nothing chosen: exit 1, no directory" $st

# 16. --save-scenario under --duration writes the scenario's own duration.
$dsec plan "$data/small.yaml" --gpus h100 -j 2 --quiet --duration 1min \
    --save-scenario "$tmp/saved.yaml" >/dev/null 2>"$tmp/err"
st=$?
grep -qx '    duration: 3min' "$tmp/saved.yaml" &&
    ! grep -q "1min'*\$" "$tmp/saved.yaml" || st=1
[ $st -ne 0 ] && show "$tmp/err" "$tmp/saved.yaml"
ok "--save-scenario after --duration 1min keeps the scenario's 3min" $st

[ "$fails" -eq 0 ]
