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


def tunables(ram_bytes: int | None = None) -> list[dict[str, Any]]:
    """Every tunable declaration; a default derived from RAM (``derived``) is the core's value
    for ``ram_bytes`` (the default ``zfs.ram`` when None), and its row names that RAM."""
    if ram_bytes is None:
        return json.loads(core().tunables_json(None))
    return json.loads(core().tunables_json(None, ram_bytes))


def tunables_at_load(release: str, ram_bytes: int, overrides: dict[str, int]) -> dict[str, int]:
    """The value of every tunable ``release`` has as a run on ``ram_bytes`` of RAM with these
    overrides starts — the derived defaults included — from the simulation's own code."""
    return json.loads(core().tunables_at_load(release, ram_bytes, json.dumps(overrides, sort_keys=True)))


def presets() -> dict[str, dict[str, Any]]:
    return json.loads(core().presets_json())


def link_presets() -> dict[str, dict[str, Any]]:
    return json.loads(core().link_presets_json())
