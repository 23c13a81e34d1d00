"""``patchkit smoke-merge``: one sign-off from matrix parts that ran side by side (one per GPU or
host). Each known-bad input (another tree, another configuration, a shared cell, a failed cell, a
leak on a part's own GPU, a bad signature) must be refused or fail, and nothing is written then."""
from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from patchkit import api, signoff
from patchkit.cli import main
from patchkit.ftypes import SignoffError
from patchkit.smoke import recordmerge

from test_mutation_kills_signoff import toy  # noqa: F401  (fixture)

ENV = {"torch": "2.11.0", "gpu_model": "NVIDIA H200"}
CONFIG = {"tp": 1, "model_path": "/tmp/wa/tiny/target", "model_config_sha256": "a" * 64, "threshold": 4,
          "server_args": ["--load-format", "dummy"], "parallel": 6, "smoke_weights": "random:0.02"}


def part(t, cells, *, gpu=0, after=0, other_gpu_after=None, config=None, env=ENV):
    rec = signoff.build(t, all(v in ("pass", "refused") for _n, v in cells), dict(env), dict(config or CONFIG), [],
                        {"total_s": 100.0, "per_cell_s": {n: 10.0 for n, _v in cells}}, None)
    rec["cells"] = [{"name": n, "verdict": v, "seconds": 10.0, "server_args": [],
                     "failure": None if v != "fail" else {"stage": "resume-equivalence", "message": "off", "location": ""}}
                    for n, v in cells]
    if any(v == "fail" for _n, v in cells):
        rec["failure"] = {**rec["cells"][[v for _n, v in cells].index("fail")]["failure"], "cell": "x"}
    gpus = [{"index": gpu, "rank": 0, "baseline_mib": 0, "peak_mib": 70000, "after_mib": after, "total_mib": 143771}]
    if other_gpu_after is not None:  # another job on another GPU of the host, seen by nvidia-smi
        gpus.append({"index": 1 - gpu, "rank": None, "baseline_mib": 0, "peak_mib": 70000,
                     "after_mib": other_gpu_after, "total_mib": 143771})
    released = all(g["after_mib"] <= g["baseline_mib"] + 1024 for g in gpus)
    rec["gpu_memory"] = {"source": "nvidia-smi", "interval_s": 0.5, "samples": 10, "released": released, "gpus": gpus}
    if not released and rec["failure"] is None:
        rec["passed"] = False
        rec["failure"] = {"stage": "teardown", "message": "GPU memory not released", "location": "", "cell": "-"}
    return signoff.validate(rec)


def test_two_parts_make_one_passing_record_that_the_gate_reads(toy, tmp_path):
    a = part(toy, [("c1", "pass"), ("c2", "refused")], gpu=0)
    # the H200 case: part b's own GPU is released, GPU 0 still holds part a's servers
    b = part(toy, [("c3", "pass")], gpu=1, other_gpu_after=33251, config={**CONFIG, "model_path": "/tmp/wb/t"})
    assert b["passed"] is False  # as written on the host, before the sampler watched its own GPU only
    out = tmp_path / "merged.json"
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    res = CliRunner().invoke(main, ["smoke-merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                                    "--signoff", str(out)])
    assert res.exit_code == 0, res.output
    rec = signoff.read(out)
    assert [c["name"] for c in rec["cells"]] == ["c1", "c2", "c3"] and rec["passed"] is True
    assert [(g["part"].endswith("a.json"), g["index"]) for g in rec["gpu_memory"]["gpus"]] == [(True, 0), (False, 1)]
    assert [m["cells"] for m in rec["config"]["merged_from"]] == [["c1", "c2"], ["c3"]]
    assert signoff.mismatch(rec, toy, tp=1, environment=ENV) is None


def test_a_leak_on_a_parts_own_gpu_and_a_failed_cell_fail_the_merge(toy):
    ok = part(toy, [("c1", "pass")])
    leak = part(toy, [("c2", "pass")], gpu=1, after=5000)
    rec = recordmerge.merge([("a", ok), ("b", leak)])
    assert rec["passed"] is False and rec["failure"]["stage"] == "teardown" and "in b (GPU 1: 5000 MiB" in \
        rec["failure"]["message"]
    bad = part(toy, [("c3", "fail")], gpu=1)
    rec = recordmerge.merge([("a", ok), ("b", bad)])
    assert rec["passed"] is False and rec["failure"]["cell"] == "c3" and rec["failure"]["stage"] == "resume-equivalence"


@pytest.mark.parametrize("change, message", [
    (lambda r: r["files"].update({"x.py": "0" * 64}), "'files' differs from a"),
    (lambda r: r["target"].update({"version": "9.9"}), "'target' differs from a"),
    (lambda r: r["config"].update({"threshold": 8}), "'config.threshold' is 8, a has 4"),
    (lambda r: r["config"].update({"smoke_weights": "dummy"}), "'config.smoke_weights' is 'dummy'"),
    (lambda r: r["environment"].update({"gpu_model": "NVIDIA A100"}), "ran on 'NVIDIA A100'"),
    (lambda r: r["cells"][0].update({"name": "c1"}), "cell 'c1' is in both a and b"),
    (lambda r: r.pop("cells"), "b: not a matrix record"),
])
def test_parts_that_do_not_belong_together_are_refused(toy, change, message):
    a = part(toy, [("c1", "pass")])
    b = copy.deepcopy(part(toy, [("c2", "pass")], gpu=1))
    change(b)
    with pytest.raises(SignoffError, match=message.replace("(", r"\(").replace(".", r"\.")):
        recordmerge.merge([("a", a), ("b", b)])


def test_the_command_writes_nothing_on_bad_parts_and_checks_signatures(toy, tmp_path, monkeypatch):
    a, b = part(toy, [("c1", "pass")]), part(toy, [("c1", "pass")], gpu=1)
    for name, rec in (("a", a), ("b", b)):
        (tmp_path / f"{name}.json").write_text(json.dumps(rec))
    out = tmp_path / "m.json"
    res = CliRunner().invoke(main, ["smoke-merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--signoff", str(out)])
    assert res.exit_code == 2 and "cell 'c1' is in both" in res.output and not out.exists()
    res = CliRunner().invoke(main, ["smoke-merge", str(tmp_path / "a.json"), str(tmp_path / "nope.json"), "--signoff", str(out)])
    assert res.exit_code == 2 and "nope.json: no such sign-off record" in res.output and not out.exists()
    # signed parts must verify with the key; the merged record is signed with it
    monkeypatch.setenv(signoff.KEY_ENV, "k1")
    b = part(toy, [("c2", "pass")], gpu=1)
    (tmp_path / "a.json").write_text(json.dumps(signoff.sign(a, "k1")))
    (tmp_path / "b.json").write_text(json.dumps(signoff.sign(b, "other")))
    with pytest.raises(SignoffError, match="b.json: the sign-off was signed with another key"):
        api.smoke_merge([tmp_path / "a.json", tmp_path / "b.json"], out)
    assert not out.exists()
    (tmp_path / "b.json").write_text(json.dumps(signoff.sign(b, "k1")))
    res = api.smoke_merge([tmp_path / "a.json", tmp_path / "b.json"], out)
    assert res.exit_code == 0 and signoff.signature_problem(signoff.read(out), "k1") is None
