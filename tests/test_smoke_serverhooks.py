"""The smoke weight hook: with PATCHKIT_SMOKE_WEIGHTS=random the server's dummy-weight initialiser is
replaced when SGLang's weight_utils is imported (seeded by parameter name, norms at 1, the requested
scale); without it nothing changes. Runs in a subprocess against a fake ``torch`` and a fake
``sglang.srt.model_loader.weight_utils`` (no torch on CPU CI)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from patchkit.smoke.server import HOOK_DIR, KV_CHECK_ENV, WEIGHTS_ENV, kv_check_setting, server_env, weights_setting

FAKE_TORCH = '''
float16 = "float16"
class _Finfo:
    def __init__(self, dtype): self.bits = 16 if dtype in ("bfloat16", "float16") else 32
def finfo(dtype): return _Finfo(dtype)
def is_floating_point(t): return t.dtype != "int64"
class Generator:
    def __init__(self, device=None): self.seed = None
    def manual_seed(self, s): self.seed = s
class T:
    def __init__(self, dtype="bfloat16"):
        self.dtype, self.device, self.calls = dtype, "cpu", []
        self.data = self
    def uniform_(self, lo, hi, generator=None):
        self.calls.append(["uniform", lo, hi, generator.seed]); return self
    def fill_(self, v): self.calls.append(["fill", v]); return self
'''
FAKE_WEIGHT_UTILS = '''
def initialize_dummy_weights(model, low=-1e-3, high=1e-3, seed=1234):
    for p in model.state_dict().values():
        p.calls.append(["upstream", low, high])
'''
FAKE_LOADER = '''
from sglang.srt.model_loader.weight_utils import initialize_dummy_weights
'''
DRIVER = '''
import json, torch
from sglang.srt.model_loader import loader
class M:
    def __init__(self):
        self.sd = {n: torch.T() for n in ("model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
                                          "model.layers.1.self_attn.q_proj.weight", "model.layers.0.input_layernorm.weight",
                                          "model.norm.weight", "lm_head.weight")}
        self.sd["positions"] = torch.T("int64")
    def state_dict(self): return self.sd
m = M()
loader.initialize_dummy_weights(m)
print(json.dumps({n: t.calls for n, t in m.sd.items()}))
'''


@pytest.fixture()
def fake_site(tmp_path):
    site = tmp_path / "site"
    (site / "sglang" / "srt" / "model_loader").mkdir(parents=True)
    for d in ("sglang", "sglang/srt", "sglang/srt/model_loader"):
        (site / d / "__init__.py").write_text("")
    (site / "sglang" / "srt" / "model_loader" / "weight_utils.py").write_text(FAKE_WEIGHT_UTILS)
    (site / "sglang" / "srt" / "model_loader" / "loader.py").write_text(FAKE_LOADER)
    (site / "torch.py").write_text(FAKE_TORCH)
    # another sitecustomize further down the path must still run
    (site / "sitecustomize.py").write_text("import os; os.environ['OTHER_SITECUSTOMIZE_RAN'] = '1'\n")
    (site / "driver.py").write_text(DRIVER + "\nimport os; print(os.environ.get('OTHER_SITECUSTOMIZE_RAN', '0'))\n")
    return site


def run(site: Path, weights: str) -> tuple[dict, str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    if weights:
        env[WEIGHTS_ENV] = weights
    env = server_env(env)
    r = subprocess.run([sys.executable, str(site / "driver.py")], env=env, capture_output=True, text=True,
                       timeout=60, cwd=site)
    assert r.returncode == 0, r.stderr
    calls, other = r.stdout.strip().splitlines()
    return json.loads(calls), other


def test_with_dummy_asked_for_upstream_dummy_weights_stay(fake_site):
    calls, other = run(fake_site, "dummy")
    assert calls["lm_head.weight"] == [["upstream", -1e-3, 1e-3]]
    assert other == "1"


def test_random_weights_are_seeded_by_name_with_norms_at_one(fake_site):
    calls, other = run(fake_site, "random")
    q0, q1 = calls["model.layers.0.self_attn.q_proj.weight"], calls["model.layers.1.self_attn.q_proj.weight"]
    assert q0[0][0] == "uniform" and q0[0][2] == pytest.approx(0.02 * 3 ** 0.5)
    assert q0[0][1] == -q0[0][2]
    assert q0[0][3] != q1[0][3]  # two layers do not share weights (SGLang's dummy loader makes them equal)
    assert calls["model.norm.weight"] == [["fill", 1.0]]
    assert calls["model.layers.0.input_layernorm.weight"] == [["fill", 1.0]]
    assert calls["positions"] == []  # integer buffers untouched
    assert other == "1"  # the environment's own sitecustomize still ran
    again, _ = run(fake_site, "random")
    assert again == calls  # the same names give the same seeds in every server (patched and reference)


def test_scale_is_configurable(fake_site):
    calls, _ = run(fake_site, "random:0.05")
    assert calls["lm_head.weight"][0][2] == pytest.approx(0.05 * 3 ** 0.5)


def test_server_env_puts_the_hook_first_unless_dummy_is_asked_for():
    """Random weights are the default (the one-token-off-by-one mutant survives SGLang's dummy weights
    on an H200); PATCHKIT_SMOKE_WEIGHTS=dummy keeps SGLang's initialiser untouched."""
    off = {"PYTHONPATH": "/x", WEIGHTS_ENV: "dummy", KV_CHECK_ENV: "0"}
    assert server_env(off) == off  # neither hook: the server's environment as it was
    dummy = server_env({"PYTHONPATH": "/x", WEIGHTS_ENV: "dummy"})  # the KV check alone (on by default)
    assert dummy["PYTHONPATH"].split(":") == [str(HOOK_DIR), "/x"] and dummy[WEIGHTS_ENV] == "dummy"
    assert dummy[KV_CHECK_ENV] == "1" and kv_check_setting({}) == "on" and kv_check_setting({KV_CHECK_ENV: "off"}) == "off"
    for env in ({"PYTHONPATH": "/x"}, {"PYTHONPATH": "/x", WEIGHTS_ENV: "random"}):
        out = server_env(env)
        assert out["PYTHONPATH"].split(":") == [str(HOOK_DIR), "/x"]
        assert out[WEIGHTS_ENV] == "random:0.02"
    assert server_env({WEIGHTS_ENV: "random:0.1"})[WEIGHTS_ENV] == "random:0.1"
    assert weights_setting({}) == "random:0.02" and weights_setting({WEIGHTS_ENV: "dummy"}) == "dummy"
