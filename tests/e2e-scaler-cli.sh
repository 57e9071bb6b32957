#!/bin/sh
# End-to-end tests of the dsec-scaler binary, printing TAP: options, exit
# codes, configuration errors, a hold on an unreachable metrics source,
# JSON logs, its own /metrics and /healthz, and a clean stop on SIGTERM.
# Needs no network: every address is on loopback and nothing listens on
# port 1. The chain with a real Prometheus and the twin is
# tests/e2e-scaler-prometheus.sh.
set -u
srcdir=${top_srcdir:-.}
scaler=${top_builddir:-.}/dsec-scaler
tmp=$(mktemp -d)
pid=
trap 'test -n "$pid" && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..9"

. "$srcdir/tests/tap.sh"

"$scaler" --help >"$tmp/help" 2>&1
st=$?
miss=0
for o in --config --dry-run --once --log-format --help --version; do
    grep -q -- "$o" "$tmp/help" || { echo "# --help lacks $o"; miss=1; }
done
ok "--help lists every option" $((st + miss))

"$scaler" --version | grep -q '^dsec-scaler '
ok "--version" $?

"$scaler" --once >/dev/null 2>&1
test $? -eq 2
ok "no --config is a usage error (exit 2)" $?

"$scaler" --config "$srcdir/tests/data/scaler/bad.yaml" >"$tmp/out" 2>"$tmp/err"
st=$?
want="$srcdir/tests/data/scaler/bad.yaml:14:1: error: colour: unknown key; valid: actuator, gpus_per_replica, interval_s, listen, max_replicas, metrics, min_replicas, policy, price_per_replica_hour, provision_s, scale_to_zero_grace_s, stale_after_s, target_latency_ms, target_ttft_ms, window_s"
if [ "$st" -eq 1 ] && grep -qxF "$want" "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" -eq 8 ]; then
    ok "bad configuration: every error with file:line:col, exit 1" 0
else
    echo "# exit $st"
    sed 's/^/# /' "$tmp/err"
    ok "bad configuration: every error with file:line:col, exit 1" 1
fi

cat >"$tmp/down.yaml" <<EOT
max_replicas: 4
policy: {name: hpa}
metrics: {source: prometheus, prometheus_url: 'http://127.0.0.1:1'}
actuator: {kind: exec, command: [/bin/sh, -c, 'echo \$0 > $tmp/ran', '{replicas}']}
listen: ''
EOT
"$scaler" --config "$tmp/down.yaml" --once >"$tmp/out" 2>"$tmp/err"
st=$?
# --once says it could not reach its source: exit 3.
if [ "$st" -eq 3 ] &&
    grep -q 'msg="holding: prometheus query failed" reason=source_error' "$tmp/err" &&
    grep -q 'msg=decision policy=hpa action=hold' "$tmp/err" &&
    ! test -e "$tmp/ran"; then
    ok "metrics source down: hold, say so, run nothing, --once exits 3" 0
else
    echo "# exit $st"
    sed 's/^/# /' "$tmp/err"
    ok "metrics source down: hold, say so, run nothing, --once exits 3" 1
fi

"$scaler" --config "$tmp/down.yaml" --once --log-format json >/dev/null 2>"$tmp/err"
if head -n 1 "$tmp/err" | grep -q '^{"ts":"[0-9T:.Z-]*","level":"info","msg":"starting"'; then
    ok "--log-format json" 0
else
    sed 's/^/# /' "$tmp/err"
    ok "--log-format json" 1
fi

"$scaler" --config "$tmp/down.yaml" --log-format yaml >/dev/null 2>&1
test $? -eq 2
ok "--log-format with a bad value is a usage error" $?

# A loopback port unlikely to be taken; skipped if it is.
port=$((20000 + $$ % 20000))
cat >"$tmp/run.yaml" <<EOT
interval_s: 1
window_s: 2
max_replicas: 4
metrics: {source: prometheus, prometheus_url: 'http://127.0.0.1:1'}
actuator: {kind: log}
listen: 127.0.0.1:$port
EOT
"$scaler" --config "$tmp/run.yaml" >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
while [ $i -lt 50 ] && ! grep -q 'msg=decision' "$tmp/err"; do
    sleep 0.1
    i=$((i + 1))
done
if grep -q 'cannot serve' "$tmp/err"; then
    skip "own /metrics and /healthz" "port $port in use"
elif command -v curl >/dev/null 2>&1; then
    m=$(curl -s "http://127.0.0.1:$port/metrics")
    h=$(curl -s "http://127.0.0.1:$port/healthz")
    echo "$m" | grep -q '^dsec_scaler_holds_total{reason="source_error"} [1-9]' &&
        echo "$m" | grep -q '^dsec_scaler_decisions_total{action="hold"} [1-9]' &&
        test "$h" = ok
    ok "own /metrics and /healthz" $?
else
    skip "own /metrics and /healthz" "no curl"
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid"
st=$?
pid=
test "$st" -eq 0 && grep -q 'msg="stopping on signal"' "$tmp/err"
ok "SIGTERM stops cleanly (exit 0)" $?

test "$fails" -eq 0
