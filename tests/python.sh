#!/bin/sh
# The Python package's tests (python/tests, pytest), printing TAP: one line
# per pytest test case, from pytest's JUnit XML. Run by `make check`
# (PYTHON, top_srcdir, top_builddir and DSEC_SAN_CFLAGS set by the harness)
# or by hand from the build directory:
#   PYTHON=python3 top_srcdir=.. sh ../tests/python.sh
# Skips without a Python 3 (configure's PYTHON is ':'), without cffi or
# pytest, in a sanitizer build (its libdsec cannot be loaded into an
# uninstrumented interpreter) and without a shared libdsec. Nothing is
# written to the source tree: no bytecode, no pytest cache.
set -u
py=${PYTHON:-:}
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}

skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

[ "$py" = ":" ] || [ -z "$py" ] && skip_all "no Python 3 found by configure"
[ -n "${DSEC_SAN_CFLAGS:-}" ] &&
    skip_all "sanitizer build: libdsec needs an instrumented interpreter"
"$py" -c 'import cffi, pytest' >/dev/null 2>&1 ||
    skip_all "$py lacks cffi or pytest (Debian: python3-cffi python3-pytest)"

srcdir=$(cd "$srcdir" && pwd)
builddir=$(cd "$builddir" && pwd)
lib=$builddir/lib/.libs/libdsec.so.1
[ -f "$lib" ] || skip_all "no shared libdsec at lib/.libs/libdsec.so.1"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

DSEC_LIBRARY=$lib
DSEC_PLUGIN_DIR=$builddir/tests/.libs
PYTHONPATH=$srcdir/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
top_srcdir=$srcdir
top_builddir=$builddir
export DSEC_LIBRARY DSEC_PLUGIN_DIR PYTHONPATH PYTHONDONTWRITEBYTECODE \
    top_srcdir top_builddir

# In a folder of its own, so that nothing lands in the trees.
(cd "$tmp" && "$py" -B -m pytest -p no:cacheprovider -q -rs \
    --junitxml="$tmp/junit.xml" "$srcdir/python/tests") >"$tmp/log" 2>&1
st=$?

"$py" - "$tmp/junit.xml" "$tmp/log" "$st" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET

xml_path, log_path, status = sys.argv[1], sys.argv[2], int(sys.argv[3])


def comment(text):
    for line in text.splitlines():
        print("# " + line)


try:
    cases = list(ET.parse(xml_path).getroot().iter("testcase"))
except (OSError, ET.ParseError) as e:
    cases = None
if not cases:
    print("1..1")
    print(f"not ok 1 - pytest ran and reported its tests (status {status})")
    with open(log_path, errors="replace") as f:
        comment(f.read())
    sys.exit(0)
extra = status not in (0, 1)  # 1: some test failed, reported below
print(f"1..{len(cases) + (1 if extra else 0)}")
for n, tc in enumerate(cases, 1):
    mod = tc.get("classname", "").split(".")[-1]
    name = f"{mod}::{tc.get('name')}".replace("#", "no.")
    bad = tc.find("failure")
    if bad is None:
        bad = tc.find("error")
    skipped = tc.find("skipped")
    if bad is not None:
        print(f"not ok {n} - {name}")
        comment(bad.get("message", "") + "\n" + (bad.text or ""))
    elif skipped is not None:
        why = (skipped.get("message") or "skipped").replace("\n", " ")
        print(f"ok {n} - {name} # SKIP {why}")
    else:
        print(f"ok {n} - {name}")
if extra:
    print(f"not ok {len(cases) + 1} - pytest exited with status {status}")
    with open(log_path, errors="replace") as f:
        comment(f.read())
PYEOF
