"""Sign-off integrity: a strict schema (booleans are booleans, a failure is not a pass), the record
binds every file of the package and the environment, and an HMAC signature catches records typed
by hand or edited after signing."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from patchkit import __version__, engine, gate, registry, signoff
from patchkit.ftypes import SignoffError, Target, TargetKind

from test_engine import BASE, REL, make_patch

ROOT = Path(__file__).resolve().parent.parent
ENV = {"torch": None, "gpu_model": None}
STAGES = [{"name": "boot", "passed": True, "detail": "", "seconds": 1.0}]


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    (tmp_path / "toy" / "other.py").write_text("X = 1\n")
    t = Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)
    engine.apply(make_patch(), t)
    return t


def good(t: Target) -> dict:
    return signoff.build(t, True, dict(ENV), {"tp": 1}, copy.deepcopy(STAGES), {}, None)


def test_a_good_record_passes_and_round_trips(toy, tmp_path):
    rec = good(toy)
    assert signoff.validate(rec) is rec
    assert rec["package"]["count"] == 2 and set(rec["package"]["hashes"]) == {REL, "toy/other.py"}
    path = tmp_path / "so.json"
    signoff.write(rec, path)
    assert signoff.mismatch(signoff.read(path), toy, tp=1, environment=ENV) is None


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.text(max_size=5), st.integers(), st.none(), st.floats(allow_nan=False),
                 st.lists(st.booleans(), max_size=2), st.dictionaries(st.text(max_size=2), st.booleans(), max_size=1)))
def test_passed_must_be_a_boolean(value):
    rec = _template()
    rec["passed"] = value
    with pytest.raises(SignoffError, match="'passed' must be bool"):
        signoff.validate(rec)


_TEMPLATE: dict = {}


def _template() -> dict:
    return copy.deepcopy(_TEMPLATE)


@pytest.fixture(autouse=True, scope="module")
def _make_template(tmp_path_factory):
    d = tmp_path_factory.mktemp("tpl")
    (d / "toy").mkdir()
    (d / REL).write_text(BASE)
    _TEMPLATE.update(good(Target("toy", "1.2", d, TargetKind.DIRECTORY)))


@pytest.mark.parametrize("mutate,why", [
    (lambda r: r.update(passed="false"), "'passed' must be bool, got \"false\""),
    (lambda r: r.update(passed="no"), "'passed' must be bool"),
    (lambda r: r.update(passed=1), "'passed' must be bool, got 1"),
    (lambda r: r.update(failure={"stage": "first-decode", "message": "boom"}), "'passed' is true but 'failure' names"),
    (lambda r: r["stages"][0].update(passed="true"), "'stages[0].passed' must be bool"),
    (lambda r: r["stages"][0].update(passed=False), "stage 'boot' did not pass"),
    (lambda r: r.update(schema=1), "unknown sign-off schema 1"),
    (lambda r: r.update(schema=True), "unknown sign-off schema true"),
    (lambda r: r.pop("package"), "missing field(s) package"),
    (lambda r: r.update(extra=1), "unknown field(s) extra"),
    (lambda r: r["config"].update(tp="1"), "'config.tp' must be int"),
    (lambda r: r["package"]["hashes"].update({"toy/new.py": "0" * 64}), "'package.hashes' must hold 'count'"),
    (lambda r: r["package"].update(sha256="0" * 64), "'package.sha256' does not match"),
    (lambda r: r["files"].update({REL: "abc"}), "must be a sha256"),
])
def test_malformed_records_are_rejected(mutate, why):
    rec = _template()
    mutate(rec)
    with pytest.raises(SignoffError) as exc:
        signoff.validate(rec)
    assert why in str(exc.value) and "\n" not in str(exc.value)


def test_an_edit_anywhere_in_the_package_voids_it(toy):
    rec = good(toy)
    assert signoff.mismatch(rec, toy, environment=ENV) is None
    other = toy.root / "toy" / "other.py"
    other.write_text("X = 1\nraise SystemExit\n")
    assert signoff.mismatch(rec, toy, environment=ENV) == \
        "toy/other.py: changed since the smoke test (the sign-off binds every file of the package)"
    other.write_text("X = 1\n")
    assert signoff.mismatch(rec, toy, environment=ENV) is None
    (toy.root / "toy" / "sitecustomize.py").write_text("import os\n")
    assert "toy/sitecustomize.py: added since" in signoff.mismatch(rec, toy, environment=ENV)
    (toy.root / "toy" / "sitecustomize.py").unlink()
    other.unlink()
    assert "toy/other.py: removed since" in signoff.mismatch(rec, toy, environment=ENV)
    other.write_text("X = 1\n")
    (toy.root / "toy" / "__pycache__").mkdir()
    (toy.root / "toy" / "__pycache__" / "other.cpython-311.pyc").write_bytes(b"\0")
    assert signoff.mismatch(rec, toy, environment=ENV) is None  # bytecode caches are not the package


def test_the_environment_is_bound(toy):
    rec = good(toy)
    assert "GPU None, this host has GPU NVIDIA H200" in signoff.mismatch(rec, toy, environment={"gpu_model": "NVIDIA H200", "torch": None})
    assert "torch None, this host has torch 2.9.1" in signoff.mismatch(rec, toy, environment={"gpu_model": None, "torch": "2.9.1"})
    other = dict(rec, patchkit="0.0.1")
    assert f"patchkit 0.0.1, this is patchkit {__version__}" in signoff.mismatch(other, toy, environment=ENV)
    assert "--tp 1, this launch uses --tp 8" in signoff.mismatch(rec, toy, tp=8, environment=ENV)


def test_hmac_signature(toy, tmp_path):
    path = tmp_path / "so.json"
    rec = good(toy)
    signoff.write(rec, path, key="k1")
    signed = signoff.read(path)
    assert signed["signature"]["alg"] == "hmac-sha256"
    assert signoff.mismatch(signed, toy, verify_signature=True, key="k1", environment=ENV) is None
    assert "signed with another key" in signoff.mismatch(signed, toy, verify_signature=True, key="k2", environment=ENV)
    assert "needs the key" in signoff.mismatch(signed, toy, verify_signature=True, key="", environment=ENV)
    unsigned = good(toy)
    assert "not signed" in signoff.mismatch(unsigned, toy, verify_signature=True, key="k1", environment=ENV)
    tampered = copy.deepcopy(signed)
    tampered["config"]["tp"] = 8
    assert "does not match the record" in signoff.mismatch(tampered, toy, tp=8, verify_signature=True, key="k1",
                                                          environment=ENV)
    # a signed record is checked whenever a key is available, even without --verify-signature
    assert "does not match" in signoff.mismatch(tampered, toy, tp=8, key="k1", environment=ENV)


def test_a_symlinked_record_is_refused(toy, tmp_path):
    real = tmp_path / "real.json"
    signoff.write(good(toy), real)
    link = tmp_path / "link.json"
    os.symlink(real, link)
    with pytest.raises(SignoffError, match="is a symlink"):
        signoff.read(link)


# ---------------------------------------------------------------------------- on a real release
SCHED = "sglang/srt/managers/scheduler.py"


@pytest.fixture
def patched(sglang_scratch, sglang_release) -> Target:
    t = sglang_scratch("0.5.16")
    src = sglang_release("0.5.16").file(SCHED)
    t.file(SCHED).parent.mkdir(parents=True, exist_ok=True)
    t.file(SCHED).write_bytes(src.read_bytes())
    engine.apply(registry.patch("dynamic-spec-disable"), t)
    return t


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "patchkit", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, cwd=ROOT)


@pytest.mark.network
def test_editing_an_unpatched_file_voids_the_signoff_and_launch_refuses(patched, tmp_path):
    rec = signoff.build(patched, True, signoff.environment_now(), {"tp": 1}, copy.deepcopy(STAGES), {}, None)
    signoff.write(rec, signoff.default_path(patched))
    assert gate.run(patched, require_signoff=True, tp=1).exit_code == 0
    with open(patched.file(SCHED), "a") as fh:
        fh.write("\nraise SystemExit\n")
    res = gate.run(patched, require_signoff=True, tp=1)
    assert res.failed_stage.name == "signoff" and res.exit_code == 1
    assert f"{SCHED}: changed since the smoke test" in res.failed_stage.detail
    marker = tmp_path / "ran"
    r = _cli("launch", "--require-signoff", "--target-dir", str(patched.root), "--", sys.executable, "-c",
             f"open({str(marker)!r}, 'w')")
    assert r.returncode == 1 and "not launching" in r.stderr and not marker.exists()


@pytest.mark.network
def test_gate_verify_signature(patched):
    rec = signoff.build(patched, True, signoff.environment_now(), {"tp": 1}, copy.deepcopy(STAGES), {}, None)
    path = signoff.default_path(patched)
    signoff.write(rec, path)  # unsigned: as good as typed by hand
    args = ("gate", "--require-signoff", "--verify-signature", "--tp", "1", "--target-dir", str(patched.root))
    r = _cli(*args, env={signoff.KEY_ENV: "s3cret"})
    assert r.returncode == 1 and "not signed" in r.stderr
    signoff.write(rec, path, key="s3cret")
    r = _cli(*args, env={signoff.KEY_ENV: "s3cret"})
    assert r.returncode == 0, r.stderr
    assert "signature verified" in r.stderr
    doc = json.loads(path.read_text())
    doc["stages"].append({"name": "extra", "passed": True})
    path.write_text(json.dumps(doc))
    r = _cli(*args, env={signoff.KEY_ENV: "s3cret"})
    assert r.returncode == 1 and "does not match the record" in r.stderr
    r = _cli(*args, env={signoff.KEY_ENV: ""})
    assert r.returncode == 1 and "PATCHKIT_SIGNOFF_KEY" in r.stderr
