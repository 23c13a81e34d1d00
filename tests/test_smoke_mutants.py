"""Mutants of dynamic-spec-disable (fixtures/broken_patches/spec_disable_mutants): each one is a
runtime-only change that applies, passes the analyzer and the gate on a real release (and on the
toy tree, offline), and each one's `old` text must still occur in the patched file (a stale mutant
fails here, loudly)."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import toy_release
from patchkit import engine, gate, registry
from patchkit.smoke import mutants as MU

ROOT = Path(__file__).resolve().parent.parent
TABLE = MU.load_table(ROOT / "fixtures" / "broken_patches" / "spec_disable_mutants" / "mutants.toml")
#: which base strategy each release gets (bring-zero-step: 0.5.12-0.5.13; reuse-upstream: 0.5.14+)
RELEASES = ("0.5.12", "0.5.16")


@pytest.fixture
def mutant_path(monkeypatch):
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(ROOT / "fixtures" / "broken_patches"))


def test_the_table_has_the_mutants_the_issue_asks_for():
    names = {m.name for m in TABLE}
    assert len(TABLE) >= 6 and len(names) == len(TABLE)
    for stage in ("ready", "resume-equivalence", "threshold-crossings", "sampled-decode", "forced-acceptance"):
        assert any(m.catches == stage for m in TABLE), stage
    from patchkit.smoke.spec import ALL_STAGES
    assert all(m.catches in ALL_STAGES for m in TABLE)
    assert all(m.standin_fault for m in TABLE)  # each can be simulated on CPU


@pytest.mark.parametrize("version", ["toy"] + [pytest.param(v, marks=pytest.mark.network) for v in RELEASES])
def test_every_mutant_applies_checks_and_gates_like_the_real_patch(version, sglang_scratch, mutant_path, tmp_path):
    # "toy": the toy sglang tree (offline), which gets the 0.5.12 strategy
    t = toy_release(tmp_path / "toy") if version == "toy" else sglang_scratch(version)
    base = registry.patch("dynamic-spec-disable")
    strategy, changes, _ = engine.transform(base, t)
    patched = {c.rel: c.after for c in changes}
    pristine = {c.rel: c.before for c in changes}
    tried = 0
    for m in TABLE:
        if m.strategies and strategy.name not in m.strategies:
            continue
        tried += 1
        # the mutated text is the patch's own: present after the patch, absent upstream
        assert m.old in patched[m.file], f"stale mutant {m.name}: its old text is not in the patched {m.file}"
        assert m.old not in pristine[m.file], f"mutant {m.name} would change upstream code"
        assert m.new not in patched[m.file]
        p = registry.patch(f"dynamic-spec-disable~{m.name}")
        r = engine.apply(p, t)  # runs the analyzer: a runtime-only mutant has no new finding
        assert r.outcome.value == "applied", (m.name, r.reason)
        text = t.file(m.file).read_text()
        assert m.new in text and m.old not in text
        assert text == patched[m.file].replace(m.old, m.new)
        again = engine.apply(p, t)  # idempotent: already applied is a skip
        assert again.outcome.value != "applied" or not again.pending
        res = gate.run(t)
        assert res.exit_code == 0, (m.name, [(s.name, s.verdict, s.detail) for s in res.stages])
        engine.revert(p, t)
        f = t.file(m.file)  # the runtime module is created by the patch: gone again after revert
        assert (f.read_text() if f.exists() else "") == pristine[m.file]
    assert tried >= (6 if version in ("0.5.12", "toy") else 5)


def test_a_stale_mutant_refuses_loudly(sglang_tree):
    from patchkit.ftypes import AnchorNotFound
    t = sglang_tree.make()
    base = registry.patch("dynamic-spec-disable")
    stale = MU.mutant(base, "stale", "sglang/srt/speculative/eagle_worker_v2.py",
                      "this text is not in the patched file", "# patchkit: stale mutant", "stale on purpose")
    with pytest.raises(AnchorNotFound, match="no longer contains"):
        engine.apply(stale, t)
    assert stale.name == "dynamic-spec-disable~stale" and stale.smoke is not None  # the base's smoke spec


def test_a_mutant_refuses_a_strategy_it_does_not_mutate():
    from dataclasses import replace
    from packaging.version import Version
    from patchkit.patchdef import Refused, Strategy
    base = replace(registry.patch("dynamic-spec-disable"), select=lambda v, r: Strategy("s1", ()))
    only_s2 = MU.mutant(base, "x", "f.py", "a", "b", "d", strategies=("s2",))
    with pytest.raises(Refused, match="mutates the s2 strategy; this release gets s1"):
        only_s2.select(Version("0.5.16"), lambda rel: None)
    any_strategy = MU.mutant(base, "x", "f.py", "a", "b", "d")
    with pytest.raises(MU.StaleMutant, match="does not edit this file"):
        any_strategy.select(Version("0.5.16"), lambda rel: None)
