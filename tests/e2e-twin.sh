#!/bin/sh
# End-to-end test of dsec twin (twin/, docs/twin.md), printing TAP: starts
# the twin on a free loopback port on scenarios/twin-flash-crowd.yaml at 20x
# real time, reads /metrics (vLLM names, types and histogram buckets of
# docs/sources.md §6.1; buckets cumulative, +Inf equal to _count), drives
# the Kubernetes scale subresource (GET, PATCH, then the replicas serving
# follow; bounds; dryRun) and its errors (415, 404, 400, 422, 405), then
# stops it with SIGTERM (exit 0, a summary). Skips (77) without curl. Run
# by `make check` (top_srcdir and DSEC set by the harness) or by hand from
# the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
case $dsec in
/*) ;;
*) dsec=$(pwd)/$dsec ;;
esac
command -v curl >/dev/null 2>&1 || { echo "1..0 # SKIP curl not found"; exit 77; }
tmp=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
n=0
fails=0
ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
show() { sed 's/^/# /' "$@"; }
scn=$srcdir/scenarios/twin-flash-crowd.yaml
ns=default
dep=llm
echo "1..13"

# wait_for SECONDS COMMAND...: polls every 0.2 s until COMMAND succeeds.
wait_for() {
    limit=$(($1 * 5))
    shift
    i=0
    while [ $i -lt $limit ]; do
        "$@" && return 0
        sleep 0.2
        i=$((i + 1))
    done
    return 1
}
# req METHOD PATH [CONTENT-TYPE BODY]: the status code; the body in $tmp/b.
req() {
    if [ $# -ge 4 ]; then
        curl -s -o "$tmp/b" -w '%{http_code}' -X "$1" -H "Content-Type: $3" \
            --data-binary "$4" "$url$2"
    else
        curl -s -o "$tmp/b" -w '%{http_code}' -X "$1" "$url$2"
    fi
}
gauge() { # gauge NAME: its value on /metrics now
    curl -s "$url/metrics" | sed -n "s/^$1 //p"
}
scale=/apis/apps/v1/namespaces/$ns/deployments/$dep/scale

# 1. It starts, prints its URL and says the policy is replaced.
"$dsec" twin "$scn" --listen 127.0.0.1:0 --speed 20 --namespace "$ns" \
    --deployment "$dep" >"$tmp/out" 2>"$tmp/err" &
pid=$!
st=0
wait_for 30 grep -q 'listening on http://' "$tmp/out" || st=1
url=$(sed -n 's/^dsec twin: listening on //p' "$tmp/out")
grep -q "policy 'hpa' is replaced" "$tmp/err" || st=1
[ $st -ne 0 ] && show "$tmp/out" "$tmp/err"
ok "dsec twin starts on a free port and prints its URL ($url)" $st

# 2. /healthz.
st=0
[ "$(req GET /healthz)" = 200 ] && grep -qx ok "$tmp/b" || st=1
ok "GET /healthz answers ok" $st

# 2b. Idle clients do not make it unreachable: 1,100 open connections that
# say nothing (more than select()'s 1,024), then /healthz still answers.
st=0
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1200 ]; then
    echo "ok $((n + 1)) - idle connections # SKIP open-file limit $hard < 1200"
    n=$((n + 1))
else
    # bash for /dev/tcp; the connections close when it exits.
    bash -c '
        ulimit -n 1200 2>/dev/null || ulimit -n "$2"
        hp=${1#http://}
        for i in $(seq 1100); do
            exec {fd}<>"/dev/tcp/${hp%:*}/${hp##*:}" || exit 1
        done
        sleep 1
        [ "$(curl -s -m 5 "$1/healthz")" = ok ]' idle "$url" "$hard" || st=1
    ok "GET /healthz answers with 1,100 idle connections open" $st
fi

# 3. /metrics: every vLLM metric with its type.
st=0
curl -s -D "$tmp/h" "$url/metrics" >"$tmp/m" || st=1
grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/h" || st=1
for nt in vllm:num_requests_running:gauge vllm:num_requests_waiting:gauge \
    vllm:kv_cache_usage_perc:gauge vllm:prompt_tokens_total:counter \
    vllm:generation_tokens_total:counter vllm:request_success_total:counter \
    vllm:time_to_first_token_seconds:histogram \
    vllm:inter_token_latency_seconds:histogram \
    vllm:e2e_request_latency_seconds:histogram \
    vllm:request_prompt_tokens:histogram \
    vllm:request_generation_tokens:histogram vllm:cache_config_info:gauge \
    dsec_twin_sim_time_seconds:gauge dsec_twin_desired_replicas:gauge \
    dsec_twin_ready_replicas:gauge dsec_twin_pending_replicas:gauge; do
    name=${nt%:*}
    type=${nt##*:}
    grep -qx "# TYPE $name $type" "$tmp/m" ||
        { echo "# no '# TYPE $name $type'"; st=1; }
done
grep -q '^vllm:num_requests_running{model_name="llama-3.1-8b",engine="0",replica="llm-0"} ' \
    "$tmp/m" || { echo "# no series for replica llm-0"; st=1; }
[ $st -ne 0 ] && show "$tmp/h" && head -n 40 "$tmp/m" | show
ok "GET /metrics has vLLM's names and types, labelled per replica" $st

# 4. Histogram buckets are vLLM's, cumulative, and +Inf equals _count.
wait_for 20 sh -c "curl -s '$url/metrics' | grep -q '^vllm:request_success_total.* [1-9]'"
curl -s "$url/metrics" >"$tmp/m"
st=0
ttft="0.001 0.005 0.01 0.02 0.04 0.06 0.08 0.1 0.25 0.5 0.75 1.0 2.5 5.0 7.5 10.0 20.0 40.0 80.0 160.0 640.0 2560.0 +Inf"
itl="0.01 0.025 0.05 0.075 0.1 0.15 0.2 0.3 0.4 0.5 0.75 1.0 2.5 5.0 7.5 10.0 20.0 40.0 80.0 +Inf"
e2e="0.3 0.5 0.8 1.0 1.5 2.0 2.5 5.0 10.0 15.0 20.0 30.0 40.0 50.0 60.0 120.0 240.0 480.0 960.0 1920.0 7680.0 +Inf"
len="1.0 2.0 5.0 10.0 20.0 50.0 100.0 200.0 500.0 1000.0 2000.0 5000.0 10000.0 20000.0 50000.0 100000.0 +Inf"
for h in "time_to_first_token_seconds:$ttft" "inter_token_latency_seconds:$itl" \
    "e2e_request_latency_seconds:$e2e" "request_prompt_tokens:$len" \
    "request_generation_tokens:$len"; do
    name=vllm:${h%%:*}
    want=${h#*:}
    got=$(grep "^${name}_bucket{.*replica=\"llm-0\"" "$tmp/m" |
        sed 's/.*le="\([^"]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || { echo "# $name buckets: $got"; st=1; }
    awk -v name="$name" '
        index($0, name "_bucket{") == 1 {
            key = $0; sub(/,le=.*/, "", key); sub(/^[^{]*\{/, "", key)
            if (key in last && $NF + 0 < last[key]) bad = 1
            last[key] = $NF + 0
            if ($0 ~ /le="\+Inf"/) inf[key] = $NF + 0
        }
        index($0, name "_count{") == 1 {
            key = $0; sub(/\}.*/, "", key); sub(/^[^{]*\{/, "", key)
            cnt[key] = $NF + 0; nc++
        }
        END {
            for (k in cnt) if (!(k in inf) || inf[k] != cnt[k]) bad = 1
            if (nc == 0) bad = 1
            exit bad
        }' "$tmp/m" || { echo "# $name: buckets not cumulative or +Inf != _count"; st=1; }
done
grep -q '^vllm:time_to_first_token_seconds_count{.*} [1-9]' "$tmp/m" ||
    { echo "# no TTFT observed yet"; st=1; }
[ $st -ne 0 ] && grep 'time_to_first_token_seconds' "$tmp/m" | show
ok "histograms have vLLM's buckets, cumulative, +Inf = _count" $st

# 5. GET scale: an autoscaling/v1 Scale of one replica.
st=0
[ "$(req GET "$scale")" = 200 ] || st=1
grep -q '"kind":"Scale","apiVersion":"autoscaling/v1"' "$tmp/b" || st=1
grep -q '"spec":{"replicas":1}' "$tmp/b" || st=1
grep -q '"status":{"replicas":1,"selector":"app=llm"}' "$tmp/b" || st=1
[ $st -ne 0 ] && show "$tmp/b"
ok "GET the scale subresource gives a Scale with spec.replicas 1" $st

# 6. PATCH to 3: the answer says 3, and three replicas serve soon after
# (48 simulated seconds: 2.4 s of wall time at 20x).
st=0
[ "$(req PATCH "$scale" application/merge-patch+json '{"spec":{"replicas":3}}')" = 200 ] || st=1
grep -q '"spec":{"replicas":3}' "$tmp/b" || st=1
[ "$(gauge dsec_twin_pending_replicas)" = 2 ] || st=1
wait_for 30 sh -c "[ \"\$(curl -s '$url/metrics' | sed -n 's/^dsec_twin_ready_replicas //p')\" = 3 ]" || st=1
reps=$(curl -s "$url/metrics" | grep '^vllm:num_requests_running{' |
    sed 's/.*replica="\([^"]*\)".*/\1/' | sort -u | tr '\n' ' ')
[ "$reps" = "llm-0 llm-1 llm-2 " ] || { echo "# replicas: $reps"; st=1; }
[ $st -ne 0 ] && show "$tmp/b"
ok "PATCH spec.replicas 3: three replicas serve and report metrics" $st

# 7. Bounds: spec.replicas 99 is stored, the cluster goes to its max (8).
st=0
[ "$(req PATCH "$scale" application/merge-patch+json '{"spec":{"replicas":99}}')" = 200 ] || st=1
grep -q '"spec":{"replicas":99}' "$tmp/b" || st=1
[ "$(gauge dsec_twin_desired_replicas)" = 8 ] || st=1
[ "$(gauge dsec_twin_max_replicas)" = 8 ] || st=1
[ $st -ne 0 ] && show "$tmp/b"
ok "PATCH beyond the bounds: spec kept, the cluster clamped to max 8" $st

# 8. dryRun=All validates and changes nothing; a JSON patch works too.
st=0
[ "$(req PATCH "$scale?dryRun=All" application/merge-patch+json '{"spec":{"replicas":2}}')" = 200 ] || st=1
grep -q '"spec":{"replicas":99}' "$tmp/b" || st=1
[ "$(req PATCH "$scale" application/json-patch+json '[{"op":"replace","path":"/spec/replicas","value":2}]')" = 200 ] || st=1
grep -q '"spec":{"replicas":2}' "$tmp/b" || st=1
[ "$(gauge dsec_twin_desired_replicas)" = 2 ] || st=1
[ $st -ne 0 ] && show "$tmp/b"
ok "dryRun=All changes nothing; a JSON patch of /spec/replicas applies" $st

# 9. Scale down to 1: the surplus drains and goes.
st=0
[ "$(req PATCH "$scale" application/strategic-merge-patch+json '{"spec":{"replicas":1}}')" = 200 ] || st=1
wait_for 30 sh -c "[ \"\$(curl -s '$url/metrics' | grep -c '^vllm:num_requests_running{')\" = 1 ]" || st=1
[ "$(gauge dsec_twin_ready_replicas)" = 1 ] || st=1
ok "PATCH down to 1: the others drain and stop reporting" $st

# 10. Errors as the API server answers them.
st=0
c=$(req PATCH "$scale" application/json '{"spec":{"replicas":2}}')
[ "$c" = 415 ] && grep -q '"reason":"UnsupportedMediaType"' "$tmp/b" ||
    { echo "# wrong content type: $c"; show "$tmp/b"; st=1; }
c=$(req PATCH /apis/apps/v1/namespaces/$ns/deployments/other/scale \
    application/merge-patch+json '{"spec":{"replicas":2}}')
[ "$c" = 404 ] && grep -q 'deployments.apps \\"other\\" not found' "$tmp/b" &&
    grep -q '"reason":"NotFound"' "$tmp/b" ||
    { echo "# wrong name: $c"; show "$tmp/b"; st=1; }
c=$(req GET /apis/apps/v1/namespaces/prod/deployments/$dep/scale)
[ "$c" = 404 ] || { echo "# wrong namespace: $c"; st=1; }
c=$(req PATCH "$scale" application/merge-patch+json '{"spec":{"replicas":')
[ "$c" = 400 ] && grep -q '"reason":"BadRequest"' "$tmp/b" ||
    { echo "# truncated JSON: $c"; show "$tmp/b"; st=1; }
c=$(req PATCH "$scale" application/merge-patch+json '{"spec":{"replicas":"two"}}')
[ "$c" = 400 ] || { echo "# string replicas: $c"; show "$tmp/b"; st=1; }
c=$(req PATCH "$scale" application/merge-patch+json '{"spec":{"replicas":-1}}')
[ "$c" = 422 ] && grep -q '"reason":"Invalid"' "$tmp/b" &&
    grep -q 'spec.replicas: Invalid value: -1' "$tmp/b" ||
    { echo "# negative replicas: $c"; show "$tmp/b"; st=1; }
c=$(req PUT "$scale" application/json '{"spec":{"replicas":2}}')
[ "$c" = 405 ] || { echo "# PUT: $c"; st=1; }
c=$(req GET /nothing)
[ "$c" = 404 ] || { echo "# /nothing: $c"; st=1; }
[ "$(gauge dsec_twin_spec_replicas)" = 1 ] || { echo "# a bad request changed spec"; st=1; }
ok "wrong content type 415, wrong name 404, bad body 400/422, PUT 405" $st

# 11. SIGTERM: exit 0 with a summary.
st=0
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] || { echo "# exit $rc"; st=1; }
grep -q '^dsec twin: stopped at .* simulated: .* requests arrived' "$tmp/err" || st=1
[ $st -ne 0 ] && show "$tmp/err"
ok "SIGTERM stops it with exit 0 and a summary" $st

# 12. Usage and scenario errors.
st=0
"$dsec" twin "$scn" >/dev/null 2>"$tmp/e1"
[ $? -eq 2 ] && grep -q -- '--listen HOST:PORT is required' "$tmp/e1" || st=1
"$dsec" twin "$scn" --listen 127.0.0.1:0 --speed 0 >/dev/null 2>"$tmp/e2"
[ $? -eq 2 ] || st=1
"$dsec" twin "$scn" --listen 127.0.0.1:0 --deployment Bad_Name >/dev/null 2>"$tmp/e3"
[ $? -eq 2 ] || st=1
"$dsec" twin "$srcdir/scenarios/mm1.yaml" --listen 127.0.0.1:0 >/dev/null 2>"$tmp/e4"
[ $? -eq 1 ] && grep -q 'needs an elastic cluster' "$tmp/e4" || st=1
"$dsec" twin "$scn" --listen nohost.invalid:x >/dev/null 2>"$tmp/e5"
[ $? -eq 1 ] || st=1
timeout 10 "$dsec" twin "$scn" --listen 127.0.0.1:99999 >/dev/null 2>"$tmp/e6"
[ $? -eq 1 ] && grep -q "port '99999' is not a number in \[0, 65535\]" "$tmp/e6" || st=1
[ $st -ne 0 ] && show "$tmp/e1" "$tmp/e2" "$tmp/e3" "$tmp/e4" "$tmp/e5" "$tmp/e6"
ok "usage errors exit 2; a static scenario, a bad address or port exit 1" $st

[ $fails -eq 0 ]
