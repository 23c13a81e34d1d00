"""Every smoke stage has teeth: one matrix cell against the STAND-IN server (fixtures/standin_sglang,
not SGLang) with a simulated patch fault fails at the stage that must catch it; without the fault
the cell passes. The same faults simulate the mutants in bench/smoke_mutants.py."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from patchkit.ftypes import Target, TargetKind
from patchkit.patches.dynamic_spec_disable.smoke_spec import SPEC
from patchkit.smoke.command import tiny_models
from patchkit.smoke.matrixrun import MatrixOptions, make_plan, run_matrix

STANDIN = Path(__file__).resolve().parent.parent / "fixtures" / "standin_sglang"
ON = "EAGLE3-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=keep-flag=on"
OFF = "STANDALONE-overlap=off-cuda-graph=off-topk=1-page=1-draft-extend=keep-flag=off"
STANDALONE_ON = "STANDALONE-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=skip-flag=on"
REFUSE = "EAGLE3-overlap=off-cuda-graph=on-topk=1-page=1-draft-extend=keep-flag=on"
SKIP_ON = "EAGLE3-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=skip-flag=on"


@pytest.fixture
def site(tmp_path, monkeypatch) -> Target:
    root = tmp_path / "site"
    shutil.copytree(STANDIN, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("PYTHONPATH", f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.setenv("STANDIN_V1_WITHOUT_OVERLAP", "1")  # refuses the flag on spec v1, like patch 2.0
    return Target("sglang", "0.5.12", root, TargetKind.DIRECTORY)


def run_cell(site: Target, tmp_path: Path, cell: str, fault: str = "", grammar_skip: str = "-", **extra) -> dict:
    model, models, base = tiny_models(tmp_path / "logs", grammar_skip)
    opts = MatrixOptions(model, models, 1, 4, 2, 30.0, tmp_path / "logs", base, parallel=3, only=(cell,),
                         soak_seconds=3.0, long_tokens=200, transitions=2,
                         env={"STANDIN_FAULT": fault} if fault else {}, extra=extra, grammar_skip=grammar_skip)
    rec = run_matrix(SPEC, site, opts)
    assert [c["name"] for c in rec["cells"]] == [cell]
    return rec["cells"][0]


def stage(cell: dict, name: str) -> dict:
    return next(s for s in cell["stages"] if s["name"] == name)


def test_a_good_cell_passes_every_stage(site, tmp_path):
    c = run_cell(site, tmp_path, ON)
    assert c["verdict"] == "pass", c["failure"]
    names = [s["name"] for s in c["stages"]]
    for want in ("ready", "first-decode", "threshold-crossings", "sampled-decode", "request-kinds",
                 "resume-equivalence", "resume-acceptance", "greedy-equivalence", "soak", "log-scan",
                 "forced-acceptance"):
        assert want in names
    acc = stage(c, "resume-acceptance")["detail"]
    assert acc["lived"]["switches_off"] >= 1 and acc["ratio"] >= 0.9 and acc["steady"]["accept_length"] >= 1.5
    resume = stage(c, "resume-equivalence")["detail"]
    assert resume["transitions_lived"] >= 2 and resume["identical"] == resume["requests"]
    assert resume["admitted_while_off"] == 1  # one scored request was submitted while speculation was off
    kinds = stage(c, "request-kinds")["detail"]
    assert set(kinds["kinds"]) == {"logprobs", "sampling", "stop", "n>1"}
    assert all(k["took_disabled_path"] for k in kinds["kinds"].values())
    assert kinds["skipped"]["regex"].startswith("skipped: the server runs with --skip-tokenizer-init")
    forced = stage(c, "forced-acceptance")["detail"]
    assert min(forced["accept_length_after_switches"]) >= 1.5
    assert c["seconds"] > 0 and set(c["job_seconds"]) == {"main", "forced"}


def test_with_a_tokenizer_and_a_grammar_backend_every_request_kind_runs(site, tmp_path):
    """The tiny model's own tokenizer (no --skip-tokenizer-init) and a grammar backend: stop strings,
    regex and JSON-schema requests run alone and above the threshold."""
    c = run_cell(site, tmp_path, ON, grammar_skip="", stages=("ready", "request-kinds"))
    assert c["verdict"] == "pass", c["failure"]
    kinds = stage(c, "request-kinds")["detail"]
    assert set(kinds["kinds"]) == {"logprobs", "sampling", "stop", "stop strings", "n>1", "regex", "json-schema"}
    assert all(k["took_disabled_path"] for k in kinds["kinds"].values()) and kinds["skipped"] == {}


def test_the_plan_says_which_request_kinds_run(site, tmp_path):
    for grammar_skip, want in (("", "request kinds: all, with stop strings, regex and JSON schema"),
                               ("-", "request kinds: stop strings, regex, json-schema skipped: the server runs with "
                                     "--skip-tokenizer-init")):
        model, models, base = tiny_models(tmp_path / f"logs{len(grammar_skip)}", grammar_skip)
        opts = MatrixOptions(model, models, 1, 4, 2, 30.0, tmp_path / "logs", base, grammar_skip=grammar_skip)
        lines = make_plan(SPEC, site, opts).lines(SPEC, 1)
        assert any(line.strip().startswith(want) for line in lines), lines


@pytest.mark.parametrize("fault,want", [("ignore_stop_str", "stop strings above the threshold"),
                                        ("grammar", "regex above the threshold")])
def test_text_request_kinds_catch_their_faults(site, tmp_path, fault, want):
    c = run_cell(site, tmp_path, ON, fault, grammar_skip="", stages=("ready", "request-kinds"))
    assert c["verdict"] == "fail" and c["failure"]["stage"] == "request-kinds", c["failure"]
    assert want in c["failure"]["message"]


def test_flag_off_cell_must_not_switch(site, tmp_path):
    c = run_cell(site, tmp_path, OFF)
    assert c["verdict"] == "pass", c["failure"]
    assert stage(c, "threshold-crossings")["detail"]["switches_off"] == 0


@pytest.mark.parametrize("fault,cell,want_stage,want_text", [
    ("wrong_token", ON, "resume-equivalence", "diverges at token"),
    ("shared_backends", ON, "resume-equivalence", "diverges at token"),
    ("int32_sampling", ON, "sampled-decode", "Expected 'candidates' to be of type long"),
    ("no_switch", ON, "threshold-crossings", "OFF=0 ON=0"),
    ("shrinking_reserve", ON, "threshold-crossings", "KV page invariant violated"),
    ("ignore_stop", ON, "request-kinds", "stop above the threshold"),
    ("no_restore", ON, "forced-acceptance", "did not resume at full depth"),
    ("stale_draft", ON, "resume-acceptance", "the draft model's KV cache has holes there"),
    ("subclass_unsafe", STANDALONE_ON, "ready", "'StandaloneWorkerV2' object has no attribute"),
    ("refuse_all", ON, "ready", "patchkit-spec-disable: refused"),
])
def test_each_stage_catches_its_fault(site, tmp_path, fault, cell, want_stage, want_text):
    c = run_cell(site, tmp_path, cell, fault)
    assert c["verdict"] == "fail"
    assert c["failure"]["stage"] == want_stage, c["failure"]
    assert want_text in c["failure"]["message"]


def test_soak_catches_memory_that_grows_with_every_switch(site, tmp_path):
    c = run_cell(site, tmp_path, ON, "leak", rss_tolerance_mib=48.0, soak_seconds=10.0)
    assert c["failure"]["stage"] == "soak" and "host memory grew" in c["failure"]["message"]
    ok = run_cell(site, tmp_path / "ok", ON, "", rss_tolerance_mib=48.0, soak_seconds=4.0)
    assert ok["verdict"] == "pass" and stage(ok, "soak")["detail"]["rss_growth_mib"] < 48


def test_a_near_tie_divergence_is_explained_not_failed(site, tmp_path):
    c = run_cell(site, tmp_path, ON, "near_tie", stages=tuple(s for s in SPEC.stages if s != "greedy-equivalence"))
    assert c["verdict"] == "pass", c["failure"]
    detail = stage(c, "resume-equivalence")["detail"]
    ties = detail["near_ties"]
    assert ties and detail["explained_near_ties"] >= len(ties) and detail["identical"] < detail["requests"]
    assert all(t["margin"] == pytest.approx(0.01) and t["margin"] <= t["tie_threshold"] for t in ties)


def test_a_wrong_token_after_an_explained_tie_still_fails(site, tmp_path):
    """Every position is scored, so a tie early in a request does not leave the rest unchecked."""
    c = run_cell(site, tmp_path, ON, "near_tie,wrong_after_tie",
                 stages=tuple(s for s in SPEC.stages if s != "greedy-equivalence"))
    assert c["verdict"] == "fail" and c["failure"]["stage"] == "resume-equivalence", c["failure"]
    assert "diverges at token" in c["failure"]["message"] and "off the reference's greedy path" in c["failure"]["message"]


def test_the_checkers_are_only_set_where_the_release_has_them(site, tmp_path):
    (site.root / "sglang" / "srt" / "environ.py").unlink()  # a release without SGLang's checkers
    c = run_cell(site, tmp_path, ON, "shrinking_reserve")
    assert c["verdict"] == "pass"  # the fault needs the checker to show: proof the env var is what catches it
    assert stage(c, "forced-acceptance")["detail"]["skipped"].startswith("skipped: the release has no")


def test_a_refusal_cell_demands_a_clean_refusal(site, tmp_path):
    c = run_cell(site, tmp_path, REFUSE)
    assert c["verdict"] == "refused" and "patchkit-spec-disable: refused" in stage(c, "refusal")["detail"]["refused"]
    os.environ.pop("STANDIN_V1_WITHOUT_OVERLAP")
    c = run_cell(site, tmp_path / "b", REFUSE)
    assert c["verdict"] == "fail" and "the server started and serves" in c["failure"]["message"]


def test_the_plan_estimates_before_running(site, tmp_path):
    model, models, base = tiny_models(tmp_path)
    plan = make_plan(SPEC, site, MatrixOptions(model, models, base_args=base, parallel=5))
    lines = plan.lines(SPEC, 5)
    assert lines[0].startswith(f"plan: {len(plan.cells)} cell(s) x stages") and "min" in lines[0]
    assert plan.checker_env == {"SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_BUSY": "1", "SGLANG_CHECK_KV_PAGE_INVARIANTS": "1"}
    assert plan.forced_env == {"SGLANG_SIMULATE_ACC_LEN": "3"}
    assert plan.estimate_s > 0


def test_resume_scores_a_request_admitted_while_off_and_catches_a_wrong_skipped_prefill(site, tmp_path):
    """The stand-in's wrong_prefill_token is the mutant skip-prefill-wrong-bonus: only a request
    admitted while drafting is off, on a skip cell, decodes from a wrong token. The long requests
    alone (admitted below T) never show it."""
    only = ("resume-equivalence",)
    bad = run_cell(site, tmp_path, SKIP_ON, "wrong_prefill_token", stages=only)
    assert bad["verdict"] == "fail" and bad["failure"]["stage"] == "resume-equivalence"
    assert "(admitted while off) diverges at token 1" in bad["failure"]["message"], bad["failure"]
    keep = run_cell(site, tmp_path / "k", ON, "wrong_prefill_token", stages=only)  # the fault needs skip
    assert keep["verdict"] == "pass", keep["failure"]
    good = run_cell(site, tmp_path / "g", SKIP_ON, stages=only)
    assert good["verdict"] == "pass", good["failure"]
    detail = stage(good, "resume-equivalence")["detail"]
    assert detail["admitted_while_off"] == 1 and detail["identical"] == detail["requests"]
    # the skip cell's ready line says draft_extend=skip-above-T: the admission counted only once the
    # switch lines' skipped_draft_prefills grew; a keep cell has no such counter to wait for
    assert detail["off_path_counted"] is True
    assert stage(keep, "resume-equivalence")["detail"]["off_path_counted"] is False


def test_an_admission_while_off_counts_only_when_that_request_took_the_patch_path(site, tmp_path):
    """The late request must itself move the patch's counter (skipped_draft_prefills=): a server
    that skips only batched prompts, never the request that arrives alone while off, fails the stage
    rather than passing with nothing proven (the burst is one batched request, admitted before OFF)."""
    c = run_cell(site, tmp_path, SKIP_ON, "skip_batched_only,wrong_prefill_token", stages=("resume-equivalence",))
    assert c["verdict"] == "fail" and c["failure"]["stage"] == "resume-equivalence", c["failure"]
    assert "took the patch's disabled path" in c["failure"]["message"], c["failure"]


def test_greedy_equivalence_judges_a_first_token_divergence(site, tmp_path):
    only = ("first-decode", "greedy-equivalence")
    bad = run_cell(site, tmp_path, ON, "wrong_token", stages=only)
    assert bad["failure"]["stage"] == "greedy-equivalence" and "not a near-tie" in bad["failure"]["message"]
    tie = run_cell(site, tmp_path / "t", ON, "near_tie0", stages=only)
    assert tie["verdict"] == "pass", tie["failure"]
    divs = stage(tie, "greedy-equivalence")["detail"]["divergences"]
    assert divs and all(d["explained"] for d in divs if d["first_divergent_position"] == 0)
    assert any(d["first_divergent_position"] == 0 for d in divs)


def test_a_cell_rerun_alone_replaces_its_entry_in_the_record(site, tmp_path):
    from patchkit.smoke.command import plan_and_run
    model, models, base = tiny_models(tmp_path / "logs")
    so = tmp_path / "signoff.json"
    lines = []

    def opts(cell, **env):
        return MatrixOptions(model, models, 1, 4, 2, 30.0, tmp_path / "logs", base, parallel=2, only=(cell,),
                             soak_seconds=2.0, long_tokens=150, transitions=2, env=env)
    _, first = plan_and_run(SPEC, site, opts(ON, STANDIN_FAULT="no_switch"), so, lines.append)
    assert lines[0].startswith("plan: 1 cell(s)") and not first["passed"]
    _, second = plan_and_run(SPEC, site, opts(OFF), so, lines.append)
    assert [c["name"] for c in second["cells"]] == [ON, OFF]  # the earlier cell is kept
    _, third = plan_and_run(SPEC, site, opts(ON), so, lines.append)
    assert [c["name"] for c in third["cells"]] == [OFF, ON] and third["passed"]
    assert set(third["timings"]["per_cell_s"]) == {ON, OFF}


from hypothesis import given, strategies as st  # noqa: E402

from patchkit.smoke.stages.resume import next_length  # noqa: E402


@given(length=st.integers(1, 4000), lived=st.integers(0, 50), needed=st.integers(1, 30), cap=st.integers(1, 8000))
def test_resume_long_requests_grow_until_they_outlive_enough_transitions(length, lived, needed, cap):
    """A round whose long requests saw too few OFF->ON switches makes the next round's longer (the
    0.5.12 STANDALONE cell saw 4 of 10 at 600 tokens): never shorter, never above the cap unless
    already there, and at the measured rate long enough for ``needed`` + 2 when the cap allows."""
    n = next_length(length, lived, needed, cap)
    assert n >= length
    assert n <= max(length, cap)
    if lived <= 0:
        assert n == max(length, min(cap, 2 * length))
    elif lived < needed and cap >= length * (needed + 2) / lived:
        assert n * lived >= length * (needed + 2)


from patchkit.smoke.run import SmokeConfig  # noqa: E402
from patchkit.smoke.stages.resume import score_positions  # noqa: E402


@given(rows=st.lists(st.tuples(st.integers(0, 5), st.floats(0.0, 3.0), st.floats(0.01, 8.0)), max_size=60))
def test_resume_scores_every_position_not_only_up_to_the_first_tie(rows):
    """Each patched token is judged against the reference's best at its own position: an exact match
    is silent, a margin within the bf16 near-tie threshold (min(0.05, 0.25 x top-k spread)) is an
    explained tie, anything above fails; ties before a bad token do not hide it."""
    cfg = SmokeConfig("/m")
    scores, want_ties, want_bad = [], [], []
    for pos, (choice, margin, spread) in enumerate(rows):
        best, tok = 1000 + pos, (1000 + pos if choice == 0 else 5000 + pos)
        top = [[-0.5, best, None], [-0.5 - spread, 7, None]]
        lp = -0.5 if choice == 0 else -0.5 - margin
        scores.append({"token": tok, "logprob": lp, "top": [(t[0], t[1]) for t in top]})
        if choice:
            below = top[0][0] - lp  # the margin as the reference's log-probs give it
            (want_ties if below <= min(0.05, 0.25 * spread) else want_bad).append(pos)
    ties, bad = score_positions(cfg, scores)
    assert [r["position"] for r in ties] == want_ties
    assert [r["position"] for r in bad] == want_bad
    assert all(r["margin"] >= r["tie_threshold"] for r in bad) and all(r["margin"] <= r["tie_threshold"] + 1e-6 for r in ties)


def test_a_cell_with_its_own_dtype_is_compared_with_a_reference_of_that_dtype(site, tmp_path):
    """A matrix-file cell that sets --dtype gets a speculation-off reference with the same --dtype
    (the stand-in, like a GPU, computes other numbers in fp16). Session 12's H200 run compared fp16
    cells with the bf16 reference and failed them at token 0; the plain cell keeps the shared one."""
    f = tmp_path / "m.toml"
    flag = '"--speculative-algorithm", "EAGLE3", "--speculative-disable-batch-threshold", "4"'
    f.write_text(f'[[cell]]\nname = "fp16"\nargs = [{flag}, "--dtype", "float16"]\n'
                 f'[[cell]]\nname = "plain"\nargs = [{flag}]\n')
    model, models, base = tiny_models(tmp_path / "logs", "-")
    opts = MatrixOptions(model, models, 1, 4, 2, 30.0, tmp_path / "logs", base, parallel=3, matrix_file=f,
                         only=("fp16", "plain"), long_tokens=120, transitions=2, grammar_skip="-",
                         extra={"stages": ("ready", "first-decode", "resume-equivalence")})
    rec = run_matrix(SPEC, site, opts)
    got = {c["name"]: c for c in rec["cells"]}
    assert set(got) == {"fp16", "plain"}
    for name, c in got.items():
        assert c["verdict"] == "pass", (name, c["failure"])
        assert stage(c, "resume-equivalence")["detail"]["identical"] >= 1
    logs = tmp_path / "logs"
    assert (logs / "reference" / "server.log").is_file()
    assert (logs / "reference-dtype-float16" / "server.log").is_file()
    # the stand-in's fp16 greedy path differs from the default one: the shared reference would fail it
    from patchkit.smoke.matrixrun import reference_args
    fp16 = next(c for c in make_plan(SPEC, site, opts).cells if c.name == "fp16")
    assert reference_args(SPEC, opts, fp16)[-2:] == ["--dtype", "float16"]
    assert "--speculative-algorithm" not in reference_args(SPEC, opts, fp16)
