"""Make ``import ziosim.report`` work from the source tree without the native extension.

``python/`` goes on ``sys.path``. If ``ziosim/__init__.py`` cannot be imported (it needs
the Rust ``_core`` module, which a plain checkout has not built), ``ziosim`` is registered
as a bare package pointing at ``python/ziosim`` so its pure-Python subpackages still load.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"

if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

try:
    import ziosim  # noqa: F401
except ImportError:
    package = types.ModuleType("ziosim")
    package.__path__ = [str(PYTHON_DIR / "ziosim")]
    sys.modules["ziosim"] = package
