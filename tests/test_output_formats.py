"""SARIF 2.1.0 validated against the official OASIS schema (tests/data), JSON errors on stdout."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from patchkit.cli import main

SCHEMA = json.loads(gzip.decompress((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json.gz").read_bytes()))
SRC = ("class A:\n    def __init__(self, c):\n        if c:\n            self.x = 1\n    def f(self):\n        return self.x\n"
       "class B:\n    def __init__(self):\n        self.y = 1\n    def g(self):\n        return self.z\n")


@pytest.fixture
def sarif_doc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(SRC)
    (tmp_path / "src" / "broken.py").write_text("def (:\n")
    r = CliRunner().invoke(main, ["check", "--no-cache", "src", "--format", "sarif"])
    assert r.exit_code == 3  # findings (1) + a file that could not be analysed (2)
    return json.loads(r.stdout), tmp_path


def test_sarif_validates_against_the_official_schema(sarif_doc):
    doc, _ = sarif_doc
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    errors = sorted(jsonschema.Draft4Validator(SCHEMA).iter_errors(doc), key=str)
    assert not errors, errors[0].message


def test_sarif_uses_relative_uris_with_a_base_id(sarif_doc):
    doc, root = sarif_doc
    run = doc["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.resolve().as_uri() + "/"
    locs = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert locs and all(loc == {"uri": "src/m.py", "uriBaseId": "%SRCROOT%"} for loc in locs)


def test_sarif_rules_carry_full_description_help_and_level(sarif_doc):
    doc, _ = sarif_doc
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    for code in ("PK001", "PK003", "PK004"):
        r = rules[code]
        assert r["fullDescription"]["text"] and r["helpUri"].endswith("#" + code.lower())
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert rules["PK003"]["defaultConfiguration"]["level"] == "error"
    for res in doc["runs"][0]["results"]:
        assert rules[res["ruleId"]] is doc["runs"][0]["tool"]["driver"]["rules"][res["ruleIndex"]]


def test_sarif_partial_fingerprints_survive_line_moves(sarif_doc):
    doc, root = sarif_doc
    before = {r["ruleId"]: r["partialFingerprints"]["patchkitFingerprint/v1"] for r in doc["runs"][0]["results"]}
    (root / "src" / "m.py").write_text("import os\n\n\n" + SRC)
    r = CliRunner().invoke(main, ["check", "--no-cache", "src/m.py", "--format", "sarif"])
    after = {x["ruleId"]: x["partialFingerprints"]["patchkitFingerprint/v1"] for x in json.loads(r.stdout)["runs"][0]["results"]}
    lines = [x["locations"][0]["physicalLocation"]["region"]["startLine"] for x in json.loads(r.stdout)["runs"][0]["results"]]
    assert after == before and min(lines) > 3


def test_sarif_notes_the_file_it_could_not_analyse(sarif_doc):
    doc, _ = sarif_doc
    inv = doc["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert any(n["message"]["text"].startswith("src/broken.py: syntax error") for n in inv["toolExecutionNotifications"])


@pytest.mark.parametrize("args", [
    ["check", "--format", "json", "nope.py"],
    ["check", "--format", "sarif", "nope.py"],
    ["apply", "dynamic-spec-disabl", "--json"],
    ["matrix", "dynamic-spec-disable", "--versions", "0.5.23..0.5.6", "--json"],
    ["explain", "PK999", "--json"],
    ["check", "--format", "json", "--fail-on", "never", "x.py"],   # click's own usage error
    ["fetch", "--json"],                                            # a missing argument
])
def test_json_errors_are_json_on_stdout(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2
    doc = json.loads(r.stdout)
    assert doc["error"]["exit_code"] == 2 and doc["error"]["message"] in " ".join(r.stderr.split())
