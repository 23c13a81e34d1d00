"""TorchScript compiles every branch of forward (patchkit/analysis/torchscript.py): a read a module
flag keeps off the construction paths that lack the attribute is safe in Python and still breaks
``torch.jit.script``. timm's TNT ``Block`` (legacy=True has no norm2_proj) and torch_geometric's
``HeteroLinear`` (no ``lins`` with pyg-lib) were fixed for exactly this."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source
from patchkit.cli import main

BLOCK = """
from torch import nn


class Block(nn.Module):{extra}
    def __init__(self, dim, legacy=False):
        super().__init__()
        self.legacy = legacy
        self.proj = nn.Linear(dim, dim)
        if {assign_test}:
            self.norm2_proj = nn.LayerNorm(dim)

    {decorator}def forward(self, x):
        if {read_test}:
            return self.norm2_proj(self.proj(x))
        return self.proj(x)
"""


def _package(tmp_path: Path, jit_elsewhere: bool = True, **fmt) -> Path:
    pkg = tmp_path / "models"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    args = {"extra": "", "assign_test": "not legacy", "read_test": "not self.legacy", "decorator": ""}
    args.update(fmt)
    (pkg / "block.py").write_text(BLOCK.format(**args))
    # the package's TorchScript use lives in other modules, as in timm (helpers, Final flags)
    (pkg / "export.py").write_text("import torch\n\n\ndef export(model):\n    return torch.jit.script(model)\n"
                                   if jit_elsewhere else "def export(model):\n    return model\n")
    (pkg / "layers.py").write_text("import torch\n\n\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n"
                                   "        return x if torch.jit.is_scripting() else x.clone()\n"
                                   if jit_elsewhere else "class Gate:\n    pass\n")
    return pkg


def _check(pkg: Path, *flags: str) -> tuple[int, list[dict]]:
    r = CliRunner().invoke(main, ["check", str(pkg), "--no-cache", "--format", "json", *flags])
    return r.exit_code, json.loads(r.output)["findings"]


def test_a_flag_guarded_read_in_forward_is_a_warning_in_a_torchscript_package(tmp_path):
    pkg = _package(tmp_path)
    code, found = _check(pkg)
    assert code == 0  # a warning: Python never reaches the read
    [f] = [f for f in found if f["attribute"] == "norm2_proj"]
    assert f["code"] == "PK001" and f["severity"] == "warning" and f["line"] == 15
    assert "torch.jit.script on a Block built with `legacy` true fails" in f["why"]
    assert "self.norm2_proj = None" in f["hint"]
    code, found = _check(pkg, "--strict")
    assert code == 1 and [f["severity"] for f in found if f["attribute"] == "norm2_proj"] == ["error"]


def test_no_torchscript_in_the_package_no_finding(tmp_path):
    _code, found = _check(_package(tmp_path, jit_elsewhere=False))
    assert [f for f in found if f["attribute"] == "norm2_proj"] == []


def test_a_package_that_scripts_almost_nothing_is_not_judged_for_torchscript(tmp_path):
    """vLLM and SGLang mention torch.jit in a handful of their 2,000 modules and never script their
    models: one module in many is not a package written for TorchScript."""
    pkg = _package(tmp_path)  # two modules use scripting features, as in the test above
    for i in range(300):
        (pkg / f"m{i}.py").write_text(f"class C{i}(object):\n    pass\n")
    _code, found = _check(pkg)
    assert [f for f in found if f["attribute"] == "norm2_proj"] == []


def test_tests_torchscript_folds_and_methods_it_skips_are_not_reported(tmp_path):
    cases = {
        "ignore": {"decorator": "@torch.jit.ignore\n    "},
        "final": {"extra": "\n    legacy: Final[bool]"},
        "constants": {"extra": "\n    __constants__ = ['legacy']"},
        "is_scripting": {"read_test": "not self.legacy and not torch.jit.is_scripting()"},
    }
    for name, fmt in cases.items():
        pkg = _package(tmp_path / name, **fmt)
        (pkg / "block.py").write_text("import torch\nfrom typing import Final\n" + (pkg / "block.py").read_text())
        _code, found = _check(pkg)
        assert [f for f in found if f["attribute"] == "norm2_proj"] == [], name


@settings(max_examples=30, deadline=None)
@given(assign_neg=st.booleans(), read_neg=st.booleans(), name=st.sampled_from(["legacy", "use_norm", "flag_"]))
def test_the_torchscript_reason_appears_exactly_when_python_is_safe(assign_neg, read_neg, name):
    """The attribute is assigned under one polarity of a flag, read in forward under one polarity: the
    same polarity is safe in Python (only TorchScript breaks: a warning that says so); the opposite
    is a plain Python bug on every instance of one mode (a PK001 that does not blame TorchScript)."""
    src = ("import torch\nfrom torch import nn\n\n\ndef export(m):\n    return torch.jit.script(m)\n" +
           BLOCK.format(extra="", decorator="", assign_test=("not " if assign_neg else "") + "legacy",
                        read_test=("not " if read_neg else "") + "self.legacy")).replace("legacy", name)
    found = [f for f in analyse_source("m.py", src) if f.attr == "norm2_proj"]
    assert len(found) == 1 and found[0].code == "PK001"
    assert ("TorchScript" in found[0].why) == (assign_neg == read_neg), found[0].why


def test_methods_forward_calls_are_compiled_too_and_others_are_not(tmp_path):
    """TorchScript compiles what forward calls on self (recursively); a method nothing compiled calls
    runs only in Python, where the flag keeps the read away."""
    pkg = _package(tmp_path)
    src = (pkg / "block.py").read_text()
    src = src.replace("    def forward(self, x):\n        if not self.legacy:",
                      "    def forward(self, x):\n        return self._inner(x)\n\n"
                      "    def _inner(self, x):\n        if not self.legacy:")
    src += ("\n    def describe(self):\n        if not self.legacy:\n"
            "            return repr(self.norm2_proj)\n        return ''\n")
    (pkg / "block.py").write_text(src)
    _code, found = _check(pkg)
    got = [(f["line"], f["severity"]) for f in found if f["attribute"] == "norm2_proj"]
    assert got == [(18, "warning")], got  # in _inner, not in describe
