"""patchkit as a library: each command is a function returning a frozen result with the exit code
the CLI exits with; the CLI's output is that result formatted (same data, same code)."""
from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner
from hypothesis import given, strategies as st
from toytarget import FILE, toy  # noqa: F401 (a fixture)

from patchkit import api
from patchkit.cli import main
from patchkit.ftypes import Finding, Severity, UsageError


def test_apply_status_revert_return_results_with_the_cli_exit_codes(toy):
    t, name = toy
    spec = api.TargetSpec(target_dir=t.root)
    dry = api.apply(name, spec, dry_run=True)
    assert dry.exit_code == 1 and dry.result.pending and dry.to_dict()["outcome"] == "would-apply"
    with pytest.raises(dataclasses.FrozenInstanceError):
        dry.exit_code = 0
    cli = json.loads(CliRunner().invoke(main, ["apply", name, "--target-dir", str(t.root), "--dry-run", "--json"]).stdout)
    assert cli == dry.to_dict()
    done = api.apply(name, spec)
    assert done.exit_code == 0 and done.result.outcome.value == "applied" and "self.patchkit_toy_mark = True" in t.file(FILE).read_text()
    st_ = api.status(spec)
    assert st_.exit_code == 0 and {r.patch: r.state for r in st_.rows}[name] == "applied"
    assert api.diff(name, spec).text.startswith(f"--- a/{FILE}")
    back = api.revert(name, spec, dry_run=True)
    assert back.exit_code == 1 and back.outcome == "would-revert"
    assert api.revert(name, spec).outcome == "reverted"


def test_a_recovered_operation_is_said_through_the_hook(toy):
    """resolve_target finishes an interrupted operation first and says so (the CLI prints 'recovered: ...')."""
    t, name = toy
    spec = api.TargetSpec(target_dir=t.root)
    api.apply(name, spec)
    state = t.root / ".patchkit"
    (state / "intent.json").write_text(json.dumps({"schema": 1, "op": "revert", "patch": name, "entries": []}))
    said = []
    api.resolve_target(spec, api.Hooks(recovered=said.append))
    assert len(said) == 1 and name in said[0] and not (state / "intent.json").exists()


def _finding(sev: str) -> Finding:
    return Finding("m.py", 1, 1, "PK001", "x", severity=Severity(sev))


@given(st.lists(st.sampled_from(["error", "warning", "info"])), st.sampled_from([None, "error", "warning"]))
def test_the_fail_on_policy(sevs, level):
    fs = [_finding(s) for s in sevs]
    got = api.failing(fs, level)
    assert [f.severity.value for f in got] == [s for s in sevs if s == "error" or (s == "warning" and level == "warning")]
    assert api.fail_on_level(level, {"fail-on": "warning"}) == (level or "warning")
    assert api.fail_on_level(None, {}) == "error"


def test_check_exit_code_bits(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class A:\n    def __init__(self):\n        self.y = 1\n    def f(self):\n        return self.y + self.z\n")
    broken = tmp_path / "broken.py"
    broken.write_text("class A:\n    def f(self:\n")
    assert api.check(api.CheckRequest((str(bad),), no_cache=True)).exit_code == 1
    assert api.check(api.CheckRequest((str(bad),), no_cache=True, exit_zero=True)).exit_code == 0
    both = api.check(api.CheckRequest((str(bad), str(broken)), no_cache=True))
    assert both.exit_code == 3 and [f.code for f in both.shown] == ["PK003"] and len(both.run.errors) == 1
    with pytest.raises(UsageError, match="cannot be mixed"):
        api.check(api.CheckRequest((str(bad), "-")))


@given(st.integers(min_value=1, max_value=4096), st.sampled_from(["--tp-size", "--tp", "--tensor-parallel-size"]),
       st.booleans())
def test_tp_is_read_from_the_launch_command(n, flag, joined):
    cmd = ["python", "-m", "sglang.launch_server", "--model-path", "m"] + ([f"{flag}={n}"] if joined else [flag, str(n)])
    assert api.tp_from_command(cmd) == n


def test_tp_defaults_and_errors():
    assert api.tp_from_command(["python", "-m", "sglang.launch_server"]) == 1
    assert api.tp_from_command(["python", "serve.py"]) is None
    with pytest.raises(UsageError, match="--tp-size 'abc' in the launch command: not an integer"):
        api.tp_from_command(["x", "--tp-size=abc"])


def test_launch_does_not_exec_and_says_why_not(toy):
    t, name = toy
    req = api.GateRequest(api.TargetSpec(target_dir=t.root))
    seen = []
    res = api.launch(req, ["true"], api.Hooks(gate=seen.append))
    assert res.exit_code == 2 and res.gate.failed_stage.name == "journal" and seen == [res.gate]
    api.apply(name, req.target)
    res = api.launch(req, ["true", "--tp", "2"])
    assert res.exit_code == 0 and res.refusal is None and res.command == ("true", "--tp", "2")
