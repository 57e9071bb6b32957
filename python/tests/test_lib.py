"""The binding itself: library lookup, struct layouts, version, errors."""

import os
import re
import subprocess
import sys

import pytest

import dsec
from dsec import _lib


def test_version_is_the_library_release():
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?\S*", dsec.__version__)
    assert dsec.__version__ == _lib.ffi.string(_lib.lib.dsec_version()).decode()


def test_struct_sizes_match_dsec_type_size():
    for name in _lib.CHECKED_STRUCTS:
        size = _lib.lib.dsec_type_size(name.encode())
        assert size > 0, name
        assert _lib.ffi.sizeof("struct " + name) == size, name
    assert _lib.lib.dsec_type_size(b"no_such_struct") == 0
    assert _lib.lib.dsec_policy_api_version() == dsec.POL_API_VERSION == 1


class _FakeLib:
    """A library whose pol_pool is 8 bytes larger than ours."""

    def __init__(self, api=1):
        self.api = api

    def dsec_policy_api_version(self):
        return self.api

    def dsec_type_size(self, name):
        n = name.decode()
        size = _lib.ffi.sizeof("struct " + n)
        return size + 8 if n == "pol_pool" else size


def test_layout_mismatch_is_an_import_error_naming_the_struct():
    with pytest.raises(ImportError, match=r"struct pol_pool: \d+ bytes .* \d+ in fake"):
        _lib.check_layout(_FakeLib(), where="fake")
    with pytest.raises(ImportError, match="policy API version 2"):
        _lib.check_layout(_FakeLib(api=2), where="fake")
    _lib.check_layout()  # the real one passes


def test_missing_library_is_a_clear_import_error(tmp_path):
    env = dict(os.environ, DSEC_LIBRARY=str(tmp_path / "nowhere" / "libdsec.so.1"),
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", "import dsec; print(dsec.LIBRARY_PATH)"],
                       env=env, capture_output=True, text=True, timeout=60)
    if p.returncode == 0:
        # an installed libdsec was found after DSEC_LIBRARY failed
        assert "nowhere" not in p.stdout
    else:
        assert "ImportError: cannot load libdsec; tried:" in p.stderr
        assert "DSEC_LIBRARY: " + str(tmp_path / "nowhere" / "libdsec.so.1") in p.stderr
        assert "ctypes.util.find_library(\"dsec\")" in p.stderr


def test_dsec_error_carries_code_and_messages():
    e = dsec.DSecError("a.yaml:1:2: error: x\na.yaml:3:4: error: y", -2)
    assert e.code == -2
    assert e.messages == ["a.yaml:1:2: error: x", "a.yaml:3:4: error: y"]
    assert e.errors == e.messages
    assert str(e) == "a.yaml:1:2: error: x\na.yaml:3:4: error: y"
