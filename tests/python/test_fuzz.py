"""Fuzzed scenarios (design.md §8, robustness): the bundled scenarios, mutated at random —
keys dropped, values swapped for values of other types, out of range or malformed, unknown
keys added — must each either run or stop with one ScenarioError line naming a field
(and perhaps a `hint:` line).
Nothing else may escape: no other exception, no panic from the core. Seeded, so a failure
names the mutation that reproduces it."""

from __future__ import annotations

import copy
import importlib
import json
import math
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from ziosim import scenario
from ziosim.errors import ScenarioError

from conftest import ROOT, SCENARIOS

pytestmark = pytest.mark.needs_core

BASES = sorted(SCENARIOS.glob("*.toml")) + sorted((SCENARIOS / "sweeps").glob("*-*.toml")) + sorted(
    p for p in (ROOT / "cases").glob("*/*.toml") if p.name != "case.toml"
)
# Values of every kind a user (or a typo) can put in TOML, plus some at the edges.
WEIRD: list[Any] = [
    0, -1, 1, 7, 2**31, 2**63 - 1, -(2**63), 0.0, -0.5, 0.5, 1.5, 1e300, math.inf, -math.inf, math.nan,
    True, False, "", "x", "0", "-5s", "1e400K", "10s", "4K", "0.5", "zfs-9.9", "raidz9", "sda",
    "hdd-7200-sata-2014", "scan-done or", [], [1], ["x"], [[4096, 1.0]], {}, {"x": 1},
]


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, path + (i,))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate(doc: dict, rng: random.Random) -> list[str]:
    """Apply one to three random edits to `doc` in place; returns what was done."""
    done = []
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent, key = _parent(doc, path), path[-1]
        op = rng.random()
        if op < 0.25 and isinstance(parent, dict):
            del parent[key]
            done.append(f"del {path}")
        elif op < 0.35 and isinstance(parent, dict):
            parent[key + "_typo"] = copy.deepcopy(parent[key])
            done.append(f"typo {path}")
        elif op < 0.45 and isinstance(parent, list) and parent:
            parent.append(copy.deepcopy(rng.choice(parent)))
            done.append(f"dup {path}")
        else:
            v = rng.choice(WEIRD)
            parent[key] = copy.deepcopy(v)
            done.append(f"set {path} = {v!r}")
    return done


@pytest.fixture
def real_core(monkeypatch):
    monkeypatch.delitem(sys.modules, "ziosim._core", raising=False)
    return importlib.import_module("ziosim._core")


# ZIOSIM_FUZZ_BLOCKS=200 for a deeper run; each block is 150 mutated scenarios.
@pytest.mark.parametrize("block", range(int(os.environ.get("ZIOSIM_FUZZ_BLOCKS", "12"))))
def test_mutated_scenarios_run_or_fail_with_one_line(block, real_core):
    import tomllib

    docs = [(p, tomllib.loads(p.read_text(encoding="utf-8"))) for p in BASES]
    rng = random.Random(1000 + block)
    ran = refused = 0
    for i in range(150):
        base, doc = rng.choice(docs)
        doc = copy.deepcopy(doc)
        edits = mutate(doc, rng)
        where = f"block {block} case {i}: {base.relative_to(ROOT)} with {edits}"
        try:
            s = scenario.from_dict(doc, default_name=base.stem, path=str(base))
        except ScenarioError as e:
            # One line naming the field, optionally followed by a `hint:` line.
            lines = str(e).splitlines()
            assert lines and lines[0] and all(ln.startswith("hint: ") for ln in lines[1:]), f"{where}: {str(e)!r}"
            refused += 1
            continue
        except Exception as e:  # noqa: BLE001 - any other exception is the bug under test
            pytest.fail(f"{where}: {type(e).__name__}: {e}")
        # Accepted by the loader: the core must take it (or refuse it in one line) and step.
        cfg = json.loads(s.config_json())
        cfg["stop_ns"] = min(cfg["stop_ns"], 2 * 10**9)
        try:
            sim = real_core.Simulation(json.dumps(cfg))
        except ValueError as e:
            assert "\n" not in str(e).strip(), f"{where}: multi-line core error {e!r}"
            refused += 1
            continue
        except BaseException as e:  # noqa: BLE001 - a panic from the core
            pytest.fail(f"{where}: core raised {type(e).__name__}: {e}")
        try:
            sim.step_events(20_000)
            json.loads(sim.results_json())
        except BaseException as e:  # noqa: BLE001
            pytest.fail(f"{where}: running raised {type(e).__name__}: {e}")
        ran += 1
    assert ran > 0 and refused > 0, (ran, refused)


def test_a_link_no_disk_uses_is_accepted(real_core):
    """Found by the fuzzer: a declared link without disks made the core panic."""
    import tomllib

    doc = tomllib.loads((SCENARIOS / "port-multiplier.toml").read_text(encoding="utf-8"))
    del doc["pool"]["vdevs"][0]["link"]
    s = scenario.from_dict(doc, default_name="pm")
    cfg = json.loads(s.config_json())
    cfg["stop_ns"] = 10**9
    sim = real_core.Simulation(json.dumps(cfg))
    while not sim.step_events(100_000):  # True once the run is done
        pass
    res = json.loads(sim.results_json())
    assert res["workloads"][0]["ops"] > 0
