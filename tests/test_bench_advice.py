"""The benchmark's tuning advice, on the committed H200 results (bench/results/h200-8b)."""
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("spec_throughput", ROOT / "bench" / "spec_throughput.py")
st = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(st)
RESULTS = ROOT / "bench" / "results" / "h200-8b"


def load(v):
    return json.loads((RESULTS / f"bench-{v}.json").read_text())


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
