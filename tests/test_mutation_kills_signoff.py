"""Tests written to kill mutants that the rest of the suite let live (issue 21, item 7): a
sign-off with ``passed: false`` must never sign a target off, and the hashes of the journalled
files must be compared (not only their presence); the gate's stages run on a toy target (a
patch plugin written to a temporary folder), each with the known-bad input it must catch."""
from __future__ import annotations

import copy
import dataclasses
import json
import textwrap
from pathlib import Path

import pytest

from patchkit import __version__, engine, gate, journal as jr, signoff
from patchkit.ftypes import Target, TargetKind

from test_engine import BASE, REL, make_patch

STAGES = [{"name": "boot", "passed": True, "detail": "", "seconds": 1.0}]


def record(t: Target, passed: bool = True, failure=None, env=None, stages=None) -> dict:
    env = dict(env if env is not None else signoff.environment_now())
    return signoff.build(t, passed, env, {"tp": 1}, copy.deepcopy(stages if stages is not None else STAGES), {},
                         failure)


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    (tmp_path / "toy" / "other.py").write_text("X = 1\n")
    t = Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)
    engine.apply(make_patch(), t)
    return t


# ---------------------------------------------------------------------------- passed: false
def test_a_failed_signoff_never_signs_the_target_off(toy, tmp_path):
    """Kills: a sign-off with ``passed: false`` accepted (everything else about it matches)."""
    env = {"torch": None, "gpu_model": None}
    failed = record(toy, False, {"stage": "first-decode", "message": "boom", "location": "w.py:3"}, env,
                    [{"name": "boot", "passed": True}, {"name": "first-decode", "passed": False}])
    assert signoff.validate(failed) is failed  # a well-formed record of a failed run
    why = signoff.mismatch(failed, toy, tp=1, environment=env)
    assert why == "the sign-off on record failed at stage 'first-decode': boom"
    ok = record(toy, True, None, env)
    assert signoff.mismatch(ok, toy, tp=1, environment=env) is None  # the same record, passing
    # a failed record without a failure block still fails (the stage is unknown)
    bare = dict(ok, passed=False)
    assert signoff.mismatch(bare, toy, environment=env) == "the sign-off on record failed at stage '?': "


def test_the_gate_signoff_stage_fails_on_a_failed_record(toy, tmp_path):
    path = tmp_path / "so.json"
    signoff.write(record(toy, False, {"stage": "ready", "message": "exited 1", "location": ""},
                         stages=[{"name": "ready", "passed": False}]), path)
    verdict, detail = gate._signoff(toy, path, 1)
    assert verdict == gate.FAIL and "failed at stage 'ready': exited 1" in detail and str(path) in detail
    signoff.write(record(toy), path)
    verdict, detail = gate._signoff(toy, path, 1)
    assert verdict == gate.PASS and "1 package files" not in detail and "2 package files" in detail
    verdict, detail = gate._signoff(toy, path, 2)
    assert verdict == gate.FAIL and "--tp 1, this launch uses --tp 2" in detail
    (path.parent / "nothing.json").unlink(missing_ok=True)
    verdict, detail = gate._signoff(toy, path.parent / "nothing.json", 1)
    assert verdict == gate.FAIL and "no sign-off on record" in detail
    path.write_text("{not json")
    verdict, detail = gate._signoff(toy, path, 1)
    assert verdict == gate.FAIL and "malformed sign-off" in detail


# ---------------------------------------------------------------------------- file hashes
@pytest.fixture
def two_packages(tmp_path) -> Target:
    """A distribution whose import package is ``toyx`` while the patch edits ``toy/worker.py``,
    another top-level package of the same distribution: only the sign-off's ``files`` binds it."""
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    (tmp_path / "toyx").mkdir()
    (tmp_path / "toyx" / "__init__.py").write_text("")
    t = Target("toyx", "1.2", tmp_path, TargetKind.DIRECTORY)
    engine.apply(dataclasses.replace(make_patch(), distribution="toyx"), t)
    return t


def test_signoff_compares_the_hash_of_every_journalled_file(two_packages):
    """Kills: sign-off file hashes not compared (only the set of names)."""
    t = two_packages
    env = {"torch": None, "gpu_model": None}
    rec = record(t, env=env)
    assert set(rec["files"]) == {REL} and REL not in rec["package"]["hashes"]
    assert signoff.mismatch(rec, t, environment=env) is None
    edited = t.file(REL).read_text() + "\nEXTRA = 1\n"
    t.file(REL).write_text(edited)  # a hand edit after the smoke test, outside the import package
    why = signoff.mismatch(rec, t, environment=env)
    assert why is not None and why.startswith(f"{REL}: sha256 ") and "file changed since the smoke test" in why
    assert rec["files"][REL][:12] in why
    # the same record after the smoke test is re-run on the edited file passes again
    assert signoff.mismatch(record(t, env=env), t, environment=env) is None


def test_signoff_files_must_name_the_same_files(two_packages):
    t = two_packages
    env = {"torch": None, "gpu_model": None}
    rec = record(t, env=env)
    more = copy.deepcopy(rec)
    more["files"]["toy/other.py"] = "0" * 64
    assert "the sign-off covers files" in signoff.mismatch(more, t, environment=env)
    t.file(REL).unlink()
    why = signoff.mismatch(rec, t, environment=env)
    assert why.startswith(f"{REL}: sha256 missing")


def test_current_files_lists_each_patch_once(toy):
    files, patches = signoff.current_files(toy)
    assert list(files) == [REL] and files[REL] == jr.load(toy).entries[0].sha_after
    assert patches == [{"name": "toy-threshold", "version": "1.0", "strategy": "only"}]


def test_the_target_version_is_bound(toy):
    env = {"torch": None, "gpu_model": None}
    rec = record(toy, env=env)
    rec["target"]["version"] = "1.1"
    assert signoff.mismatch(rec, toy, environment=env) == "the sign-off is for toy 1.1, the target is 1.2"


def test_a_record_with_cells_passes_only_when_every_cell_did(toy):
    rec = record(toy, env={"torch": None, "gpu_model": None})
    rec["cells"] = [{"name": "a", "verdict": "pass"}, {"name": "b", "verdict": "refused"}]
    assert signoff.validate(rec) is rec
    rec["cells"][1]["verdict"] = "fail"
    with pytest.raises(Exception, match="a cell did not pass"):
        signoff.validate(rec)
    rec["cells"] = []
    with pytest.raises(Exception, match="a cell did not pass"):
        signoff.validate(rec)


def test_signature_problems_are_named(toy):
    rec = record(toy, env={"torch": None, "gpu_model": None})
    assert "not signed" in signoff.signature_problem(rec, "k")
    signed = signoff.sign(rec, "k")
    assert signoff.signature_problem(signed, "k") is None
    assert "needs the key" in signoff.signature_problem(signed, None)
    assert "another key" in signoff.signature_problem(signed, "other")
    tampered = dict(signed, created="2000-01-01T00:00:00+00:00")
    assert "does not match" in signoff.signature_problem(tampered, "k")
    assert signoff.mismatch(tampered, toy, key="k", environment={"torch": None, "gpu_model": None}) \
        == "the signature does not match the record (edited after signing?)"


# ---------------------------------------------------------------------------- the gate on a toy target
PLUGIN = '''
from packaging.specifiers import SpecifierSet
from patchkit import codemod as cm
from patchkit.ftypes import Anchor, AnchorNotFound
from patchkit.patchdef import Edit, Patch, Strategy

REL = "toy/worker.py"
INVARIANT = {invariant!r}


def transform(module):
    fn = cm.find_method(REL, module, "Worker", "__init__")
    return cm.insert(module, cm.find_stmt(REL, fn, cm.assigns_self_attr("steps"), "Worker.__init__"),
                     cm.statements({line!r}), after=True)


def applied(module):
    try:
        return cm.contains_stmt(cm.find_method(REL, module, "Worker", "__init__"), cm.assigns_self_attr("limit"))
    except AnchorNotFound:
        return False


def check(read):
    return None if INVARIANT in read(REL) else f"{{REL}} lacks {{INVARIANT!r}}"


EDIT = Edit(REL, "assign self.limit", (Anchor(REL, "Worker", "__init__", "self.steps = ..."),), transform, applied)
PATCH = Patch("toy-gate", "1.0", "toy", "toy", SpecifierSet(">=1.0,<2"),
              lambda v, r: Strategy("only", (EDIT,), "toy"), invariants=(("carries the limit", check),))
'''


def gate_toy(tmp_path, monkeypatch, line="self.limit = 4", invariant="self.limit = 4") -> tuple[Target, object]:
    plugins = tmp_path / "plugins" / "toy_gate"
    plugins.mkdir(parents=True)
    (plugins / "__init__.py").write_text(PLUGIN.format(line=line, invariant=invariant))
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(plugins.parent))
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))  # the analyzer's cache stays here
    root = tmp_path / "site"
    (root / "toy").mkdir(parents=True)
    (root / REL).write_text(BASE)
    (root / "toy" / "other.py").write_text("X = 1\n")
    t = Target("toy", "1.2", root, TargetKind.DIRECTORY)
    from patchkit import registry
    p = registry.patch("toy-gate")
    engine.apply(p, t, run_check=False)
    return t, p


def verdicts(res) -> list[tuple[str, str]]:
    return [(s.name, s.verdict) for s in res.stages]


def test_gate_passes_a_clean_toy_and_names_each_stage(tmp_path, monkeypatch):
    t, _p = gate_toy(tmp_path, monkeypatch)
    res = gate.run(t)
    assert verdicts(res) == [(n, "pass") for n in gate.STAGES[:-1]] and res.exit_code == 0
    assert res.failed_stage is None and res.to_dict()["passed"] is True
    res = gate.run(t, require_signoff=True)
    assert verdicts(res)[-1] == ("signoff", "fail") and res.exit_code == 1
    assert res.failed_stage.name == "signoff" and res.to_dict()["passed"] is False
    signoff.write(record(t), signoff.default_path(t))
    assert gate.run(t, require_signoff=True, tp=1).exit_code == 0


def test_gate_hashes_stage_tells_a_hand_edit_from_a_reinstall(tmp_path, monkeypatch):
    t, _p = gate_toy(tmp_path, monkeypatch)
    patched = t.file(REL).read_text()
    t.file(REL).write_text(patched + "# edited\n")
    res = gate.run(t)
    assert verdicts(res) == [("range", "pass"), ("hashes", "fail")] and res.exit_code == 1
    assert "changed since patch toy-gate was applied" in res.stages[-1].detail
    t.file(REL).write_text(BASE)
    res = gate.run(t)
    assert verdicts(res)[-1] == ("hashes", "fail") and "unpatched original again" in res.stages[-1].detail
    t.file(REL).unlink()
    res = gate.run(t)
    assert verdicts(res)[-1] == ("hashes", "fail") and "patched file is missing" in res.stages[-1].detail


def _rejournal(t: Target, text: str) -> None:
    """Write ``text`` as the patched file and make the journal agree (a bad patch, applied)."""
    t.file(REL).write_text(text)
    j = jr.load(t)
    j.entries = [dataclasses.replace(e, sha_after=signoff.sha256_bytes(text.encode())) for e in j.entries]
    j.save()


def test_gate_compile_lint_analyzer_and_invariant_stages_catch_their_bad_input(tmp_path, monkeypatch):
    t, _p = gate_toy(tmp_path, monkeypatch)
    good = t.file(REL).read_text()
    _rejournal(t, good.replace("self.limit = 4", "self.limit = (4"))
    res = gate.run(t)
    assert verdicts(res)[-1] == ("compile", "fail") and res.stages[-1].detail.startswith(f"{REL}:")
    _rejournal(t, good.replace("self.limit = 4", "self.limit = undefined_name"))
    res = gate.run(t)
    assert verdicts(res)[-1] == ("lint", "fail") and "undefined_name" in res.stages[-1].detail
    _rejournal(t, good.replace("self.limit = 4", "self.limit = self.cap"))
    res = gate.run(t)
    assert verdicts(res)[-1] == ("analyzer", "fail") and "self.cap" in res.stages[-1].detail
    _rejournal(t, good.replace("self.limit = 4", "self.limit = 5"))
    res = gate.run(t)
    assert verdicts(res)[-1] == ("invariants", "fail") and "carries the limit" in res.stages[-1].detail
    _rejournal(t, good)
    assert gate.run(t).exit_code == 0


def test_gate_without_a_journal_or_out_of_range_is_named(tmp_path, monkeypatch):
    t, _p = gate_toy(tmp_path, monkeypatch)
    res = gate.run(Target("toy", "2.0", t.root, TargetKind.DIRECTORY))
    assert verdicts(res) == [("journal", "error")] and res.exit_code == 2  # journal for 1.2
    j = jr.load(t)
    j.version = "2.0"
    j.save()
    res = gate.run(Target("toy", "2.0", t.root, TargetKind.DIRECTORY))
    assert verdicts(res) == [("range", "fail")] and "patch toy-gate supports toy" in res.stages[0].detail
    j.entries = []
    j.save()
    res = gate.run(Target("toy", "2.0", t.root, TargetKind.DIRECTORY))
    assert verdicts(res) == [("journal", "error")] and "lists no applied patch" in res.stages[0].detail


# ---------------------------------------------------------------------------- survivors of the mutmut run
def test_the_signature_is_an_hmac_of_the_documented_canonical_json(toy):
    """The signature format is a contract (a CI host may verify records without patchkit):
    HMAC-SHA256 over the JSON of every other field, sorted keys, compact separators, ASCII."""
    import hashlib
    import hmac
    rec = record(toy, env={"torch": None, "gpu_model": "GPU é"})
    signed = signoff.sign(rec, "secret")
    body = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    assert signed["signature"] == {"alg": "hmac-sha256", "key_id": signoff.key_id("secret"),
                                   "value": hmac.new(b"secret", body, hashlib.sha256).hexdigest()}
    assert signoff.key_id("secret") == hashlib.sha256(b"patchkit-signoff-key:secret").hexdigest()[:16]


@pytest.mark.parametrize("field,value,why", [
    ("patchkit", 1, "'patchkit' must be str, got 1"),
    ("created", None, "'created' must be str, got null"),
    ("target", [], "'target' must be dict, got []"),
    ("patches", {}, "'patches' must be list, got {}"),
    ("files", [], "'files' must be dict, got []"),
    ("environment", "x", "'environment' must be dict, got \"x\""),
    ("config", None, "'config' must be dict, got null"),
    ("stages", {}, "'stages' must be list, got {}"),
    ("timings", [], "'timings' must be dict, got []"),
    ("failure", "boom", "'failure' must be dict or null, got \"boom\""),
])
def test_each_top_level_field_is_typed_and_named(toy, field, value, why):
    rec = record(toy, env={"torch": None, "gpu_model": None})
    rec[field] = value
    with pytest.raises(Exception) as info:
        signoff.validate(rec)
    assert type(info.value).__name__ == "SignoffError" and str(info.value) == why


@pytest.mark.parametrize("mutate,why", [
    (lambda r: r["target"].update(version=1), "'target.version' must be str, got 1"),
    (lambda r: r["patches"].append("x"), "'patches[1]' must be dict, got \"x\""),
    (lambda r: r["patches"][0].update(strategy=None), "'patches[0].strategy' must be str, got null"),
    (lambda r: r["package"].update(folder=3), "'package.folder' must be str, got 3"),
    (lambda r: r["package"].update(count="2"), "'package.count' must be int, got \"2\""),
    (lambda r: r["package"].update(sha256="abc"), "'package.sha256' must be a sha256, got \"abc\""),
    (lambda r: r["package"].update(sha256=5), "'package.sha256' must be a sha256, got 5"),
    (lambda r: r["package"]["hashes"].update({REL: "nope"}), "'package.hashes' must hold 'count' sha256 values"),
    (lambda r: r["environment"].update(torch=2), "'environment.torch' must be str or null, got 2"),
    (lambda r: r["config"].update(tp=True), "'config.tp' must be int or null, got true"),
    (lambda r: r["stages"].append({"name": 1, "passed": True}), "'stages[1].name' must be str, got 1"),
    (lambda r: r.update(failure={"stage": "x", "message": 2}), "'failure.message' must be str, got 2"),
    (lambda r: r.update(failure={"stage": None, "message": "m"}), "'failure.stage' must be str, got null"),
    (lambda r: r.update(cells={}), "'cells' must be list, got {}"),
    (lambda r: r.update(cells=[{"name": "a", "verdict": 1}]), "'cells[0].verdict' must be str, got 1"),
    (lambda r: r.update(cells=[{"name": 2, "verdict": "pass"}]), "'cells[0].name' must be str, got 2"),
    (lambda r: r.update(plan=[]), "'plan' must be dict, got []"),
    (lambda r: r.update(signature={"alg": "md5", "key_id": "k", "value": "v"}),
     "'signature' must be {alg: hmac-sha256, key_id, value}"),
    (lambda r: r.update(signature={"alg": "hmac-sha256", "key_id": 1, "value": "v"}),
     "'signature' must be {alg: hmac-sha256, key_id, value}"),
    (lambda r: r.update(signature={"alg": "hmac-sha256", "key_id": "k", "value": None}),
     "'signature' must be {alg: hmac-sha256, key_id, value}"),
    (lambda r: r.update(signature="sig"), "'signature' must be dict, got \"sig\""),
])
def test_nested_fields_are_typed_and_named(toy, mutate, why):
    rec = record(toy, env={"torch": None, "gpu_model": None})
    mutate(rec)
    with pytest.raises(Exception) as info:
        signoff.validate(rec)
    assert type(info.value).__name__ == "SignoffError" and str(info.value) == why


def test_validate_accepts_the_optional_fields_when_well_formed(toy):
    rec = record(toy, env={"torch": "2.9", "gpu_model": None})
    rec.update(plan={"cells": 1}, signature={"alg": "hmac-sha256", "key_id": "k", "value": "v"})
    rec["config"]["tp"] = None
    rec["files"][REL] = "missing"
    assert signoff.validate(rec) is rec
    assert signoff.validate(dict(rec, passed=False, failure=None)) is not None


def test_an_equal_environment_is_not_a_mismatch(toy):
    env = {"torch": "2.9.1", "gpu_model": "NVIDIA H200"}
    rec = record(toy, env=env)
    assert signoff.mismatch(rec, toy, environment=dict(env)) is None
    assert "this host has torch 2.9.0" in signoff.mismatch(rec, toy, environment=dict(env, torch="2.9.0"))


def test_write_creates_the_folder_and_signs_with_the_environment_key(toy, tmp_path, monkeypatch):
    path = tmp_path / "a" / "b" / "so.json"
    monkeypatch.setenv(signoff.KEY_ENV, "envkey")
    signoff.write(record(toy), path)
    doc = json.loads(path.read_text())
    assert doc["signature"]["key_id"] == signoff.key_id("envkey")
    assert signoff.signature_problem(doc, "envkey") is None
    assert path.read_text().endswith("}\n") and oct(path.stat().st_mode & 0o777) == "0o644"
    monkeypatch.delenv(signoff.KEY_ENV)
    signoff.write(record(toy), path)
    assert "signature" not in json.loads(path.read_text())


def test_write_refuses_a_symlinked_state_folder(toy, tmp_path):
    from patchkit.ftypes import OutsideTarget
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link_root = tmp_path / "linked"
    link_root.mkdir()
    (link_root / ".patchkit").symlink_to(elsewhere)
    with pytest.raises(OutsideTarget, match="symlink"):
        signoff.write(record(toy), link_root / ".patchkit" / "signoff.json")
    assert list(elsewhere.iterdir()) == []


def test_the_manifest_binds_symlinks_by_their_target_and_skips_temp_files(toy):
    pkg = toy.root / "toy"
    (pkg / "link.py").symlink_to("other.py")
    (pkg / f".x{signoff.TMP_SUFFIX}").write_bytes(b"half")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "m.py").write_bytes(b"M = 1\n")
    (pkg / ".patchkit").mkdir()
    (pkg / ".patchkit" / "j").write_bytes(b"state")
    man = signoff.package_manifest(toy)
    assert man["folder"] == "toy" and man["count"] == 4
    assert man["hashes"]["toy/link.py"] == signoff.sha256_bytes(b"symlink:other.py")
    assert man["hashes"]["toy/sub/m.py"] == signoff.sha256_bytes(b"M = 1\n")
    assert man["hashes"]["toy/other.py"] == signoff.sha256_bytes(b"X = 1\n")
    lines = "".join(f"{rel}\0{man['hashes'][rel]}\n" for rel in sorted(man["hashes"]))
    assert man["sha256"] == signoff.sha256_bytes(lines.encode()) and list(man["hashes"]) == sorted(man["hashes"])
    (pkg / "link.py").unlink()
    (pkg / "link.py").symlink_to("sub/m.py")
    assert signoff.package_manifest(toy)["sha256"] != man["sha256"]


def test_config_sha_and_default_path(toy, tmp_path):
    assert signoff.config_sha(None) is None and signoff.config_sha(str(tmp_path / "none")) is None
    (tmp_path / "config.json").write_bytes(b"{}")
    assert signoff.config_sha(str(tmp_path)) == signoff.sha256_bytes(b"{}")
    assert signoff.default_path(toy) == toy.root / ".patchkit" / "signoff.json"


def test_current_files_marks_missing_and_unreadable_journals(toy):
    toy.file(REL).unlink()
    files, patches = signoff.current_files(toy)
    assert files == {REL: "missing"} and len(patches) == 1
    (toy.root / ".patchkit" / "journal.json").write_text("{broken")
    assert signoff.current_files(toy) == ({}, [])


def test_read_rejects_non_json_and_symlinks(tmp_path):
    from patchkit.ftypes import SignoffError
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(SignoffError, match="not JSON"):
        signoff.read(bad)
    (tmp_path / "ln.json").symlink_to(bad)
    with pytest.raises(SignoffError, match="symlink"):
        signoff.read(tmp_path / "ln.json")


def test_gate_messages_name_the_hashes_and_the_invariant_count(tmp_path, monkeypatch):
    t, _p = gate_toy(tmp_path, monkeypatch)
    res = gate.run(t)
    assert res.stages[-1].detail == "1 invariant(s) hold"
    assert res.stages[1].detail == "1 file(s) match the journal"
    after = jr.load(t).entries[0].sha_after
    t.file(REL).write_text(t.file(REL).read_text() + "# edited\n")
    now = signoff.sha256_file(t.file(REL))
    assert gate.run(t).stages[-1].detail == \
        f"{REL}: changed since patch toy-gate was applied (sha256 {now[:12]} != {after[:12]}; hand edit?)"


def test_gate_without_a_journal_says_so(tmp_path):
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    res = gate.run(Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY))
    assert [(s.name, s.verdict) for s in res.stages] == [("journal", "error")] and res.exit_code == 2
    assert "no journal; nothing was applied" in res.stages[0].detail


def test_an_os_error_in_a_stage_is_an_error_naming_the_file(tmp_path, monkeypatch):
    t, _p = gate_toy(tmp_path, monkeypatch)

    def unreadable(j, target):
        raise PermissionError(13, "Permission denied", "/somewhere/worker.py")

    monkeypatch.setattr(gate, "_lint", unreadable)
    res = gate.run(t)
    assert verdicts(res)[-1] == ("lint", "error") and res.exit_code == 2
    assert res.stages[-1].detail == "/somewhere/worker.py: Permission denied"


def test_gpus_and_the_environment_come_from_nvidia_smi(monkeypatch):
    import subprocess
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout="NVIDIA H200, 550.54\n\nNVIDIA H100, 550.54\n", stderr="")

    monkeypatch.setattr(signoff.subprocess, "run", fake_run)
    assert signoff.gpus() == [("NVIDIA H200", "550.54"), ("NVIDIA H100", "550.54")]
    assert calls[0][0] == "nvidia-smi" and "--query-gpu=name,driver_version" in calls[0]
    assert signoff.environment_now()["gpu_model"] == "NVIDIA H200"
    monkeypatch.setattr(signoff.subprocess, "run",
                        lambda cmd, **kw: subprocess.CompletedProcess(cmd, 6, stdout="NVIDIA H200, 1\n", stderr=""))
    assert signoff.gpus() == [] and signoff.environment_now()["gpu_model"] is None

    def missing(cmd, **kw):
        raise FileNotFoundError(cmd[0])

    monkeypatch.setattr(signoff.subprocess, "run", missing)
    assert signoff.gpus() == []


def test_current_files_goes_on_after_an_entry_outside_the_target(toy, tmp_path):
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir(exist_ok=True)
    try:
        (toy.root / "esc").symlink_to(outside)
        j = jr.load(toy)
        e = j.entries[0]
        j.entries = [dataclasses.replace(e, file="esc/x.py", patch="escaper")] + j.entries
        j.save()
        files, patches = signoff.current_files(toy)
        assert files == {"esc/x.py": "outside", REL: e.sha_after}
        assert [p["name"] for p in patches] == ["toy-threshold"]
    finally:
        (toy.root / "esc").unlink()
        outside.rmdir()


def test_gate_analyzer_judges_a_subclass_in_another_module(tmp_path, monkeypatch):
    """The patch makes Worker.__init__ call a hook that a subclass in another file overrides and
    that reads an attribute the subclass sets only after super().__init__(): the finding is in
    the unpatched file, and the baseline (the unpatched originals) does not have it."""
    t, _p = gate_toy(tmp_path, monkeypatch)
    (t.root / "toy" / "__init__.py").write_text("")  # a regular package: toy.worker resolves
    (t.root / "toy" / "sub.py").write_text(
        "from toy.worker import Worker\n\n\nclass Sub(Worker):\n    def __init__(self, a):\n"
        "        super().__init__(a)\n        self.cap = 2\n\n    def extra(self):\n        return self.cap\n")
    assert gate.run(t).exit_code == 0
    good = t.file(REL).read_text()
    assert good.endswith("        return batch\n")
    _rejournal(t, good.replace("self.limit = 4", "self.limit = self.extra()")
               + "\n    def extra(self):\n        return 4\n")
    res = gate.run(t)
    assert verdicts(res)[-1] == ("analyzer", "fail"), res.stages[-1]
    assert "Sub" in res.stages[-1].detail and "cap" in res.stages[-1].detail
