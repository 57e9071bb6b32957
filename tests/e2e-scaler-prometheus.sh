#!/bin/sh
# The live scaler's acceptance test (issue #8), printing TAP: the whole
# chain with a real Prometheus server. dsec twin runs
# scenarios/twin-flash-crowd.yaml at 15x real time on loopback; Prometheus
# scrapes its /metrics every second; dsec-scaler queries Prometheus (PromQL
# over the HTTP API) every second and PATCHes the twin's Kubernetes scale
# subresource. Checks: the flash crowd makes the scaler scale up, then the
# calm after it down, always within [min, max] = [1, 8]; then Prometheus is
# killed and an operator sets 4 replicas by hand: the scaler holds (its
# holds counter grows with reason source_error, stale or no_replicas) and
# leaves the 4 alone. Every process is stopped on exit. Skips (77) without Prometheus
# ($PROMETHEUS, found by configure), dsec-scaler or curl. Run by `make
# check` or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-./dsec}
case $dsec in
/*) ;;
*) dsec=$(pwd)/$dsec ;;
esac
scaler=$builddir/dsec-scaler
case $scaler in
/*) ;;
*) scaler=$(pwd)/$scaler ;;
esac
prom=${PROMETHEUS:-}
if [ -z "$prom" ] || [ ! -x "$prom" ]; then
    echo "1..0 # SKIP no Prometheus (configure found none: PROMETHEUS is empty)"
    exit 77
fi
if [ ! -x "$scaler" ]; then
    echo "1..0 # SKIP $scaler was not built"
    exit 77
fi
command -v curl >/dev/null 2>&1 || { echo "1..0 # SKIP curl not found"; exit 77; }

tmp=$(mktemp -d)
twin_pid=
prom_pid=
scl_pid=
stop() { # stop PID: SIGTERM, then SIGKILL after 10 s
    [ -n "$1" ] || return 0
    kill -TERM "$1" 2>/dev/null || return 0
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
        sleep 0.2
        i=$((i + 1))
    done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
cleanup() {
    stop "$scl_pid"
    stop "$prom_pid"
    stop "$twin_pid"
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
# wait_for SECONDS COMMAND...: polls every 0.5 s until COMMAND succeeds.
wait_for() {
    limit=$(($1 * 2))
    shift
    i=0
    while [ $i -lt $limit ]; do
        "$@" && return 0
        sleep 0.5
        i=$((i + 1))
    done
    return 1
}
# A TCP port nobody uses now (from /proc/net/tcp{,6}), below the kernel's
# range for outgoing connections, so that none of those (another test's,
# under make -j) takes it before the server binds it.
used_ports() {
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk 'NR > 1 { split($2, a, ":"); print a[2] }'
}
eph_low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[ "${eph_low:-0}" -gt 21000 ] 2>/dev/null || eph_low=60000
free_port() {
    p=$((20000 + ($$ * 7 + $1 * 1013) % (eph_low - 20000 - 100)))
    used=$(used_ports)
    while echo "$used" | grep -qix "$(printf '%04X' $p)"; do
        p=$((p + 1))
    done
    echo $p
}
metric() { # metric URL NAME: the sum of NAME's samples (exact name+labels)
    curl -s -m 2 "$1/metrics" | awk -v k="$2" '
        { s = $0; sub(/ [^ ]*$/, "", s) }
        s == k || index(s, k "{") == 1 { v += $NF; f = 1 }
        END { if (f) print v + 0 }'
}
twin_spec() { metric "$twin" dsec_twin_spec_replicas; }
# Holds for want of metrics: reason source_error, stale or no_replicas.
holds_re='^dsec_scaler_holds_total[{]reason="(source_error|stale|no_replicas)"[}]'
holds() {
    curl -s -m 2 "$scl/metrics" | awk -v re="$holds_re" '
        $0 ~ re { v += $NF } END { print v + 0 }'
}
holds_grew() { # holds_grew N: at least N such holds
    [ "$(holds)" -ge "$1" ]
}
# Records spec.replicas on every poll, to check the bounds afterwards.
spec_at_least() { # spec_at_least N
    s=$(twin_spec)
    [ -n "$s" ] && echo "$s" >>"$tmp/specs"
    [ -n "$s" ] && [ "$s" -ge "$1" ]
}
spec_at_most() {
    s=$(twin_spec)
    [ -n "$s" ] && echo "$s" >>"$tmp/specs"
    [ -n "$s" ] && [ "$s" -le "$1" ]
}
echo "1..7"

tport=$(free_port 1)
pport=$(free_port 2)
sport=$(free_port 3)
twin=http://127.0.0.1:$tport
promurl=http://127.0.0.1:$pport
scl=http://127.0.0.1:$sport

# 1. Prometheus, then the twin, then the scaler come up.
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: dsec-twin
    static_configs:
      - targets: ['127.0.0.1:$tport']
EOF
cat >"$tmp/scaler.yaml" <<EOF
interval_s: 1
window_s: 3
stale_after_s: 4
min_replicas: 1
max_replicas: 8
gpus_per_replica: 1
target_latency_ms: 50
policy:
  name: hpa
  params: {metric: concurrency, target: 16, scale_down_stabilization: 3s,
           scale_up_period: 1s, scale_down_period: 1s}
  cooldown_up_s: 0
  cooldown_down_s: 2
  max_step_up: 8
  max_step_down: 8
metrics:
  source: prometheus
  prometheus_url: $promurl
  engine: vllm
  selector: '{job="dsec-twin"}'
actuator:
  kind: kubernetes
  api_server: $twin
  namespace: default
  deployment: llm
listen: 127.0.0.1:$sport
EOF
st=0
"$prom" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address=127.0.0.1:$pport --log.level=warn \
    >"$tmp/prom.log" 2>&1 &
prom_pid=$!
wait_for 60 curl -sf -o /dev/null "$promurl/-/ready" || { echo "# prometheus not ready"; st=1; }
"$dsec" twin "$srcdir/scenarios/twin-flash-crowd.yaml" \
    --listen 127.0.0.1:$tport --speed 15 >"$tmp/twin.out" 2>"$tmp/twin.err" &
twin_pid=$!
wait_for 30 grep -q 'listening on' "$tmp/twin.out" || { echo "# twin not up"; st=1; }
"$scaler" --config "$tmp/scaler.yaml" >"$tmp/scaler.log" 2>&1 &
scl_pid=$!
wait_for 30 curl -sf -o /dev/null "$scl/healthz" || { echo "# scaler not up"; st=1; }
# Prometheus has scraped the twin.
wait_for 30 sh -c "curl -s '$promurl/api/v1/query?query=up' | grep -q '\"value\":\[[0-9.]*,\"1\"\]'" ||
    { echo "# prometheus does not scrape the twin"; st=1; }
[ $st -ne 0 ] && show "$tmp/prom.log" "$tmp/twin.err" "$tmp/scaler.log"
ok "prometheus, dsec twin and dsec-scaler start; prometheus scrapes the twin" $st

# 2. The flash crowd (simulated 2 min to 8 min: 8 s to 32 s of wall time)
# makes the scaler scale up: spec.replicas reaches 3 or more.
st=0
wait_for 75 spec_at_least 3 || st=1
up=$(metric "$scl" 'dsec_scaler_decisions_total{action="up"}')
[ "${up:-0}" -ge 1 ] || { echo "# decisions up: ${up:-none}"; st=1; }
ready=$(metric "$twin" dsec_twin_ready_replicas)
[ $st -ne 0 ] && { show "$tmp/scaler.log" | tail -n 30; show "$tmp/twin.err"; }
ok "the flash crowd scales up (spec.replicas $(twin_spec), ${up:-0} up decisions, ready ${ready:-?})" $st

# 3. The twin's replicas follow: three or more serve and report.
st=0
wait_for 30 sh -c "[ \"\$(curl -s '$twin/metrics' | sed -n 's/^dsec_twin_ready_replicas //p')\" -ge 3 ]" || st=1
ok "the twin's new replicas start and serve" $st

# 4. The calm after the crowd scales it down again.
st=0
wait_for 90 spec_at_most 2 || st=1
down=$(metric "$scl" 'dsec_scaler_decisions_total{action="down"}')
[ "${down:-0}" -ge 1 ] || { echo "# decisions down: ${down:-none}"; st=1; }
[ $st -ne 0 ] && { show "$tmp/scaler.log" | tail -n 30; show "$tmp/twin.err"; }
ok "the calm scales down (spec.replicas $(twin_spec), ${down:-0} down decisions)" $st

# 5. Always within [1, 8]: every spec.replicas seen, and every PATCH the
# twin logged.
st=0
sort -n -u "$tmp/specs" | tr '\n' ' ' | sed 's/^/# spec.replicas seen: /'
echo
awk '$1 < 1 || $1 > 8 { bad = 1 } END { exit bad }' "$tmp/specs" || st=1
sed -n 's/.*spec.replicas \([0-9]*\) -> .*/\1/p' "$tmp/twin.err" |
    awk '$1 < 1 || $1 > 8 { bad = 1 } END { exit bad }' || st=1
[ $st -ne 0 ] && show "$tmp/twin.err"
ok "spec.replicas stays within [1, 8]" $st

# 6. Prometheus goes away; an operator sets 4 by hand. The scaler holds
# (stale or failing metrics) and leaves the 4 alone.
st=0
stop "$prom_pid"
prom_pid=
h0=$(holds)
curl -s -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
    --data-binary '{"spec":{"replicas":4}}' \
    "$twin/apis/apps/v1/namespaces/default/deployments/llm/scale"
wait_for 30 holds_grew $((h0 + 3)) ||
    { echo "# holds did not grow from $h0: $(holds)"; st=1; }
[ "$(twin_spec)" = 4 ] || { echo "# spec.replicas moved to $(twin_spec)"; st=1; }
curl -s "$scl/metrics" | grep '^dsec_scaler_holds_total' | show
[ $st -ne 0 ] && show "$tmp/scaler.log" | tail -n 20
ok "without Prometheus the scaler holds and leaves spec.replicas at 4" $st

# 7. The scaler and the twin stop cleanly on SIGTERM.
kill -TERM "$scl_pid"
wait "$scl_pid"
src=$?
scl_pid=
kill -TERM "$twin_pid"
wait "$twin_pid"
trc=$?
twin_pid=
st=0
[ $src -eq 0 ] && [ $trc -eq 0 ] || st=1
ok "dsec-scaler ($src) and dsec twin ($trc) exit 0 on SIGTERM" $st
[ $fails -eq 0 ]
