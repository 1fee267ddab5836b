"""docs/scenario.md documents every field of the JSON Schema, and names nothing else."""

import re

from ziosim import scenario

from conftest import ROOT

SCHEMA = scenario.json_schema()
DOC = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")


def _resolve(node):
    while "$ref" in node:
        name = node["$ref"].split("/")[-1]
        node = {**SCHEMA["$defs"][name], **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def schema_paths(node=SCHEMA, prefix=""):
    """Field paths as the docs write them: `pool.vdevs[].type`, `devices.<name>.like`."""
    node = _resolve(node)
    for key, sub in node.get("properties", {}).items():
        path = f"{prefix}.{key}" if prefix else key
        yield path, _resolve(sub)
        sub = _resolve(sub)
        if sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            yield from schema_paths(sub["items"], path + "[]")
        else:
            yield from schema_paths(sub, path)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and "properties" in _resolve(extra):
        yield from schema_paths(extra, prefix + ".<name>")
    for alt in node.get("oneOf", []):  # e.g. pool.layout: a preset name or a table
        yield from schema_paths(alt, prefix)


PATHS = dict(schema_paths())


def test_walker_sees_the_nested_fields():
    for p in ("pool.vdevs[].type", "devices.<name>.like", "links.<name>.rate", "workload[].region.length"):
        assert p in PATHS


def test_every_schema_field_is_documented():
    missing = [p for p in PATHS if f"`{p}`" not in DOC]
    assert missing == []


def test_every_schema_field_has_a_description():
    assert [p for p, node in PATHS.items() if not node.get("description")] == []


def test_docs_document_no_field_the_schema_lacks():
    rows = re.findall(r"^\| `([a-z_<>.\[\]]+)` \|", DOC, flags=re.M)
    assert rows, "the reference tables start each row with a `field`"
    assert sorted(set(rows) - set(PATHS)) == []


def test_error_examples_in_the_docs_are_what_ziosim_prints():
    from test_scenario import BAD_EXPECTED

    for name in ("raidz2-two-disks.toml", "unknown-key.toml"):
        lines = BAD_EXPECTED[name].splitlines()
        block = "\n".join([f"error: {lines[0]}"] + lines[1:])
        assert block in DOC, name
