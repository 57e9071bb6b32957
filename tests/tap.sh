# TAP helpers for the end-to-end scripts, sourced after `n`, `fails` and
# the plan line: ok DESCRIPTION STATUS, skip DESCRIPTION REASON, show FILE
# (as TAP comments). A script ends with `exit $((fails > 0))`.
n=${n:-0}
fails=${fails:-0}

ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
skip() { # skip DESCRIPTION REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
show() { sed 's/^/# /' "$@"; }
