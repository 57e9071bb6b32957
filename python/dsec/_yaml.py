"""A small YAML emitter for scenarios written as Python dicts.

Only what a scenario needs: mappings with string keys, lists, strings,
numbers, booleans and None, in block style. Strings that YAML would read
as something else (booleans, numbers, null, text with ``: `` or `` #``,
leading indicators) are double-quoted; dsec reads quoted values like plain
ones, so ``"10min"`` and ``10min`` mean the same to it. PyYAML is not
needed.
"""

from __future__ import annotations

import math
import re
from typing import Any, List

_PLAIN = re.compile(r"^[A-Za-z0-9_./$%+(<~^=\\-][A-Za-z0-9_./$%+()<>~^=\\\- :@]*$")
_SPECIAL = re.compile(
    r"^(?:true|false|yes|no|on|off|y|n|null|nil|~|"
    r"[-+]?(?:\d[\d_]*)?\.?\d*(?:[eE][-+]?\d+)?|[-+]?\.?(?:inf|nan)|0x[0-9a-f]+|0o[0-7]+)$",
    re.IGNORECASE,
)


def scalar(value: Any) -> str:
    """One scalar as YAML text (``true``, ``12``, ``0.5``, ``"a: b"``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"dsec scenarios take finite numbers, not {value!r}")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    raise TypeError(f"cannot write a {type(value).__name__} as a YAML scalar: {value!r}")


def _string(s: str) -> str:
    if (
        s
        and _PLAIN.match(s)
        and not _SPECIAL.match(s)
        and ": " not in s
        and " #" not in s
        and not s.endswith((" ", ":"))
        and not s.startswith(("- ", "-:"))
    ):
        return s
    out = s.replace("\\", "\\\\").replace('"', '\\"')
    out = out.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return '"' + out + '"'


def _is_scalar(v: Any) -> bool:
    return not isinstance(v, (dict, list, tuple))


def flow(value: Any) -> str:
    """A value in flow style, one line (for KEY=VALUE overrides):
    ``{a: 1, b: [x, y]}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def _key(k: Any) -> str:
    if not isinstance(k, str):
        raise TypeError(f"scenario keys are strings, not {k!r}")
    return _string(k)


def _block(value: Any, indent: int) -> List[str]:
    pad = " " * indent
    lines: List[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if _is_scalar(v) or not v:
                lines.append(f"{pad}{_key(k)}: {flow(v)}")
            elif isinstance(v, dict):
                lines.append(f"{pad}{_key(k)}:")
                lines.extend(_block(v, indent + 2))
            else:
                lines.append(f"{pad}{_key(k)}:")
                lines.extend(_block(v, indent + 2))
    elif isinstance(value, (list, tuple)):
        for v in value:
            if _is_scalar(v) or not v:
                lines.append(f"{pad}- {flow(v)}")
            else:
                sub = _block(v, indent + 2)
                # the first line of the item goes after the dash
                lines.append(f"{pad}- {sub[0][indent + 2:]}")
                lines.extend(sub[1:])
    else:
        lines.append(pad + scalar(value))
    return lines


def dump(value: Any) -> str:
    """A document in block style, ending with a newline."""
    if not isinstance(value, dict):
        raise TypeError("a scenario is a mapping (a dict)")
    return "\n".join(_block(value, 0)) + "\n"
