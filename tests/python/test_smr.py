"""Drive-managed SMR (crates/ziosim-model/src/device/smr.rs) through the scenario layer."""

from __future__ import annotations

import pytest

from conftest import SCENARIOS

pytestmark = pytest.mark.needs_core


def _write(tmp_path, device_lines: str):
    text = (SCENARIOS / "smr" / "resilver-smr.toml").read_text()
    head, _, rest = text.partition("[devices.new]\nlike = \"wd40efax\"\n")
    p = tmp_path / "s.toml"
    p.write_text(head + "[devices.new]\n" + device_lines + rest)
    return p


def test_the_smr_preset_resilvers_slower_than_the_same_disk_as_cmr(tmp_path):
    import ziosim

    smr = ziosim.run_scenario(_write(tmp_path, 'like = "wd40efax"\n'), stop="scan-done or 1h")
    cmr = ziosim.run_scenario(_write(tmp_path, 'like = "wd40efax"\nsmr_media_cache_bytes = 0\n'), stop="scan-done or 1h")
    assert smr["digest"] != cmr["digest"]
    assert smr["sim_time_ns"] > cmr["sim_time_ns"], (smr["sim_time_ns"], cmr["sim_time_ns"])


def test_a_cmr_preset_takes_the_smr_fields_with_units(tmp_path):
    from ziosim import scenario

    p = _write(tmp_path, 'like = "wd20efrx"\nsmr_media_cache = "20G"\nsmr_band = "30M"\n'
                         'smr_clean_idle_delay = "1s"\nsmr_band_bypass = true\n')
    spec = scenario.load(p).config["devices"]["new"]
    assert (spec["smr_media_cache_bytes"], spec["smr_band_bytes"], spec["smr_clean_idle_delay_ms"]) == (
        20 * 1024**3, 30 * 1024**2, 1000.0)


def test_smr_field_errors_name_the_field(tmp_path):
    from ziosim import ScenarioError, scenario

    p = _write(tmp_path, 'like = "wd40efax"\nsmr_band_bytes = 1000\n')
    with pytest.raises(ScenarioError, match=r"devices\.new\.smr_band_bytes: 1000 — out of range"):
        scenario.load(p)
