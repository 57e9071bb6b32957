#!/bin/sh
# The man pages of dsec-scaler and dsec-calib name every long option their
# --help prints (printing TAP). dsec's own page is checked by e2e-help.sh.
set -u
: "${top_srcdir:=..}"
: "${top_builddir:=.}"
n=0
fails=0
ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
echo "1..2"
# check PAGE HELP-TEXT...: every --option the help defines (on its usage
# lines and its option lines, not those it quotes from other tools)
# appears in PAGE.
check() {
    page=$1
    shift
    missing=""
    for o in $(printf '%s\n' "$@" | grep -E '^(usage:| +\[| +-)' |
        grep -o -- '--[a-z][a-z-]*' | sort -u); do
        esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        grep -q -- "$esc" "$page" || missing="$missing $o"
    done
    [ -z "$missing" ] || echo "# $page lacks:$missing"
    [ -z "$missing" ]
}
check "$top_srcdir/man/dsec-scaler.1" "$("$top_builddir/dsec-scaler" --help 2>&1)"
ok "man/dsec-scaler.1 names every option of dsec-scaler --help" $?
all=""
for c in run import fit show scenario; do
    all="$all
$("$top_builddir/dsec-calib" "$c" --help 2>&1)"
done
check "$top_srcdir/man/dsec-calib.1" "$all"
ok "man/dsec-calib.1 names every option of each dsec-calib command's --help" $?
[ "$fails" -eq 0 ]
