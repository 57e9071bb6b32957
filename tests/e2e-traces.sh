#!/bin/sh
# End-to-end tests of the trace formats through the dsec binary: the
# bundled Mooncake scenario with --trace on the shared copy of the public
# trace (skipped when absent), and the messages for a missing trace file.
# Prints TAP. Run by `make check` (top_srcdir, DSEC set by the harness) or
# by hand from the build directory.
set -u
srcdir=$(cd "${top_srcdir:-.}" && pwd)
dsec=${DSEC:-./dsec}
# Absolute, since one test runs from another directory.
dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..5"

. "$srcdir/tests/tap.sh"

scn=$srcdir/scenarios/mooncake-conversation.yaml

# Without the file, the bundled scenario says where to download it.
want="traces/mooncake/conversation_trace.jsonl: error: cannot open trace: No \
such file or directory; the Mooncake traces are in the kvcache-ai/Mooncake \
repository on GitHub, FAST25-release/traces/conversation_trace.jsonl"
$dsec run "$scn" --no-db >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "$want" "$tmp/err"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/err"
ok "missing Mooncake trace: exit 1 and where to download it" $st

# --trace replaces the path; a relative FILE is taken from the current
# directory.
(cd "$tmp" && $dsec run "$scn" --no-db --trace nowhere.jsonl) \
    >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^$tmp/nowhere.jsonl: error: cannot open trace" \
    "$tmp/err"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/err"
ok "--trace FILE is relative to the current directory" $st

$dsec run "$srcdir/scenarios/mm1.yaml" --no-db --trace x.jsonl \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "not a trace" "$tmp/err"
st=$?
ok "--trace on a synthetic workload is a usage error" $st

sed "s|path: .*|path: nowhere.csv|" "$srcdir/scenarios/azure-conv-trace.yaml" \
    >"$tmp/azure.yaml"
$dsec run "$tmp/azure.yaml" --no-db >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "Azure/AzurePublicDataset repository" "$tmp/err"
st=$?
ok "missing Azure trace names the repository" $st

shared=${DSEC_SHARED:-$srcdir/../shared}
trace=$shared/traces/mooncake-fast25/conversation_trace.jsonl
if [ -r "$trace" ]; then
    $dsec run "$scn" --trace "$trace" --json --no-db >"$tmp/mc.json" \
        2>"$tmp/err"
    st=$?
    grep -q '"requests_arrived": 12031' "$tmp/mc.json" || st=1
    [ $st -ne 0 ] && sed 's/^/# /' "$tmp/err" "$tmp/mc.json"
    ok "Mooncake conversation trace: all 12,031 requests arrive" $st
else
    skip "Mooncake conversation trace" "shared traces not found at $shared"
fi
[ "$fails" -eq 0 ]
