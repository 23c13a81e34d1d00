"""The benchmark's tuning advice, on the committed H200 results (bench/results/h200-8b)."""
import gzip
import importlib.util
import json
from pathlib import Path

from hypothesis import given, strategies as st_h

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("spec_throughput", ROOT / "bench" / "spec_throughput.py")
st = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(st)
RESULTS = ROOT / "bench" / "results" / "h200-8b"


def read_json(path: Path):
    """A committed result, kept gzipped (the repository's size budget) or plain."""
    gz = path.with_name(path.name + ".gz")
    return json.loads(gzip.decompress(gz.read_bytes()) if gz.exists() else path.read_text())


def load(v):
    return read_json(RESULTS / f"bench-{v}.json")


def test_recommended_threshold_is_the_crossover_of_the_two_peers():
    doc = load("0.5.16")
    by = {r["config"]: r for r in doc["results"]}
    assert st.recommend_threshold(by["nospec"], by["eagle"]) == doc["recommended_threshold"] == 32


def test_advice_says_leave_it_off_when_the_disabled_path_loses_to_eagle():
    msg = st.advice(load("0.5.16"))
    assert msg.startswith("advice: leave the threshold off") and "0.48x" in msg


def test_advice_says_do_not_deploy_when_the_patched_server_died():
    assert "do not deploy" in st.advice(load("0.5.12"))


def test_advice_recommends_the_threshold_when_it_pays():
    doc = load("0.5.16")
    for row in doc["summary"]:  # pretend the disabled path matched no speculation above T
        if row["concurrency"] > 32:
            row["patched/eagle"] = round(row["nospec"] / row["eagle"], 3)
    assert st.advice(doc).startswith("advice: --speculative-disable-batch-threshold 32")


DECODE = ROOT / "bench" / "results" / "h200-8b-decode"


def test_decode_kernel_run_recommends_the_threshold():
    doc = read_json(DECODE / "bench-0.5.16.json")
    msg = st.advice(doc)
    assert msg.startswith("advice: --speculative-disable-batch-threshold 32") and "1.10x" in msg


def test_goal_names_the_levels_that_missed_it():
    doc = read_json(DECODE / "bench-0.5.16.json")
    msg = st.goal(doc)
    assert msg.startswith("goal not met") and "2 of 6 levels" in msg
    assert "0.905 at 64" in msg and "0.937 at 128" in msg and " at 256" not in msg


def test_goal_met_when_every_level_clears_the_bar():
    doc = read_json(DECODE / "bench-0.5.16.json")
    for row in doc["summary"]:
        row["patched/best"] = max(row["patched/best"], 0.95)
    msg = st.goal(doc)
    assert msg.startswith("goal met") and "all 6 levels" in msg and "0.950" in msg
    assert st.goal({"summary": []}) == ""


def test_attention_backend_flag_and_what_the_server_really_ran():
    """--attention-backend default leaves the choice to SGLang (fa3 / flashinfer on an H200); each result
    records what the server's own ServerArgs line says it ran, from a real 0.5.16 start-up log."""
    assert st.backend_args("default") == []
    assert st.backend_args("flashinfer") == ["--attention-backend", "flashinfer"]
    assert "--attention-backend" not in st.BASE_ARGS
    import gzip
    log = gzip.decompress((ROOT / "bench" / "results" / "gpu" / "server-0.5.16.log.gz").read_bytes()).decode(
        errors="replace")
    facts = st.launch_facts(log)
    assert facts["attention_backend"] == "triton" and facts["page_size"] == 1 and facts["topk"] == 1
    assert facts["decode_backend"] is None
    line = ("server_args=ServerArgs(model_path='/m', page_size=16, attention_backend='fa3', "
            "decode_attention_backend='flashinfer', speculative_eagle_topk=4)")
    assert st.launch_facts(line) == {"attention_backend": "fa3", "page_size": 16, "topk": 4,
                                     "decode_backend": "flashinfer"}
    assert st.launch_facts("no server args here") == {}


def test_goal_by_threshold_uses_nospec_above_t_and_eagle_at_or_below():
    results = [
        {"config": "nospec", "levels": [{"concurrency": c, "output_tok_s": v} for c, v in ((16, 100), (32, 200), (64, 400))]},
        {"config": "eagle", "levels": [{"concurrency": c, "output_tok_s": v} for c, v in ((16, 150), (32, 210), (64, 300))]},
        {"config": "patched", "levels": [{"concurrency": c, "output_tok_s": v} for c, v in ((16, 149), (32, 200), (64, 390))]},
    ]
    doc = {"summary": st.summarize(results, [16, 32, 64])}
    text = st.goal_by_threshold(doc, 32)
    # 16: 149/150 = 0.993 eagle (ok); 32: 200/210 = 0.952 eagle (miss); 64: 390/400 = 0.975 nospec (ok)
    assert text.endswith("not met at 1 of 3 levels (0.952x eagle at 32)"), text
    assert st.goal_by_threshold(doc, 16).endswith(": met")  # 32 is then above T: 200/200 nospec
    results[2]["levels"][1]["output_tok_s"] = 209
    assert st.goal_by_threshold({"summary": st.summarize(results, [16, 32, 64])}, 32).endswith(": met")


def test_goal_by_threshold_scores_a_run_that_left_one_peer_out():
    """A run of nospec and patched only (above T) is still scored against nospec; levels whose
    peer was not run are left out, not counted as met."""
    results = [
        {"config": "nospec", "levels": [{"concurrency": c, "output_tok_s": v} for c, v in ((32, 200), (64, 400), (128, 800))]},
        {"config": "patched", "levels": [{"concurrency": c, "output_tok_s": v} for c, v in ((32, 100), (64, 380), (128, 790))]},
    ]
    text = st.goal_by_threshold({"summary": st.summarize(results, [32, 64, 128])}, 32)
    # 32 needs eagle (not run): left out; 64: 0.95 (miss); 128: 0.9875 (ok)
    assert text.endswith("not met at 1 of 2 levels (0.950x nospec at 64)"), text
    assert st.goal_by_threshold({"summary": st.summarize(results[1:], [32, 64])}, 32) == ""


def test_the_window_counts_only_the_steady_share_of_each_request():
    """A request's tokens are spread over its lifetime; the window takes the share it overlaps."""
    spans = [(0.0, 2.0, 100), (1.0, 3.0, 100), (4.0, 5.0, 50)]
    # [1, 3]: half of the first (50), all of the second (100), none of the third -> 150 / 2 s
    assert st.window_tokens(spans, 1.0, 3.0) == 75.0
    assert st.window_tokens(spans, 3.0, 3.0) is None
    assert st.window_tokens(spans, 10.0, 12.0) == 0.0


@given(st_h.lists(st_h.tuples(st_h.floats(0, 50), st_h.floats(0.01, 20), st_h.integers(0, 500)), max_size=30),
       st_h.floats(0, 40), st_h.floats(0.5, 40))
def test_a_window_over_every_lifetime_counts_every_token(raw, lo, width):
    """Windows that split the time line add up to all the tokens, whatever the spans."""
    spans = [(ts, ts + d, n) for ts, d, n in raw]
    whole = st.window_tokens(spans, -1.0, 100.0) * 101.0
    assert abs(whole - sum(n for _, _, n in spans)) <= 0.05 * 101 + 1e-6
    hi = lo + width
    parts = (st.window_tokens(spans, -1.0, lo) * (lo + 1) + st.window_tokens(spans, lo, hi) * width
             + st.window_tokens(spans, hi, 100.0) * (100 - hi)) if hi < 100 else None
    if parts is not None:
        assert abs(parts - whole) <= 2 * 0.05 * 101 + 1e-6  # each figure is rounded to 0.1


def test_the_summary_and_goal_follow_the_chosen_metric():
    lv = lambda c, closed, window: {"concurrency": c, "output_tok_s": closed, "window_tok_s": window}
    results = [{"config": "nospec", "levels": [lv(64, 100, 100)]},
               {"config": "patched-skip-above-t", "levels": [lv(64, 90, 99)]}]
    closed = {"summary": st.summarize(results, [64])}
    window = {"summary": st.summarize(results, [64], "window")}
    assert closed["summary"][0]["patched-skip-above-t/nospec"] == 0.9
    assert window["summary"][0]["patched-skip-above-t/nospec"] == 0.99
    assert "not met" in st.goal_by_threshold(closed, 32, name="patched-skip-above-t")
    text = st.goal_by_threshold(window, 32, name="patched-skip-above-t")
    assert text.endswith(": met") and "patched-skip-above-t" in text


def test_control_configurations_launch_what_they_claim(tmp_path):
    """patched-inert runs the patched tree without the threshold flag; eagle-again is unpatched
    EAGLE-3 on the pristine tree; a patched configuration keeps its threshold."""
    import argparse
    args = argparse.Namespace(model_path="M", draft_model_path="D", levels=[32, 64], server_arg=[],
                              attention_backend="triton", site="/pristine", patched_site="/patched")
    cmds = {}
    for name in ("patched-inert", "eagle-again", "patched-skip-above-t", "nospec-again"):
        cmd, env = st.server_command(args, name, 32, 1234, tmp_path)
        cmds[name] = (cmd, env["PYTHONPATH"].split(":")[0])
    assert "--speculative-disable-batch-threshold" not in cmds["patched-inert"][0]
    assert cmds["patched-inert"][1] == "/patched"
    assert "--speculative-disable-batch-threshold" not in cmds["eagle-again"][0]
    assert "EAGLE3" in cmds["eagle-again"][0] and cmds["eagle-again"][1] == "/pristine"
    # the drift control above T is a second plain server: no speculation, the pristine tree
    assert not any("speculative" in a for a in cmds["nospec-again"][0]) and cmds["nospec-again"][1] == "/pristine"
    i = cmds["patched-skip-above-t"][0].index("--speculative-disable-batch-threshold")
    assert cmds["patched-skip-above-t"][0][i + 1] == "32"
