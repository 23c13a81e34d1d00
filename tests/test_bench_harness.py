"""bench/spec_throughput.py's server harness (serve/run_config) end to end, against the stand-in
server in fixtures/standin_sglang (no GPU): levels measured, switches counted, failures recorded,
the process tree torn down."""
import argparse
import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "fixtures" / "standin_sglang"
_spec = importlib.util.spec_from_file_location("spec_throughput", ROOT / "bench" / "spec_throughput.py")
st = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(st)


def args_for(tmp_path):
    ap = argparse.ArgumentParser()
    st.add_server_args(ap, workdir=str(tmp_path))
    args = ap.parse_args(["--out", str(tmp_path / "b.json"), "--model-path", "/m", "--draft-model-path", "/d",
                          "--site", str(STANDIN), "--patched-site", str(STANDIN), "--boot-timeout", "30"])
    args.levels, args.seconds, args.probe = [1, 4], 1.0, False
    return args


def _probe(tmp_path, monkeypatch, fault: str, hysteresis: int = 0, flush: int = 32) -> dict:
    if fault:
        monkeypatch.setenv("STANDIN_FAULT", fault)
    monkeypatch.setenv("STANDIN_HYSTERESIS", str(hysteresis))
    args = args_for(tmp_path)
    out = {"config": "patched"}
    st.serve(args, "patched", 2, tmp_path, out,
             lambda srv: out.update(probe=st.resume_probe(srv.base_url, 2, args, n=2, first=24, cont=16, lead_s=0.05,
                                                          flush=flush)))
    assert "error" not in out, out.get("server_tail")
    return out["probe"]


def test_the_resume_probe_sees_holes_in_the_draft_cache(tmp_path, monkeypatch):
    """Continuations of requests decoded during a disabled stretch: as fast to draft as steady ones
    on a good server; collapsed to one token a step when disabled steps skipped the draft's KV."""
    good = _probe(tmp_path / "good", monkeypatch, "")
    assert good["steady"]["accept_length"] > 1.5 and good["ratio"] >= 0.95
    assert good["lived"]["phase1"]["accept_length"] < good["steady"]["phase1"]["accept_length"]
    bad = _probe(tmp_path / "bad", monkeypatch, "stale_draft")
    assert bad["lived"]["accept_length"] == 1.0 and bad["ratio"] < 0.6


def test_the_resume_probe_measures_the_draft_cache_not_the_hysteresis(tmp_path, monkeypatch):
    """Patch 2.4.0 resumes drafting only after K steps at or below T, and an idle server takes no
    steps: the probe's flush request runs those K steps, so the continuations of a good server draft
    from their first step (session 29's H200 probe without it: lived/steady 0.85-0.93, the K=8
    one-token steps). Without the flush the same server's continuations open with K one-token steps.

    K is larger than any tail phase 1 can leave: the stand-in counts a step per request, and the last
    two requests of phase 1 (at or below T=2) have at most 2 x 48 steps left, the continuations 2 x 16;
    so without the flush drafting cannot resume before the continuations end, however the threads of
    the stand-in happen to be scheduled (K=8 let a straggling filler resume it: 1 run in 3 failed)."""
    k, flush = 200, 256
    good = _probe(tmp_path / "good", monkeypatch, "", hysteresis=k, flush=flush)
    assert good["resume_flush_tokens"] == flush and good["ratio"] >= 0.95, good
    unflushed = _probe(tmp_path / "unflushed", monkeypatch, "", hysteresis=k, flush=0)
    assert unflushed["lived"]["accept_length"] == 1.0 and unflushed["ratio"] < 0.6, unflushed
    bad = _probe(tmp_path / "bad", monkeypatch, "stale_draft", hysteresis=k, flush=flush)
    assert bad["lived"]["accept_length"] == 1.0 and bad["ratio"] < 0.6


def test_levels_and_switches_are_measured(tmp_path):
    out = st.run_config(args_for(tmp_path), "patched", 2, tmp_path)
    assert "error" not in out and out["threshold"] == 2
    assert [lv["concurrency"] for lv in out["levels"]] == [1, 4]
    assert all(lv["output_tok_s"] > 0 and lv["error_count"] == 0 for lv in out["levels"])
    assert all(isinstance(lv["window_tok_s"], float) for lv in out["levels"])  # recorded per level
    # no timing comparison: one request is always at or below T=2, so it always drafts (accept > 1); at
    # concurrency 4 the steps above T verify one token, so its acceptance lies between 1 and that of level 1
    single, four = out["levels"][0]["accept_length"], out["levels"][1]["accept_length"]
    assert single > 1.0 and 1.0 <= four <= single
    assert out["switch_lines"] >= 1 and "--speculative-disable-batch-threshold 2" in out["command"]
    assert out["teardown"]["leftover_pids"] == [] and (tmp_path / "server-patched.log").exists()


def test_a_server_that_dies_at_start_is_recorded_not_raised(tmp_path, monkeypatch):
    monkeypatch.setenv("STANDIN_EXIT_AT_START", "3")
    out = st.run_config(args_for(tmp_path), "nospec", None, tmp_path)
    assert out["levels"] == [] and out["error"] and "failing at start on purpose" in out["server_tail"]
    assert out["teardown"]["leftover_pids"] == []


def _launch_order(tmp_path, monkeypatch, threshold: str) -> list:
    launched = []

    def fake_run(args, name, t, folder):
        launched.append((name, t))
        return {"config": name, "threshold": t, "levels": [
            {"concurrency": c, "output_tok_s": 100.0 + c, "window_tok_s": 100.0 + c} for c in (1, 64)]}
    monkeypatch.setattr(st, "run_config", fake_run)
    monkeypatch.setattr(st, "environment", lambda args: {})
    monkeypatch.setattr("sys.argv", ["spec_throughput.py", "--out", str(tmp_path / "b.json"), "--model-path", "/m",
                                     "--draft-model-path", "/d", "--site", "/s", "--patched-site", "/p",
                                     "--levels", "1,64", "--threshold", threshold, "--workdir", str(tmp_path),
                                     "--configs", "patched-skip-above-t,eagle,nospec"])
    st.main()
    return launched


def test_a_given_threshold_launches_in_the_order_of_configs(tmp_path, monkeypatch):
    """Patched first, then the peers: the control for run order (the usual order launches the
    patched server last)."""
    assert _launch_order(tmp_path, monkeypatch, "32") == [
        ("patched-skip-above-t", 32), ("eagle", None), ("nospec", None)]


def test_threshold_auto_measures_the_peers_first(tmp_path, monkeypatch):
    got = _launch_order(tmp_path, monkeypatch, "auto")
    assert [n for n, _ in got] == ["nospec", "eagle", "patched-skip-above-t"]
    assert got[-1][1] is not None  # the recommended T, from the two peers measured before
