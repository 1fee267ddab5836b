"""Rewrite fake_core_tunables.json from the real ziosim._core (run after changing tunables.rs).

    .venv/bin/python tests/python/regen_fake_core.py
"""

import json
from pathlib import Path

from ziosim import _core

out = Path(__file__).with_name("fake_core_tunables.json")
data = {
    "releases": list(_core.releases()),
    "tunables": json.loads(_core.tunables_json(None)),
    "link_presets": json.loads(_core.link_presets_json()),
}
out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {out}")
