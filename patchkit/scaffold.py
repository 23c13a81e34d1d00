"""``patchkit new NAME``: write a patch package to carry your own change.

The package holds a libcst codemod with a qualified anchor (file -> class -> method), a detector
that makes it idempotent, a before/after example pair generated from the codemod itself, and
tests (before -> after, after -> after, byte-exact revert, a real release when one is cached).
Put its folder on ``PATCHKIT_PATCH_PATH`` and every patchkit command finds it by name.
"""
from __future__ import annotations

import keyword
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .ftypes import UsageError

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Spec:
    #: the patch's name, e.g. ``log-server-args`` (its package is ``log_server_args``)
    name: str
    #: the folder the package goes into (an entry of PATCHKIT_PATCH_PATH)
    folder: Path
    distribution: str = "sglang"
    specifier: str = ">=0.5.6"
    file: str = "sglang/srt/server_args.py"
    cls: str = "ServerArgs"
    method: str = "__post_init__"
    #: the release the scaffold's own test applies the patch to (when it is fetchable)
    test_version: str = "0.5.16"

    @property
    def package(self) -> str:
        return self.name.replace("-", "_")


def default_folder() -> Path:
    """The first entry of ``PATCHKIT_PATCH_PATH``, else ``./patchkit-patches``."""
    first = next(iter(filter(None, os.environ.get("PATCHKIT_PATCH_PATH", "").split(os.pathsep))), None)
    return Path(first) if first else Path("patchkit-patches")


def validate(spec: Spec) -> None:
    if not _NAME.match(spec.name):
        raise UsageError(f"patch name '{spec.name}': use lower-case words joined by '-', e.g. log-server-args")
    if keyword.iskeyword(spec.package):
        raise UsageError(f"patch name '{spec.name}': '{spec.package}' is a Python keyword")
    for what, v in (("--class", spec.cls), ("--method", spec.method)):
        if not all(p.isidentifier() for p in v.split(".")):
            raise UsageError(f"{what} {v!r}: not a Python name")
    if not spec.file.endswith(".py") or spec.file.startswith("/"):
        raise UsageError(f"--file {spec.file!r}: a module path relative to the target root, e.g. sglang/srt/server_args.py")
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        SpecifierSet(spec.specifier)
    except InvalidSpecifier:
        raise UsageError(f"--versions {spec.specifier!r}: not a version specifier, e.g. '>=0.5.12,<0.6'") from None


PATCH_TEMPLATE = '''"""{name}: {description}

Written by ``patchkit new``. The edit: insert NEW_CODE at the start of {cls}.{method} in {file}.
Change FILE / CLASS / METHOD / NEW_CODE (and MARKER, the line that shows the patch is there),
then run ``python3 -m pytest {package}/`` and ``patchkit apply {name} --target-dir ... --dry-run``.
"""
from __future__ import annotations

import libcst as cst
from packaging.specifiers import SpecifierSet

from patchkit import codemod as cm
from patchkit.ftypes import Anchor
from patchkit.patchdef import Edit, Example, Patch, Strategy

FILE = {file!r}
CLASS = {cls!r}
METHOD = {method!r}
#: the statements the patch adds (at the start of CLASS.METHOD, after its docstring)
NEW_CODE = """
self.{attr} = True
"""
#: a fragment of NEW_CODE that is only there when the patch is: apply detects it (idempotence)
MARKER = "self.{attr} = True"


def _first_statement(fn: cst.FunctionDef):
    body = list(fn.body.body)
    is_doc = (isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1
              and isinstance(body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString))
    return body[1] if is_doc and len(body) > 1 else body[0]


def transform(module: cst.Module) -> cst.Module:
    """The codemod: raises AnchorNotFound (naming the nearest names) when upstream drifted."""
    fn = cm.find_method(FILE, module, CLASS, METHOD)
    return cm.insert(module, _first_statement(fn), cm.statements(NEW_CODE), after=False)


def is_applied(module: cst.Module) -> bool:
    fn = cm.find_method(FILE, module, CLASS, METHOD)
    return cm.contains_stmt(fn, cm.contains_code(MARKER))


EDIT = Edit(FILE, f"insert NEW_CODE at the start of {{CLASS}}.{{METHOD}}", (Anchor(FILE, CLASS, METHOD),),
            transform, is_applied)


def select(version, read) -> Strategy:
    """Pick the strategy for ``version`` (read(rel) returns a target file's text); one here."""
    return Strategy("insert-at-start", (EDIT,), f"{{CLASS}}.{{METHOD}} starts with NEW_CODE")


PATCH = Patch(
    name={name!r},
    version="0.1.0",
    description={description!r},
    distribution={distribution!r},
    specifier=SpecifierSet({specifier!r}),
    select=select,
    # examples/<stem>_before.py -> examples/<stem>_after.py, per strategy
    examples=(Example("insert-at-start", {{FILE: "example"}}),),
)
'''

TEST_TEMPLATE = '''"""Tests of the {name} patch, written by ``patchkit new``: run ``python3 -m pytest {package}/``.

After changing NEW_CODE, run once with PATCHKIT_UPDATE_GOLDENS=1 to rewrite examples/*_after.py
from the codemod, and review that file's diff."""
from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from patchkit import engine, target as tgt
from patchkit.ftypes import Outcome, Target, TargetKind

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("{package}_under_test", HERE / "__init__.py")
mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mod)
PATCH = mod.PATCH
#: the release test_applies_to_a_real_release uses (fetched into the patchkit cache once)
RELEASE = {test_version!r}


def _target(root: Path, version: str) -> Target:
    return Target(PATCH.distribution, version, root, TargetKind.DIRECTORY)


@pytest.mark.parametrize("strategy,files", [(e.strategy, e.files) for e in PATCH.examples])
def test_before_after_idempotent_and_revert(tmp_path, strategy, files):
    for rel, stem in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(HERE / "examples" / f"{{stem}}_before.py", tmp_path / rel)
    t = _target(tmp_path, RELEASE)
    r = engine.apply(PATCH, t)
    assert r.outcome is Outcome.APPLIED and r.strategy == strategy
    for rel, stem in files.items():
        golden = HERE / "examples" / f"{{stem}}_after.py"
        if os.environ.get("PATCHKIT_UPDATE_GOLDENS"):  # after an intended change: rewrite, then review the diff
            golden.write_text((tmp_path / rel).read_text())
        assert (tmp_path / rel).read_text() == golden.read_text()
    assert engine.apply(PATCH, t).outcome is Outcome.ALREADY_APPLIED  # after -> after: no second copy
    engine.revert(PATCH, t)
    for rel, stem in files.items():
        assert (tmp_path / rel).read_bytes() == (HERE / "examples" / f"{{stem}}_before.py").read_bytes()


def test_applies_to_a_real_release(tmp_path):
    try:
        rel = tgt.fetch(f"{{PATCH.distribution}}=={{RELEASE}}")
    except Exception as exc:  # no registry and not cached: say so
        pytest.skip(f"cannot fetch {{PATCH.distribution}}=={{RELEASE}}: {{exc}}")
    strategy = PATCH.plan(RELEASE, engine.reader(rel))
    for f in strategy.files:  # a scratch copy: the release cache is shared and never patched in place
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(rel.file(f), tmp_path / f)
    t = _target(tmp_path, RELEASE)
    r = engine.apply(PATCH, t)
    assert r.outcome is Outcome.APPLIED
    for f in strategy.files:
        compile((tmp_path / f).read_text(), f, "exec")
        assert mod.MARKER in (tmp_path / f).read_text()
'''


def example_before(spec: Spec) -> str:
    return (f"class {spec.cls.split('.')[-1]}:\n"
            f"    def {spec.method}(self):\n"
            f"        \"\"\"An example method shaped like the real one.\"\"\"\n"
            f"        self.ready = True\n")


def write(spec: Spec, description: Optional[str] = None) -> list[Path]:
    """Write the package; returns the files written. Refuses to overwrite an existing package."""
    validate(spec)
    pkg = spec.folder / spec.package
    if pkg.exists():
        raise UsageError(f"{pkg}: already exists; choose another name or remove it")
    attr = f"patchkit_{spec.package}"
    text = PATCH_TEMPLATE.format(name=spec.name, package=spec.package, file=spec.file, cls=spec.cls,
                                 method=spec.method, attr=attr, distribution=spec.distribution,
                                 specifier=spec.specifier,
                                 description=description or f"insert code at the start of {spec.cls}.{spec.method}")
    tests = TEST_TEMPLATE.format(name=spec.name, package=spec.package, test_version=spec.test_version)
    before = example_before(spec)
    after = _run_codemod(text, spec, before)
    files = {pkg / "__init__.py": text, pkg / f"test_{spec.package}.py": tests,
             pkg / "examples" / "example_before.py": before, pkg / "examples" / "example_after.py": after}
    tmp = spec.folder / f".{spec.package}.new"
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for path, content in files.items():
            dest = tmp / path.relative_to(pkg)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(content)
        os.replace(tmp, pkg)  # all files or none
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return sorted(files)


def _run_codemod(text: str, spec: Spec, before: str) -> str:
    """The example's after-text, produced by the codemod just written (so the pair is true)."""
    ns: dict = {}
    exec(compile(text, f"{spec.package}/__init__.py", "exec"), ns)
    import libcst as cst
    return ns["transform"](cst.parse_module(before)).code
