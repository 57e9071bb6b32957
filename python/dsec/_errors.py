"""DSecError, raised by every failing call into libdsec."""

from __future__ import annotations

from typing import List, Optional

from ._lib import borrowed_string, ffi, lib, take_string


class DSecError(Exception):
    """A libdsec call failed.

    ``code`` is the negative DSEC_E* status (``DSEC_EINVAL`` = -2, ...),
    ``messages`` the diagnostics one per item, each as the command line
    prints it (``"file:line:col: error: ..."``); ``str()`` is the whole
    message of the C library.
    """

    def __init__(self, message: str, code: int = -2,
                 messages: Optional[List[str]] = None) -> None:
        super().__init__(message)
        self.code = code
        self.messages = (
            messages if messages is not None
            else [ln for ln in message.splitlines() if ln.strip()]
        )

    @property
    def errors(self) -> List[str]:
        """The messages that are errors (not notes or warnings)."""
        return [m for m in self.messages if ": error: " in m or m.startswith("error: ")]


def strerror(code: int) -> str:
    """The library's short description of a DSEC_E* code."""
    return borrowed_string(lib.dsec_strerror(code))


def new_err():
    """A char ** for the err argument of a call."""
    return ffi.new("char **")


def raise_for(rc: int, err) -> None:
    """Raises DSecError when rc is negative, with the message in *err
    (freed); frees *err in any case."""
    msg = take_string(err[0]) if err[0] != ffi.NULL else ""
    err[0] = ffi.NULL
    if rc < 0:
        if not msg:
            msg = f"error: {strerror(rc)}"
        raise DSecError(msg, rc)
