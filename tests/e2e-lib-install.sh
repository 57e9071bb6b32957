#!/bin/sh
# End-to-end test of libdsec as users get it (docs/library.md), printing
# TAP: installs the library, its headers and dsec.pc into a temporary
# DESTDIR, builds the C example of docs/library.md (extracted from the
# page) with pkg-config against that copy, shared and static, and checks
# its output against `dsec run --json`; builds the example policy plug-in
# (contrib/policy-plugin) with its own Makefile against the installed
# headers and runs a scenario that names it. Run by `make check`
# (top_srcdir, top_builddir, DSEC set by the harness).
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..8"
. "$srcdir/tests/tap.sh"

builddir=$(cd "$builddir" && pwd)
srcdir=$(cd "$srcdir" && pwd)
dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
# A sanitizer build's library needs the sanitizer runtime in the program.
cc="${CC:-cc} ${DSEC_SAN_CFLAGS:-}"

# 1. Install only the library's parts, into DESTDIR (a recursive make of
# the build tree; the parent's jobserver is not ours).
unset MAKEFLAGS MFLAGS MAKELEVEL
if ${MAKE:-make} -s -C "$builddir" DESTDIR="$tmp/root" \
    install-libLTLIBRARIES install-includeHEADERS \
    install-dsecincludeHEADERS install-pkgconfigDATA >"$tmp/install.log" 2>&1
then
    ok "make install of libdsec, headers and dsec.pc into a DESTDIR" 0
else
    show "$tmp/install.log"
    ok "make install of libdsec, headers and dsec.pc into a DESTDIR" 1
    for i in 2 3 4 5 6 7 8; do skip "after the install" "it failed"; done
    exit 1
fi
pc=$(find "$tmp/root" -name dsec.pc | head -n 1)
export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
libdir=$tmp/root$(pkg-config --variable=libdir "$pc" 2>/dev/null | \
    sed "s|^$tmp/root||")
test -e "$libdir/libdsec.so.1" && test -e "$libdir/libdsec.a" &&
    test -e "$(dirname "$pc")/../../include/dsec/policy.h" 2>/dev/null ||
    test -n "$(find "$tmp/root" -path '*include/dsec/policy.h')"
ok "installed libdsec.so.1, libdsec.a and dsec/policy.h" $?

# 2. The example of docs/library.md, built against the installed copy.
awk '/^```c$/ { on = 1; next } /^```$/ { if (on) exit } on' \
    "$srcdir/docs/library.md" >"$tmp/run.c"
grep -q 'dsec_run(' "$tmp/run.c"
ok "docs/library.md has its example" $?
# The scenario: the bundled compare fixture, two minutes shorter.
scn=$srcdir/tests/data/e2e/compare-small.yaml
if $cc $(pkg-config --cflags dsec) "$tmp/run.c" -o "$tmp/run" \
    $(pkg-config --libs dsec) >"$tmp/cc.log" 2>&1; then
    ok "the example compiles and links with pkg-config (shared)" 0
else
    show "$tmp/cc.log"
    ok "the example compiles and links with pkg-config (shared)" 1
fi
LD_LIBRARY_PATH=$libdir "$tmp/run" "$scn" workload.synthetic.duration=4min \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
"$dsec" run "$scn" --set workload.synthetic.duration=4min --no-db --json \
    >"$tmp/cli.json" 2>/dev/null
want=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
print("compare-small: ttft_p99_ms %.3f cost_usd %.4f slo_attainment %.6f" %
      (r["ttft_ms"]["p99"], r["cost_usd"], r["slo_attainment"]))' \
      "$tmp/cli.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$want" ] && [ "$(cat "$tmp/out")" = "$want" ]; then
    ok "its output equals dsec run --json's: $want" 0
else
    echo "# got: $(cat "$tmp/out") $(cat "$tmp/err")"
    echo "# want: $want"
    ok "its output equals dsec run --json's" 1
fi
# A bad override: the library's message, exit 1.
LD_LIBRARY_PATH=$libdir "$tmp/run" "$scn" cluster.max_gpus=many \
    >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'override cluster.max_gpus=many' "$tmp/err"; then
    ok "a bad override is an error naming it, exit 1" 0
else
    show "$tmp/err"
    ok "a bad override is an error naming it, exit 1 (got $rc)" 1
fi

# 3. Static: libdsec.a and what dsec.pc --static says it needs.
if $cc $(pkg-config --cflags dsec) "$tmp/run.c" -o "$tmp/run-static" \
    "$libdir/libdsec.a" $(pkg-config --static --libs-only-other \
    --libs-only-l dsec | sed 's/-ldsec//') >"$tmp/cc.log" 2>&1 &&
    [ "$("$tmp/run-static" "$scn" workload.synthetic.duration=4min)" = "$want" ]
then
    ok "the example linked statically gives the same output" 0
else
    show "$tmp/cc.log"
    ok "the example linked statically gives the same output" 1
fi

# 4. The plug-in, built with its own Makefile against the installed
# headers, named by a scenario.
mkdir "$tmp/plugin"
cp "$srcdir/contrib/policy-plugin/queue_step.c" \
    "$srcdir/contrib/policy-plugin/Makefile" "$tmp/plugin/"
if ${MAKE:-make} -s -C "$tmp/plugin" >"$tmp/plugin.log" 2>&1; then
    sed -e 's/^  name: target-latency$/  plugin: .\/libqueue_step.so\
  params: {up_waiting: 0.5}/' "$scn" >"$tmp/plugin/scenario.yaml"
    "$dsec" run "$tmp/plugin/scenario.yaml" --no-db --json \
        >"$tmp/plugin.json" 2>"$tmp/plugin.err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q '"policy": "queue-step"' "$tmp/plugin.json"
    then
        ok "contrib/policy-plugin builds and runs under dsec" 0
    else
        show "$tmp/plugin.err"
        ok "contrib/policy-plugin builds and runs under dsec (rc $rc)" 1
    fi
else
    show "$tmp/plugin.log"
    ok "contrib/policy-plugin builds against the installed headers" 1
fi
exit $((fails > 0))
