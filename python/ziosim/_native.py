"""Access to the compiled core, `ziosim._core`.

Always imported through `importlib` so that `sys.modules["ziosim._core"]` decides which
module is used: tests put a small fake there, and an uninstalled build gives one clear
error instead of an ImportError deep in a call stack.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from .errors import InternalError


class CoreMissing(InternalError):
    """The compiled core is not there: an installation problem, not a bug to report."""


def core() -> ModuleType:
    try:
        return importlib.import_module("ziosim._core")
    except ImportError as e:
        raise CoreMissing(
            "the native module ziosim._core is not built or not importable "
            f"({e}); build it with `maturin develop --release`"
        ) from e


def releases() -> list[str]:
    return list(core().releases())


def tunables() -> list[dict[str, Any]]:
    return json.loads(core().tunables_json(None))


def presets() -> dict[str, dict[str, Any]]:
    return json.loads(core().presets_json())


def link_presets() -> dict[str, dict[str, Any]]:
    return json.loads(core().link_presets_json())
