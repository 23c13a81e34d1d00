"""The three extension points each need files in one place only (ARCHITECTURE.md):

(a) a new patch: one package on PATCHKIT_PATCH_PATH, applied to a toy target;
(b) a new analyzer rule: one check package on PATCHKIT_CHECK_PATH (its function, its examples, its
    Rule), which ``patchkit check``, ``explain`` and a patch's ``checks`` then run;
(c) a new smoke stage: one function named in a patch's smoke spec, run against the CPU stand-in.

Everything below is written into tmp_path; nothing under patchkit/ is edited."""
from __future__ import annotations

import json
import os
import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from toytarget import FILE, toy_target

from patchkit import registry, rules
from patchkit.cli import main

ROOT = Path(__file__).resolve().parent.parent

PATCH = '''
from packaging.specifiers import SpecifierSet

from patchkit import codemod as cm
from patchkit.ftypes import Anchor
from patchkit.patchdef import Edit, Patch, Strategy

FILE, CLASS, METHOD = "sglang/srt/server_args.py", "ServerArgs", "url"
CODE = "print('url asked')"


def transform(module):
    fn = cm.find_method(FILE, module, CLASS, METHOD)
    return cm.insert(module, fn.body.body[0], cm.statements(CODE), after=False)


def is_applied(module):
    return cm.contains_stmt(cm.find_method(FILE, module, CLASS, METHOD), cm.contains_code(CODE))


EDIT = Edit(FILE, "say each url() call", (Anchor(FILE, CLASS, METHOD),), transform, is_applied)
PATCH = Patch(name="log-url", version="1.0", description="say each url() call", distribution="sglang",
              specifier=SpecifierSet(">=0.5"), select=lambda version, read: Strategy("print", (EDIT,)),
              checks=CHECKS)
'''

CHECK = '''
import ast

from patchkit.checks_api import Check, Example
from patchkit.ftypes import Finding
from patchkit.rules import Rule

RULE = Rule("PKX01", "print-in-method", "error", "A method calls print().",
            "Server processes log through logging; print() output is lost.",
            "class A:\\n    def f(self):\\n        print('x')\\n", "Use logging.getLogger(__name__).")


def run(rel, source, root, overlay):
    out = []
    for cls in (n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                out.append(Finding(rel, node.lineno, node.col_offset + 1, "PKX01", f"print() in a method of {cls.name}",
                                   cls=cls.name, attr="print"))
    return out


CHECK = Check("no-print", "methods do not call print()", run,
              valid=(Example("logging", "class A:\\n    def f(self):\\n        log.info('x')\\n"),),
              invalid=(Example("print", "class A:\\n    def f(self):\\n        print('x')\\n", (("PKX01", "print"),)),),
              rules=(RULE,))
'''


def write(folder: Path, package: str, text: str) -> Path:
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text(textwrap.dedent(text))
    return folder / package


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def places(tmp_path, monkeypatch):
    """PATCHKIT_PATCH_PATH / PATCHKIT_CHECK_PATH folders under tmp_path, a private cache, and the
    rule table restored afterwards (a registered check adds its rules to it)."""
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(tmp_path / "patches"))
    monkeypatch.setenv("PATCHKIT_CHECK_PATH", str(tmp_path / "checks"))
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(rules, "RULES", dict(rules.RULES))
    return tmp_path


def test_a_new_patch_is_one_package_on_the_patch_path(places):
    pkg = write(places / "patches", "log_url", 'CHECKS = ("attr-init",)\n' + PATCH)
    t = toy_target(places / "site")
    before = t.file(FILE).read_bytes()
    assert Path(registry.patch("log-url").select.__globals__["__file__"]).parent == pkg  # where it was found
    assert "log-url" in [p["name"] for p in json.loads(cli("list", "--json").stdout)["patches"]]
    r = cli("apply", "log-url", "--target-dir", t.root)
    assert r.exit_code == 0 and r.stdout.startswith("log-url: applied on sglang 0.5.16 [print]"), r.output
    assert "    def url(self):\n        print('url asked')\n" in t.file(FILE).read_text()
    assert "already-applied" in cli("apply", "log-url", "--target-dir", t.root).stdout
    r = cli("gate", "--target-dir", t.root, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["passed"] is True
    assert cli("revert", "log-url", "--target-dir", t.root).exit_code == 0 and t.file(FILE).read_bytes() == before


def test_a_new_rule_is_one_check_package_on_the_check_path(places):
    write(places / "checks", "no_print", CHECK)
    src = places / "m.py"
    src.write_text("class A:\n    def __init__(self):\n        self.x = 1\n\n    def f(self):\n        print(self.x)\n")
    r = cli("check", src, "--no-cache")
    assert r.exit_code == 1, r.output
    assert f"{src}:6:9: error: PKX01 print() in a method of A" in r.stdout
    assert "no-print" in [c["name"] for c in json.loads(cli("list", "--json").stdout)["checks"]]
    r = cli("explain", "PKX01")
    assert r.exit_code == 0 and r.stdout.startswith("PKX01 (print-in-method, default severity: error)")
    assert cli("check", src, "--no-cache", "--ignore", "PKX01").exit_code == 0
    sarif = json.loads(cli("check", src, "--no-cache", "--format", "sarif").stdout)
    assert [x["ruleId"] for x in sarif["runs"][0]["results"]] == ["PKX01"]
    # the project chooses which checks run
    (places / "pyproject.toml").write_text('[tool.patchkit]\nchecks = ["attr-init"]\n')
    assert cli("check", src, "--no-cache").exit_code == 0
    (places / "pyproject.toml").write_text('[tool.patchkit]\nchecks = ["no-prnt"]\n')
    r = cli("check", src, "--no-cache")
    assert r.exit_code == 2 and "no check named 'no-prnt'; did you mean 'no-print'?" in r.stderr
    # its own examples are the check's tests, as the built-in ones are
    c = registry.checks()["no-print"]
    assert [f.code for e in c.invalid for f in c.run("e.py", e.source, None, {})] == ["PKX01"]
    assert [f for e in c.valid for f in c.run("e.py", e.source, None, {})] == []


def test_a_patch_names_the_new_check_and_apply_and_the_gate_run_it(places):
    write(places / "checks", "no_print", CHECK)
    write(places / "patches", "log_url", 'CHECKS = ("attr-init", "no-print")\n' + PATCH)
    t = toy_target(places / "site")
    before = t.file(FILE).read_bytes()
    r = cli("apply", "log-url", "--target-dir", t.root)
    assert r.exit_code == 1 and "check failed on the patched code" in r.stderr and "PKX01 print()" in r.stderr
    assert t.file(FILE).read_bytes() == before
    assert cli("apply", "log-url", "--target-dir", t.root, "--no-check").exit_code == 0
    r = cli("gate", "--target-dir", t.root)
    assert r.exit_code == 1 and "FAIL  analyzer" in r.stderr and "PKX01 print() in a method of ServerArgs" in r.stderr


# ------------------------------------------------------------------------------- a new smoke stage
STANDIN = ROOT / "fixtures" / "standin_sglang"
ON = "EAGLE3-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=keep-flag=on"


def stop_under_load(ctx):
    """Stop tokens hold when the batch is above the threshold (speculation switched off)."""
    from concurrent.futures import ThreadPoolExecutor

    from patchkit.smoke.run import StageFailed, generate
    prompts = [[11, i] for i in range(8)]
    refs = [generate(ctx.base, p, 24, 60)["output_ids"] for p in prompts]
    with ThreadPoolExecutor(8) as ex:
        outs = list(ex.map(lambda pr: generate(ctx.base, pr[0], 24, 60, sampling={
            "stop_token_ids": [pr[1][12]], "ignore_eos": False})["output_ids"], zip(prompts, refs)))
    for ref, out in zip(refs, outs):
        if ref[12] in out[:-1]:
            raise StageFailed("stop-under-load", f"token {ref[12]} at {out.index(ref[12])}, decoding went on to {len(out)}")
    return {"requests": len(prompts)}


@pytest.fixture
def site(tmp_path, monkeypatch):
    from patchkit.ftypes import Target, TargetKind
    root = tmp_path / "site"
    shutil.copytree(STANDIN, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("PYTHONPATH", f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return Target("sglang", "0.5.12", root, TargetKind.DIRECTORY)


@pytest.mark.parametrize("fault,verdict", [("", "pass"), ("ignore_stop", "fail")])
def test_a_new_smoke_stage_is_one_function_in_the_patch_smoke_spec(site, tmp_path, fault, verdict):
    from patchkit.patches.dynamic_spec_disable.smoke_spec import SPEC
    from patchkit.smoke.command import tiny_models
    from patchkit.smoke.matrixrun import MatrixOptions, run_matrix
    spec = replace(SPEC, stages=("ready", "first-decode", "stop-under-load", "log-scan"),
                   own_stages=(("stop-under-load", stop_under_load),))
    model, models, base = tiny_models(tmp_path / "logs")
    opts = MatrixOptions(model, models, 1, 4, 2, 30.0, tmp_path / "logs", base, only=(ON,),
                         env={"STANDIN_FAULT": fault} if fault else {})
    (cell,) = run_matrix(spec, site, opts)["cells"]
    assert cell["verdict"] == verdict, cell["failure"]
    ran = {s["name"]: s for s in cell["stages"]}
    if verdict == "pass":
        assert ran["stop-under-load"]["passed"] and ran["stop-under-load"]["detail"] == {"requests": 8}
    else:  # the fault the stage exists for: stop tokens ignored on the disabled path
        assert cell["failure"]["stage"] == "stop-under-load" and "decoding went on" in cell["failure"]["message"]
