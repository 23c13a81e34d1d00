"""The smoke harness's pure helpers and stage bookkeeping (patchkit/smoke/run.py), fast and
in-process, so bench/mutation.py can run them against every mutant of that module. A toy smoke
spec keeps the expectations independent of the real patch's launch flags."""
from __future__ import annotations

import socket
import sys
import threading
import urllib.error

import pytest

from patchkit.ftypes import Target, TargetKind
from patchkit.smoke import run as R
from patchkit.smoke.spec import Algorithm, LogPatterns, SmokeSpec

SPEC = SmokeSpec(
    patch="toy-spec", patched_class=("toy/worker.py", "Worker"), factory_file="toy/factory.py",
    algorithms=(Algorithm("EAGLE", "x", ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "{draft}")),),
    axes=(), flag_args=("--toy-threshold", "{threshold}"), reference_drop=("--speculative-",),
    bool_options=("--toy-bool",), patterns=LogPatterns(ready=r"toy ready", switch=r"toy switch (ON|OFF)"))


def cfg(**kw) -> R.SmokeConfig:
    base = dict(model_path="/m/target", draft_model_path="/m/draft", tp=2, threshold=7, spec=SPEC,
                python="/py", host="127.0.0.1")
    base.update(kw)
    return R.SmokeConfig(**base)


def test_fill_replaces_known_placeholders_only():
    c = cfg(models={"extra": "/m/extra"})
    assert R.fill(["{threshold}", "{target}", "{draft}", "{extra}", "{unknown}", "{0}", "plain"], c) == \
        ["7", "/m/target", "/m/draft", "/m/extra", "{unknown}", "{0}", "plain"]
    assert R.fill(["{draft}"], cfg(draft_model_path=None, models={"draft": "/m/d2"})) == ["/m/d2"]
    assert R.fill(["{draft}"], cfg(draft_model_path=None)) == [""]


def test_launch_command_with_and_without_speculation():
    c = cfg(server_args=["--speculative-num-steps", "3", "--mem", "0.5", "--toy-bool"])
    assert R.launch_command(c, 1234) == [
        "/py", "-m", "sglang.launch_server", "--model-path", "/m/target", "--host", "127.0.0.1", "--port", "1234",
        "--tp-size", "2", "--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "/m/draft",
        "--toy-threshold", "7", "--speculative-num-steps", "3", "--mem", "0.5", "--toy-bool"]
    off = R.launch_command(c, 1234, speculative=False)
    assert off == ["/py", "-m", "sglang.launch_server", "--model-path", "/m/target", "--host", "127.0.0.1",
                   "--port", "1234", "--tp-size", "2", "--mem", "0.5", "--toy-bool"]
    no_draft = R.launch_command(cfg(draft_model_path=None, flag_on=False), 9)
    assert no_draft[-2:] == ["--speculative-algorithm", "EAGLE"] and "--toy-threshold" not in no_draft


def test_cell_command_fills_the_server_args():
    c = cfg(server_args=["--toy-threshold", "{threshold}", "--x"])
    assert R.cell_command(c, 5) == ["/py", "-m", "sglang.launch_server", "--model-path", "/m/target", "--host",
                                    "127.0.0.1", "--port", "5", "--tp-size", "2", "--toy-threshold", "7", "--x"]


def test_merge_args_lets_the_override_win():
    base = ["--a", "1", "--b=2", "--flag", "--c", "3", "--last"]
    assert R.merge_args(base, ["--a", "9", "--flag"], ("--flag",)) == ["--b=2", "--c", "3", "--last", "--a", "9", "--flag"]
    assert R.merge_args(base, ["--b", "5"]) == ["--a", "1", "--flag", "--c", "3", "--last", "--b", "5"]
    assert R.merge_args(["--a", "1"], []) == ["--a", "1"]
    assert R.merge_args(["--last"], ["--last"]) == ["--last"]


def test_drop_options_removes_each_option_with_its_value():
    args = ["--speculative-x", "1", "--keep", "2", "--speculative-flag", "--speculative-y=3", "--toy-bool", "v"]
    assert R.drop_options(args, ("--speculative-",), ("--toy-bool",)) == ["--keep", "2", "--toy-bool", "v"]
    assert R.drop_options(["--speculative-b", "--k"], ("--speculative-",)) == ["--k"]
    assert R.drop_options(["--k", "--speculative-z", "5"], ("--speculative-",)) == ["--k"]


def test_first_divergence():
    assert R.first_divergence([1, 2, 3], [1, 2, 3]) is None
    assert R.first_divergence([1, 2, 3], [1, 9, 3]) == 1
    assert R.first_divergence([5], [6]) == 0
    assert R.first_divergence([1, 2], [1, 2, 3]) == 2
    assert R.first_divergence([1, 2, 3], [1]) == 1
    assert R.first_divergence([], []) is None


def test_prompt_set_is_seeded_and_shaped():
    a, b = R.prompt_set(5), R.prompt_set(5)
    assert a == b and len(a) == 5 and a != R.prompt_set(5, seed=1)
    for p in a:
        assert p[0] == 1 and 7 <= len(p) <= 24 and all(100 <= t < 31000 for t in p[1:])


def test_free_port_is_bindable_and_in_range():
    p = R.free_port(30000, 30100)
    assert 30000 <= p < 30100
    with socket.socket() as s:
        s.bind(("127.0.0.1", p))


def test_free_port_keeps_out_of_the_kernels_ephemeral_range():
    """A port in the ephemeral range can be taken by an outgoing connection between the check and the
    server's bind (a CI flake: "Address already in use"); a range that reaches into it yields only
    the ports below it."""
    lo, hi = R.ephemeral_ports()
    got = {R.free_port(lo - 50, lo + 50) for _ in range(60)}
    assert got and all(lo - 50 <= p < lo for p in got), sorted(got)


def test_free_port_says_when_the_range_is_taken():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(OSError, match=f"no free port in {port}-{port + 1}"):
            R.free_port(port, port + 1)


def test_reference_waits_for_ready_or_failed():
    ref = R.Reference()
    got = []
    t = threading.Thread(target=lambda: got.append(ref.base))
    t.start()
    t.join(0.2)
    assert t.is_alive() and got == []  # still starting: the reader waits
    ref.set_ready("http://h:1")
    t.join(10)
    assert got == ["http://h:1"]
    bad = R.Reference()
    bad.set_failed("exited 3")
    with pytest.raises(R.StageFailed, match="reference server failed: exited 3") as info:
        bad.base
    assert info.value.stage == "resume-equivalence"
    assert R.Reference("http://x").base == "http://x"


def test_reference_greedy_caches_each_request(monkeypatch):
    calls = []

    def fake_generate(base, ids, n, timeout, **kw):
        calls.append((base, tuple(ids), n))
        return {"output_ids": [len(calls)]}

    monkeypatch.setattr(R, "generate", fake_generate)
    ref = R.Reference("http://r")
    assert ref.greedy([1, 2], 4) == [1]
    assert ref.greedy([1, 2], 4) == [1] and len(calls) == 1
    assert ref.greedy([1, 2], 5) == [2] and calls[-1] == ("http://r", (1, 2), 5)


def test_generate_sends_greedy_sampling_by_default(monkeypatch):
    sent = {}

    def fake_http(url, payload=None, timeout=60.0):
        sent.update(url=url, payload=payload, timeout=timeout)
        return {"output_ids": [1]}

    monkeypatch.setattr(R, "http_json", fake_http)
    R.generate("http://b", [1, 2], 8, 30, sampling={"temperature": 0.7}, return_logprob=True)
    assert sent["url"] == "http://b/generate" and sent["timeout"] == 30
    assert sent["payload"] == {"input_ids": [1, 2], "return_logprob": True,
                               "sampling_params": {"max_new_tokens": 8, "temperature": 0.7, "ignore_eos": True}}


@pytest.fixture
def smoke(tmp_path) -> R.Smoke:
    said = []
    s = R.Smoke(cfg(log_dir=tmp_path), Target("sglang", "0.5.12", tmp_path, TargetKind.DIRECTORY), said.append, cell="c1")
    s.said = said
    return s


def test_stage_records_pass_and_hides_private_detail(smoke):
    out = smoke.stage("first", lambda: {"n": 3, "_outputs": [1]})
    assert out == {"n": 3, "_outputs": [1]}  # the caller gets everything
    rec = smoke.stages[-1]
    assert rec["name"] == "first" and rec["passed"] is True and rec["detail"] == {"n": 3}
    assert smoke.said[0] == "[c1] [first] ..." and smoke.said[-1] == "[c1] [first] ok: {'n': 3}"
    assert smoke.stage("plain", lambda: "text") == "text" and smoke.stages[-1]["detail"] == "text"


def test_stage_turns_a_request_error_into_a_failed_stage(smoke, monkeypatch):
    monkeypatch.setattr(R.time, "sleep", lambda s: None)

    def boom():
        raise urllib.error.URLError("refused")

    with pytest.raises(R.StageFailed) as info:
        smoke.stage("second", boom)
    assert info.value.stage == "second" and info.value.message.startswith("request failed: URLError")
    last = smoke.stages[-1]
    assert {k: v for k, v in last.items() if k != "seconds"} == {"name": "second", "passed": False}
    assert isinstance(last["seconds"], float)  # recorded, not judged

    def failed():
        raise R.StageFailed("third", "bad", "w.py:1")

    with pytest.raises(R.StageFailed, match="bad"):
        smoke.stage("third", failed)
    assert sorted(smoke.stages[-1]) == ["name", "passed", "seconds"]  # no detail on a failed stage
    assert smoke.stages[-1]["name"] == "third" and smoke.stages[-1]["passed"] is False


def test_teardown_without_a_server_is_clean(smoke):
    detail = smoke._teardown(None, None)
    assert detail["clean"] is True and "message" not in detail and smoke.stages[-1]["passed"] is True


def test_teardown_fails_when_gpu_memory_is_not_released(smoke, monkeypatch):
    class Stopped:
        def stop(self):
            return {"pgid": 1, "leftover_pids": [], "exit_code": 0}

    monkeypatch.setattr(R, "wait_gpu_released", lambda baseline, *_a, **_k: (False, [9000]))
    detail = smoke._teardown(Stopped(), [100])
    assert detail["clean"] is False and detail["message"] == "GPU memory not released: [9000] MiB vs [100] MiB before"
    assert smoke.stages[-1]["passed"] is False and smoke.stages[-1]["name"] == "teardown"


def test_config_names_the_launch(smoke, tmp_path):
    (tmp_path / "config.json").write_text("{}")
    smoke.cfg.model_path = str(tmp_path)
    c = smoke._config()
    assert c["tp"] == 2 and c["threshold"] == 7 and c["patch"] == "toy-spec" and c["model_path"] == str(tmp_path)
    assert c["model_config_sha256"] and c["draft_config_sha256"] is None
    assert c["draft_model_path"] == "/m/draft" and c["server_args"] == []
    assert set(c) == {"tp", "model_path", "model_config_sha256", "draft_model_path", "draft_config_sha256",
                      "threshold", "server_args", "patch"}


def test_environment_names_python_and_gpus():
    env = R.environment()
    assert env["python"] == sys.version.split()[0]
    assert env["gpu_count"] == len(R.signoff.gpus()) and "torch" in env and "cuda" in env


def test_wait_ready_says_it_waits_and_names_the_stage_on_timeout(tmp_path, monkeypatch):
    import itertools
    import types
    from patchkit.smoke import server as S
    clock = itertools.count(start=0.0, step=1.0)
    monkeypatch.setattr(S, "time", types.SimpleNamespace(monotonic=lambda: next(clock), sleep=lambda s: None))
    said = []
    smoke = R.Smoke(cfg(log_dir=tmp_path, timeout=40), Target("sglang", "0.5.12", tmp_path, TargetKind.DIRECTORY),
                    said.append)
    srv = S.Server([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "s.log", "http://127.0.0.1:9")
    srv.start()
    try:
        with pytest.raises(R.StageFailed) as info:
            R.wait_ready(smoke, srv, "ready")
    finally:
        monkeypatch.undo()
        srv.stop(grace=5)
    assert info.value.stage == "ready" and info.value.message == "server not ready after 40s"
    waits = [m for m in said if m.startswith("waiting for the server")]
    assert waits and all(int(m.split("(")[1].rstrip("s)")) % 15 == 0 for m in waits)


def test_environment_reads_cuda_from_nvcc(monkeypatch):
    import subprocess

    def fake_run(cmd, **kw):
        if cmd[0] == "nvcc":
            return subprocess.CompletedProcess(cmd, 0, stdout="nvcc: NVIDIA\nCuda compilation tools, release 12.4\n", stderr="")
        return subprocess.CompletedProcess(cmd, 0, stdout="NVIDIA H200, 550.54\n", stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    env = R.environment()
    assert env["cuda"] == "Cuda compilation tools, release 12.4"
    assert env["gpu_count"] == 1 and env["driver"] == "550.54" and env["gpu_model"] == "NVIDIA H200"
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, stdout="x\n", stderr=""))
    env = R.environment()
    assert env["cuda"] is None and env["gpu_count"] == 0 and env["driver"] is None


def test_report_scans_the_given_or_the_current_server_log(smoke, tmp_path):
    from patchkit.smoke.server import Server
    log = tmp_path / "s.log"
    log.write_text("boot\nTraceback (most recent call last):\n  File \"w.py\", line 3, in f\n"
                   "AttributeError: 'W' object has no attribute 'cap'\n")
    srv = Server(["x"], log, "")
    assert "AttributeError" in (smoke.report(srv).exception or "")
    assert not smoke.report().exception  # no server yet: nothing to scan
    smoke.server = srv
    assert "AttributeError" in (smoke.report().exception or "")


def test_a_server_dying_mid_response_fails_the_stage_not_the_run(smoke, monkeypatch):
    """Seen in CI: the stand-in killed by its KV-page checker mid-response left http.client's
    IncompleteRead, which escaped the stage and crashed the cell instead of failing it."""
    import http.client
    monkeypatch.setattr(R.time, "sleep", lambda s: None)

    def cut():
        raise http.client.IncompleteRead(b"", 368)

    with pytest.raises(R.StageFailed) as info:
        smoke.stage("threshold-crossings", cut)
    assert info.value.stage == "threshold-crossings" and "IncompleteRead" in info.value.message
    assert smoke.stages[-1]["name"] == "threshold-crossings" and smoke.stages[-1]["passed"] is False
