#!/bin/sh
# End-to-end tests of the commands' help (cli/), printing TAP: every command
# of the table answers --help with exit 0 and the same text as `dsec help
# COMMAND`, and that text names every long option of the command's getopt
# table. Run by `make check` (top_srcdir and DSEC set by the harness) or by
# hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
case $dsec in
/*) ;;
*) dsec=$(pwd)/$dsec ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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

# The commands, as dsec --help lists them.
$dsec --help >"$tmp/top" 2>&1
top_st=$?
cmds=$(sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$tmp/top")
ncmds=$(echo "$cmds" | wc -w)
echo "1..$((2 * ncmds + 6))"

# 1. dsec --help lists the command table.
st=$top_st
for c in help run validate; do
    echo " $cmds " | tr '\n' ' ' | grep -q " $c " || st=1
done
[ $st -ne 0 ] && show "$tmp/top"
ok "dsec --help lists the commands ($ncmds)" $st

# 2 per command. dsec CMD --help exits 0 and is dsec help CMD, byte for
# byte; and it names every long option of the getopt table in
# cli/cmd-CMD.c. Where the text has an option list, each option has its own
# line ("  --name" or "  -x, --name"); --help itself need not be listed.
for c in $cmds; do
    st=0
    $dsec "$c" --help >"$tmp/h.$c" 2>"$tmp/e.$c" || st=1
    [ -s "$tmp/h.$c" ] && [ ! -s "$tmp/e.$c" ] || st=1
    $dsec help "$c" >"$tmp/g.$c" 2>&1 || st=1
    cmp -s "$tmp/h.$c" "$tmp/g.$c" || st=1
    [ $st -ne 0 ] && show "$tmp/h.$c" "$tmp/e.$c" "$tmp/g.$c"
    ok "dsec $c --help exits 0 and equals dsec help $c" $st

    st=0
    src=$srcdir/cli/cmd-$c.c
    if [ -f "$src" ]; then
        opts=$(sed -n 's/^ *{"\([a-z0-9-]*\)", *[a-z]*_argument,.*/\1/p' "$src")
        for o in $opts; do
            [ "$o" = help ] && continue
            if grep -q '^options:' "$tmp/h.$c"; then
                grep -qE -- "^  (-[a-zA-Z], )?--$o( |\$)" "$tmp/h.$c" ||
                    { echo "# dsec $c --help lacks a line for --$o"; st=1; }
            else
                grep -qE -- "--$o([^a-z0-9-]|\$)" "$tmp/h.$c" ||
                    { echo "# dsec $c --help lacks --$o"; st=1; }
            fi
        done
    else
        echo "# no $src"
        st=1
    fi
    ok "dsec $c --help names every long option of its getopt table" $st
done

# The usage line each help opens with.
st=0
for c in compare report run validate; do
    head -n 1 "$tmp/h.$c" | grep -q "^usage: dsec $c " ||
        { echo "# dsec $c --help: $(head -n 1 "$tmp/h.$c")"; st=1; }
done
ok "run, compare, report and validate --help open with their usage" $st

# dsec validate --help is help, not a file named --help; -- still ends the
# options, and a file is still checked.
st=0
$dsec validate --help >"$tmp/v" 2>"$tmp/ve" || st=1
grep -q '^usage: dsec validate ' "$tmp/v" || st=1
grep -q 'cannot open' "$tmp/v" "$tmp/ve" && st=1
cp "$srcdir/scenarios/seed-dsec.yaml" "$tmp/-seed.yaml"
(cd "$tmp" && $dsec validate -- -seed.yaml) >"$tmp/vf" 2>&1 || st=1
grep -q '^-seed.yaml: ok: ' "$tmp/vf" || st=1
[ $st -ne 0 ] && show "$tmp/v" "$tmp/ve" "$tmp/vf"
ok "dsec validate --help prints usage and exits 0; -- ends the options" $st

# Bad options are still usage errors (exit 2) with the usage line.
st=0
for c in compare report run validate; do
    $dsec "$c" --no-such-option >"$tmp/o" 2>"$tmp/oe"
    [ $? -eq 2 ] && grep -q "^usage: dsec $c " "$tmp/oe" ||
        { echo "# dsec $c --no-such-option"; st=1; }
done
ok "an unknown option exits 2 with the usage line" $st

# dsec help --help is help's own usage (not an unknown topic), as dsec help
# help; an unknown topic still exits 2 and lists the valid ones.
st=0
$dsec help --help >"$tmp/hh" 2>"$tmp/hhe" || st=1
head -n 1 "$tmp/hh" | grep -q '^usage: dsec help \[COMMAND|' || st=1
grep -q 'unknown topic' "$tmp/hh" "$tmp/hhe" && st=1
cmp -s "$tmp/hh" "$tmp/h.help" || st=1
$dsec help no-such-topic >"$tmp/o" 2>"$tmp/oe"
[ $? -eq 2 ] && grep -q "unknown topic 'no-such-topic'; valid: .*scenario" \
    "$tmp/oe" || st=1
[ $st -ne 0 ] && show "$tmp/hh" "$tmp/hhe" "$tmp/oe"
ok "dsec help --help prints help's usage; an unknown topic exits 2" $st

# --help does nothing else: dsec run --help and compare --help open no
# database, and report --help writes no report.
st=0
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && $dsec run --help && $dsec compare --help &&
    $dsec report --help --latest) >/dev/null 2>&1 || st=1
[ -z "$(ls -A "$tmp/cwd")" ] || { ls -A "$tmp/cwd" | show; st=1; }
ok "--help writes no database or report" $st

[ $fails -eq 0 ]
