#!/bin/sh
# The floors of the house (docs/architecture.md): which folders the code of
# each folder may include. One TAP test per folder; a failure names each
# include that breaks its folder's rule. "config.h" (configure's header)
# and system headers are always allowed.
set -u
srcdir=${top_srcdir:-.}
cd "$srcdir" || exit 1

# folder: the folders its includes may name (a models/ folder by its
# subfolder, the rest by their top folder).
rules='include: dsec
base: dsec base
sim: base sim
models/policy: dsec base models/policy
models/arch: base models/arch
models/gpu: base models/gpu models/net
models/net: base sim models/net
models/perf: base sim models/arch models/gpu models/net models/perf
models/layout: base models/arch models/gpu models/net models/perf models/layout
models/workload: base sim models/workload
models/train: base sim models/arch models/gpu models/net models/perf models/layout models/train
models/cluster: base sim models
scenarios: base models scenarios
reports: base models reports
sweep: base sim models reports scenarios sweep
plan: base sim models reports scenarios sweep plan
twin: base sim models twin
scaler: base models/policy scaler
calib: base sim models scenarios calib
cli: base models reports scenarios sweep plan twin scaler cli
bench: base sim models reports scenarios sweep
lib: base sim models reports scenarios sweep lib'

echo "1..$(echo "$rules" | wc -l)"
n=0
fail=0
echo "$rules" | {
    while IFS=: read -r folder allowed; do
        n=$((n + 1))
        bad=$(find "$folder" -name '*.[ch]' | sort | while read -r f; do
            grep -n '^#include "' "$f" | while IFS= read -r line; do
                inc=${line#*\"}
                inc=${inc%%\"*}
                case "$inc" in */*) ;; *) continue ;; esac # config.h
                top=${inc%%/*}
                sub=$(echo "$inc" | cut -d/ -f1-2)
                ok=0
                for a in $allowed; do
                    case "$a" in
                    models/*) [ "$sub" = "$a" ] && ok=1 ;;
                    *) [ "$top" = "$a" ] && ok=1 ;;
                    esac
                done
                [ $ok -eq 1 ] || echo "$f:${line%%:*}: includes $inc"
            done
        done)
        if [ -z "$bad" ]; then
            echo "ok $n - $folder includes only:$allowed"
        else
            echo "not ok $n - $folder includes only:$allowed"
            echo "$bad" | sed 's/^/# /'
            fail=1
        fi
    done
    exit $fail
}
