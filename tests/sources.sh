#!/bin/sh
# Citations of docs/sources.md, printing TAP: every "docs/sources.md §X" in
# the source tree (*.c, *.h, *.md, *.yaml, man pages) names a section X that
# is a heading of docs/sources.md ("## X." or "### X "); no citation of the
# old development file (FACTS.md, "FACTS §") is left; and no path of a
# development machine (/work/, /home/, ../shared) appears in docs/, man/,
# README.md or the output of dsec help [scenario|gpus|models|links|policies].
# Run by `make check` (top_srcdir and DSEC set by the harness) or by hand
# from the build directory.
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

echo "1..5"

src=$srcdir/docs/sources.md
# The files of the tree to scan: sources, docs, scenarios, man pages.
find "$srcdir" \( -name .git -o -name _build -o -name autom4te.cache \
    -o -name '*.dir' \) -prune -o -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.md' -o -name '*.yaml' \
    -o -name '*.[1-8]' \) -print | sort >"$tmp/files"

# 1. docs/sources.md is there and has numbered headings.
sed -n 's/^##\{1,2\} \([0-9][0-9.]*\)[. ].*/\1/p' "$src" 2>/dev/null |
    sed 's/\.$//' | sort -u >"$tmp/sections"
st=0
[ -s "$tmp/sections" ] || st=1
grep -qx 1.1 "$tmp/sections" || st=1
ok "docs/sources.md has numbered sections ($(wc -l <"$tmp/sections"))" $st

# 2. Each "docs/sources.md §X" names a heading. The section may follow on
# the next line of a comment or string; a trailing full stop is not part
# of it.
st=0
: >"$tmp/bad"
while read -r f; do
    tr '\n' ' ' <"$f" |
        grep -o 'docs/sources\.md[ *#"/\\n]*§ *[0-9][0-9.]*' |
        sed 's/.*§ *//; s/\.*$//' | sort -u |
        while read -r x; do
            grep -qx "$x" "$tmp/sections" || echo "$f: §$x"
        done >>"$tmp/bad"
done <"$tmp/files"
[ -s "$tmp/bad" ] && st=1 && show "$tmp/bad"
ok "every docs/sources.md §X is a section of docs/sources.md" $st

# 3. No citation of FACTS.md or "FACTS §" is left.
st=0
while read -r f; do
    grep -Hn 'FACTS\.md\|FACTS §' "$f"
done <"$tmp/files" >"$tmp/facts"
[ -s "$tmp/facts" ] && st=1 && show "$tmp/facts"
ok "no FACTS.md citation left" $st

# 4. No development path in the user documentation.
st=0
{
    find "$srcdir/docs" "$srcdir/man" -type f
    echo "$srcdir/README.md"
} | sort | while read -r f; do
    grep -Hn '/work/\|/home/\|\.\./shared' "$f"
done >"$tmp/paths"
[ -s "$tmp/paths" ] && st=1 && show "$tmp/paths"
ok "no development path in docs/, man/, README.md" $st

# 5. Nor in the help texts.
st=0
: >"$tmp/help"
for t in "" scenario gpus models links policies; do
    # shellcheck disable=SC2086
    $dsec help $t >"$tmp/h" 2>&1 || {
        echo "dsec help $t: exit $?" >>"$tmp/help"
        continue
    }
    grep -n '/work/\|/home/\|\.\./shared' "$tmp/h" |
        sed "s|^|dsec help $t: |" >>"$tmp/help"
done
[ -s "$tmp/help" ] && st=1 && show "$tmp/help"
ok "no development path in dsec help [scenario|gpus|models|links|policies]" $st

[ $fails -eq 0 ]
