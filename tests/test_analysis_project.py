"""One class model for the whole analysed tree: bases in other modules (absolute and relative
imports, re-exports, TYPE_CHECKING and try/except alternatives), inherited methods judged for
each subclass, library bases read by path, and the impact set the gate and the engine use."""
from __future__ import annotations

import hashlib
import sys
import textwrap
from pathlib import Path

import pytest

from patchkit import gate
from patchkit import journal as jr
from patchkit.analysis import analyse_source, external
from patchkit.analysis.runner import analyse_paths
from patchkit.ftypes import Severity

BASE = """\
class Base:
    def __init__(self):
        self.t = 1

    def run(self):
        return self.t
"""


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path


def errors(root: Path, rel: str, strict: bool = False):
    from patchkit.analysis.checker import Settings
    settings = Settings(unknown_bases="strict") if strict else Settings()
    return [f for f in analyse_source(rel, (root / rel).read_text(), root, {}, settings) if f.severity == Severity.ERROR]


def test_subclass_in_another_module_that_skips_the_base_init(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": """\
        from .base import Base


        class Sub(Base):
            def __init__(self):
                self.u = 2
        """})
    got = errors(root, "pkg/sub.py", strict=True)
    assert [(f.code, f.cls, f.attr, f.path, f.line) for f in got] == [("PK003", "Sub", "t", "pkg/base.py", 6)]
    assert "Base.__init__" in got[0].why and "pkg/sub.py" in got[0].why
    # the runner (what `patchkit check pkg` uses) keeps the read's own file
    reps = analyse_paths([root / "pkg"], use_cache=False)
    found = [(Path(f.path).name, f.cls, f.code) for r in reps for f in r.findings]
    assert found == [("base.py", "Sub", "PK003")]


def test_read_during_construction_through_an_inherited_method(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": """\
        from pkg.base import Base


        class Sub(Base):
            def __init__(self):
                self.run()
        """})
    got = errors(root, "pkg/sub.py")
    assert [(f.code, f.cls, f.attr) for f in got] == [("PK002", "Sub", "t")]
    assert "never runs" in got[0].why


@pytest.mark.parametrize("imp,base", [
    ("from .base import Base", "Base"),
    ("from pkg.base import Base", "Base"),
    ("from . import base", "base.Base"),
    ("import pkg.base", "pkg.base.Base"),
    ("from pkg import Base", "Base"),              # re-exported by pkg/__init__.py
    ("from pkg.api import *", "Base"),             # re-exported by a star import
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .base import Base\nelse:\n    from pkg.base import Base",
     "Base"),
    ("try:\n    from .base import Base\nexcept ImportError:\n    Base = object", "Base"),
])
def test_every_import_form_resolves_the_base(tmp_path, imp, base):
    root = tree(tmp_path, {"pkg/__init__.py": "from .base import Base\n", "pkg/base.py": BASE,
                           "pkg/api.py": "from .base import *\n",
                           "pkg/sub.py": f"{imp}\n\n\nclass Sub({base}):\n    def __init__(self):\n        self.u = 2\n"})
    assert [(f.code, f.cls, f.attr) for f in errors(root, "pkg/sub.py", strict=True)] == [("PK003", "Sub", "t")]


@pytest.mark.parametrize("imp,base,want", [
    # one module imported two ways (package-relative, then from its own folder): the same class
    ("try:\n    from .base import Base\nexcept ImportError:\n    from base import Base", "Base", True),
    ("try:\n    from pkg.base import Base\nexcept ImportError:\n    from base import Base", "Base", True),
    # a fallback from another module may be another class: the base stays open
    ("try:\n    from .base import Base\nexcept ImportError:\n    from otherlib.widgets import Base", "Base", False),
    ("import pkg.base as B", "B.Base", True),
    # six's helper class leaves the MRO: Base is the base, Meta (read, closed) the metaclass
    ("import six\nfrom .base import Base\nclass Meta(type):\n    pass", "six.with_metaclass(Meta, Base)", True),
])
def test_import_forms_at_the_default_settings(tmp_path, imp, base, want):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE,
                           "pkg/sub.py": f"{imp}\n\n\nclass Sub({base}):\n    def __init__(self):\n        self.u = 2\n"})
    got = [(f.code, f.cls, f.attr) for f in errors(root, "pkg/sub.py")]
    assert got == ([("PK003", "Sub", "t")] if want else [])


def test_subclass_that_runs_the_base_init_is_clean(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": """\
        from .base import Base


        class Sub(Base):
            def __init__(self):
                super().__init__()
                self.run()


        class Sub2(Base):
            def __init__(self):
                Base.__init__(self=self)
        """})
    assert errors(root, "pkg/sub.py", strict=True) == []


MODULE_BASE = """\
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x) * self.dim
"""


@pytest.mark.parametrize("init", ["nn.Module.__init__(self)", "super(Block, self).__init__()", "pass"])
def test_missing_super_call_across_modules(tmp_path, init):
    root = tree(tmp_path, {"models/__init__.py": "", "models/block.py": MODULE_BASE, "models/tiny.py": f"""\
import torch.nn as nn

from .block import Block


class TinyBlock(Block):
    def __init__(self, dim):
        {init}
        self.extra = dim
"""})
    got = errors(root, "models/tiny.py")
    assert {(f.code, f.cls, f.attr, f.path) for f in got} >= {("PK003", "TinyBlock", "proj", "models/block.py"),
                                                             ("PK003", "TinyBlock", "dim", "models/block.py")}


def test_the_parent_init_call_is_clean(tmp_path):
    root = tree(tmp_path, {"models/__init__.py": "", "models/block.py": MODULE_BASE, "models/tiny.py": """\
        from .block import Block


        class TinyBlock(Block):
            def __init__(self, dim):
                Block.__init__(self, dim)
                self.extra = dim
        """})
    assert errors(root, "models/tiny.py", strict=True) == []


def test_wrong_class_assignment_across_modules(tmp_path):
    """The patch put ``self.enabled = ...`` in the sibling class: the class that reads it (through
    its base's method) never has it."""
    root = tree(tmp_path, {"w/__init__.py": "", "w/base.py": """\
        class Worker:
            def __init__(self, args):
                self.args = args

            def step(self):
                if self.enabled:
                    return self.args
        """, "w/draft.py": """\
        from .base import Worker


        class DraftWorker(Worker):
            def __init__(self, args):
                super().__init__(args)
                self.enabled = args.enabled
        """, "w/target.py": """\
        from .base import Worker


        class TargetWorker(Worker):
            def __init__(self, args):
                super().__init__(args)
        """})
    got = errors(root, "w/target.py")
    assert [(f.code, f.cls, f.attr, f.path) for f in got] == [("PK003", "TargetWorker", "enabled", "w/base.py")]


def test_stdlib_base_init_counts(tmp_path):
    root = tree(tmp_path, {"t/__init__.py": "", "t/wrap.py": """\
        import textwrap


        class Wrapper(textwrap.TextWrapper):
            def __init__(self, **kw):
                super().__init__(**kw)

            def first(self):
                return self.width, self.initial_indent

            def broken(self):
                return self.widht
        """})
    got = errors(root, "t/wrap.py")
    assert [(f.code, f.attr) for f in got] == [("PK003", "widht")]


def test_third_party_base_read_by_path_never_imported(tmp_path, monkeypatch):
    site = tree(tmp_path / "site", {"extlib/__init__.py": "from .core import Engine\n",
                                     "extlib/core.py": """\
        raise RuntimeError("the analyzer must never import me")


        class Engine:
            def __init__(self, size):
                self.size = size
        """})
    monkeypatch.syspath_prepend(str(site))
    external._PATHS.clear()
    root = tree(tmp_path / "proj", {"app/__init__.py": "", "app/car.py": """\
        from extlib import Engine


        class Car(Engine):
            def __init__(self):
                super().__init__(4)

            def go(self):
                return self.size, self.speed
        """})
    got = errors(root, "app/car.py")
    assert [(f.code, f.attr) for f in got] == [("PK003", "speed")]
    assert "extlib" not in sys.modules


# ------------------------------------------------------------------ the real release

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
STANDALONE = "sglang/srt/speculative/standalone_worker_v2.py"


def _insert_after(text: str, anchor: str, line: str) -> str:
    i = text.index(anchor)
    j = text.index("\n", i) + 1
    indent = text[i:j][: len(text[i:j]) - len(text[i:j].lstrip())]
    return text[:j] + indent + line + "\n" + text[j:]


def _seed(t, call_in_standalone: bool) -> None:
    """EAGLEWorkerV2.__init__ assigns self.pk_probe; init_cuda_graphs (inherited by
    StandaloneWorkerV2, whose __init__ never runs EAGLEWorkerV2.__init__) reads it."""
    w = t.file(WORKER)
    text = w.read_text()
    text = _insert_after(text, "self.speculative_algorithm = SpeculativeAlgorithm.from_string(", "")
    text = text.replace("        self._draft_worker = EagleDraftWorker(\n",
                        "        self.pk_probe = server_args.page_size\n        self._draft_worker = EagleDraftWorker(\n", 1)
    text = text.replace("    def init_cuda_graphs(self):\n        super().init_cuda_graphs()\n",
                        "    def init_cuda_graphs(self):\n        super().init_cuda_graphs()\n        self.pk_seen = self.pk_probe\n", 1)
    assert text.count("pk_probe") == 2
    w.write_text(text)
    if call_in_standalone:
        s = t.file(STANDALONE)
        st = s.read_text()
        anchor = "        self.adaptive_controller: Optional[AdaptiveController] = None\n\n    def _validate_vocab_compatibility("
        assert anchor in st
        s.write_text(st.replace(anchor, anchor.replace("= None\n", "= None\n        self.init_cuda_graphs()\n", 1), 1))


@pytest.mark.network
@pytest.mark.parametrize("called", [False, True])
def test_standalone_worker_on_the_real_release(sglang_scratch, called):
    t = sglang_scratch("0.5.16")
    _seed(t, called)
    reps = analyse_paths([t.file(STANDALONE)], use_cache=False)
    got = [f for r in reps for f in r.findings if f.attr == "pk_probe"]
    assert [(f.cls, f.code, f.severity) for f in got] == [("StandaloneWorkerV2", "PK002" if called else "PK003",
                                                           Severity.ERROR)]
    assert got[0].path.endswith(WORKER) and "EAGLEWorkerV2.__init__" in got[0].why
    # the engine's check (what apply runs) sees it from the edited file alone: the impact set
    found = analyse_source(WORKER, t.file(WORKER).read_text(), t.root, {})
    assert ("StandaloneWorkerV2", "pk_probe") in {(f.cls, f.attr) for f in found if f.severity == Severity.ERROR}


@pytest.mark.network
def test_gate_fails_on_a_class_that_inherits_the_patched_one(sglang_scratch):
    t = sglang_scratch("0.5.16")
    before = t.file(WORKER).read_bytes()
    _seed(t, call_in_standalone=False)
    after = t.file(WORKER).read_bytes()
    j = jr.load(t)
    j.entries.append(jr.Entry("dynamic-spec-disable", "1.1.0", "test", t.distribution, t.version, WORKER,
                              j.keep_original(before), hashlib.sha256(after).hexdigest(),
                              (f"{WORKER}::EAGLEWorkerV2.__init__", f"{WORKER}::EAGLEWorkerV2.init_cuda_graphs"),
                              "2026-01-01T00:00:00+00:00"))
    j.save()
    res = gate.run(t)
    assert res.failed_stage is not None and res.failed_stage.name == "analyzer", res.to_dict()
    assert "StandaloneWorkerV2" in res.failed_stage.detail and "pk_probe" in res.failed_stage.detail
    # without the seeded read the analyzer stage passes: what the release already has in the
    # inheriting classes (StandaloneWorkerV2 never sets self.ps either) is not the patch's doing
    t.file(WORKER).write_bytes(before)
    j.entries[-1] = jr.Entry(*[getattr(j.entries[-1], k) for k in ("patch", "patch_version", "strategy", "distribution",
                                                                   "target_version", "file", "sha_before")],
                             hashlib.sha256(before).hexdigest(), j.entries[-1].anchors, j.entries[-1].time)
    j.save()
    assert ("analyzer", "pass") in [(s.name, s.verdict) for s in gate.run(t).stages]


def test_cached_run_keeps_the_inherited_finding_and_its_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    root = tree(tmp_path / "src", {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": """\
        from .base import Base


        class Sub(Base):
            def __init__(self):
                self.u = 2
        """})
    cold = analyse_paths([root / "pkg"], jobs=1)
    warm = analyse_paths([root / "pkg"], jobs=1)
    assert [r.cached for r in warm] == [True] * len(warm)
    flat = lambda reps: [(Path(f.path).name, f.line, f.cls, f.code) for r in reps for f in r.findings]  # noqa: E731
    assert flat(cold) == flat(warm) == [("base.py", 6, "Sub", "PK003")]
    # editing the base (the subclass's file is unchanged) invalidates the subclass's cached result
    (root / "pkg/base.py").write_text(BASE.replace("return self.t", "return 1"))
    assert flat(analyse_paths([root / "pkg"], jobs=1)) == []


DATACLASS_BASE = """\
from dataclasses import dataclass


@dataclass
class Base:
    t: int
    u: int = 0

    def run(self):
        return self.t + self.u
"""


@pytest.mark.parametrize("init, bug", [
    ("self.x = 1", True),                          # the generated __init__ never runs: t is never set
    ("super().__init__(t=1)", False),              # it runs through super()
    ("Base.__init__(self, 1)", False),             # or explicitly
])
def test_subclass_of_a_dataclass_with_its_own_init_across_modules(tmp_path, init, bug):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": DATACLASS_BASE, "pkg/sub.py": f"""\
        from .base import Base


        class Sub(Base):
            def __init__(self):
                {init}
        """})
    got = [(f.code, f.cls, f.attr) for f in errors(root, "pkg/sub.py")]
    # u has a default: a class attribute, there whatever runs
    assert got == ([("PK003", "Sub", "t")] if bug else [])


def test_dataclass_subclass_of_a_plain_class_sets_its_fields(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": DATACLASS_BASE, "pkg/sub.py": """\
        from dataclasses import dataclass
        from .base import Base


        class Mixin:
            def __init__(self):
                self.m = 1


        @dataclass
        class Sub(Mixin, Base):
            v: int = 0
        """})
    assert errors(root, "pkg/sub.py") == []


HELPER_BASE = """\
class Base:
    def __init__(self):
        self.{helper}()

    def {helper}(self):
        self.t = 1
{extra}
    def run(self):
        return self.t
"""


def _helper_tree(tmp_path, helper="_init_state", extra="", sub_init="self.y = 0"):
    return tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": HELPER_BASE.format(helper=helper, extra=extra),
                           "pkg/sub.py": f"""\
        from .base import Base


        class Sub(Base):
            def __init__(self):
                {sub_init}
        """})


def _all(root):
    from patchkit.analysis.checker import Settings
    return [(f.code, f.severity.value, f.attr) for f in
            analyse_source("pkg/sub.py", (root / "pkg/sub.py").read_text(), root, {}, Settings())]


def test_private_helper_only_the_skipped_init_calls_is_the_missing_super(tmp_path):
    got = errors(_helper_tree(tmp_path), "pkg/sub.py")
    assert [(f.code, f.cls, f.attr) for f in got] == [("PK003", "Sub", "t")]
    assert "only Base.__init__ calls" in got[0].why and "missing super().__init__()" in got[0].why


@pytest.mark.parametrize("kw, why", [
    ({"extra": "\n    def reset(self):\n        self._init_state()\n"}, "a public method runs it again: set-up API"),
    ({"helper": "setup"}, "a public set-up method others may call (two-phase)"),
])
def test_helpers_with_other_callers_stay_two_phase(tmp_path, kw, why):
    assert ("PK004", "warning", "t") in _all(_helper_tree(tmp_path, **kw)), why
    assert errors(_helper_tree(tmp_path, **kw), "pkg/sub.py") == [], why


def test_subclass_that_runs_the_helper_itself_is_clean(tmp_path):
    assert _all(_helper_tree(tmp_path, sub_init="self._init_state()")) == []


@pytest.mark.parametrize("sub_base, imp", [
    ("base.LegacyBase", "from . import base"),
    ("LegacyBase", "from .base import LegacyBase"),
])
def test_a_top_level_alias_of_the_base_resolves(tmp_path, sub_base, imp):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE + "\n\nLegacyBase = Base\n", "pkg/sub.py": f"""\
        {imp}


        class Sub({sub_base}):
            def __init__(self):
                self.u = 2
        """})
    assert [(f.code, f.cls, f.attr) for f in errors(root, "pkg/sub.py")] == [("PK003", "Sub", "t")]


def test_an_alias_bound_twice_is_not_trusted(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE + "\n\nLegacyBase = Base\nLegacyBase = object\n",
                           "pkg/sub.py": """\
        from .base import LegacyBase


        class Sub(LegacyBase):
            def __init__(self):
                self.u = 2
        """})
    assert errors(root, "pkg/sub.py") == []


def test_a_stand_in_base_the_module_rebinds_later_opens_the_class(tmp_path):
    # pyomo's viewer: empty stand-ins, then `_UI, _Win = uic.loadUiType(...)` when Qt loads
    src = """\
    class _WindowUI:
        pass


    try:
        _WindowUI = load_ui_type("main.ui")
    except Exception:
        pass


    class MainWindow(_WindowUI):
        def __init__(self):
            self.setupUi(self)

        def show(self):
            return self.mdiArea
    """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/ui.py": src})
    assert errors(root, "pkg/ui.py") == []
    # the same stand-in never rebound is the real base: the read is an error
    root2 = tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/ui.py": src.replace('_WindowUI = load_ui_type("main.ui")', 'pass')})
    assert ("PK002", "setupUi") in [(f.code, f.attr) for f in errors(root2, "pkg/ui.py")]


def test_class_attributes_a_module_function_binds_count(tmp_path):
    src = """\
    class Solver:
        def __init__(self):
            self.n = 0

        def solve(self):
            return self._optimize()


    def _finalize_import(module, available):
        Solver._optimize = module.optimize
    """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/s.py": src})
    assert errors(root, "pkg/s.py") == []
    # a local of the same name is not the class
    root2 = tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/s.py": src.replace(
        "Solver._optimize = module.optimize", "Solver = object()\n        Solver._optimize = module.optimize")})
    assert [(f.code, f.attr) for f in errors(root2, "pkg/s.py")] == [("PK003", "_optimize")]


@pytest.mark.parametrize("init, want", [
    # ase's NPT: the base's own initialiser, wrapped by a deprecation decorator, runs
    ("__init__ = deprecated('use Base')(Base.__init__)", []),
    ("__init__ = deprecated(Base.__init__)", []),
    ("__init__ = Base.__init__", []),
    # a wrapped initialiser of a class that is not a base is still the missing super call
    ("__init__ = deprecated('x')(Other.__init__)", [("PK003", "Sub", "t")]),
    ("def __init__(self):\n                self.u = 2", [("PK003", "Sub", "t")]),
])
def test_a_base_initialiser_wrapped_in_the_class_body_runs(tmp_path, init, want):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": f"""\
        from .base import Base


        def deprecated(msg):
            return lambda f: f


        class Other:
            def __init__(self):
                self.o = 1


        class Sub(Base):
            {init}
        """})
    assert [(f.code, f.cls, f.attr) for f in errors(root, "pkg/sub.py")] == want


@pytest.mark.parametrize("call, want", [
    # parlai's RagAgent: ``self._generation_agent.__init__(self, opt, shared)``, the class picked at run time
    ("self._agent = kind\n                self._agent.__init__(self)", []),
    ("kind.__init__(self)", []),
    ("type(kind).__init__(self)", []),
    # a named class outside the MRO, or no initialiser call at all, stays the missing super call
    ("Other.__init__(self)", [("PK003", "Sub", "t")]),
    ("self.u = kind", [("PK003", "Sub", "t")]),
])
def test_an_initialiser_chosen_at_run_time_may_be_the_bases(tmp_path, call, want):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": f"""\
        from .base import Base


        class Other:
            def __init__(self):
                self.o = 1


        class Sub(Base):
            def __init__(self, kind):
                {call}
        """})
    assert [(f.code, f.cls, f.attr) for f in errors(root, "pkg/sub.py")] == want
    if not want:  # still reported, as a warning that says why
        from patchkit.analysis.checker import Settings
        fs = analyse_source("pkg/sub.py", (root / "pkg/sub.py").read_text(), root, {}, Settings())
        assert any(f.code == "PK003" and "chosen at run time" in str(f) for f in fs)


def test_star_imports_between_every_module_resolve_in_linear_work(tmp_path, monkeypatch):
    """nltk 2.0's readers star-import each other through implicit relative names
    (``from util import *``); following ``timit.util.X`` as a star name of ``timit`` made the names
    grow without end (16 minutes and 4 GB on nltk 2.0.5). Each qualified name is now resolved once,
    and star re-exports bring top-level names only."""
    from patchkit.analysis import project as P
    n = 8
    files = {"pkg/__init__.py": "", "pkg/reader/__init__.py": "".join(f"from m{i} import *\n" for i in range(n))}
    for i in range(n):
        files[f"pkg/reader/m{i}.py"] = "".join(f"from m{j} import *\n" for j in range(n) if j != i) + \
            f"class C{i}(Missing):\n    def __init__(self):\n        self.a = 1\n    def f(self):\n        return self.b\n"
    root = tree(tmp_path, files)
    calls = []
    real = P.Project._resolve_qualified_uncached
    monkeypatch.setattr(P.Project, "_resolve_qualified_uncached", lambda self, full, depth: calls.append(full) or real(self, full, depth))
    analyse_paths([root / "pkg"], use_cache=False, jobs=1)
    assert len(calls) == len(set(calls)) and len(calls) < 20 * n * n, len(calls)


def test_a_finding_in_a_base_module_is_spelled_like_the_files_asked_for(tmp_path, monkeypatch):
    """Named relatively, the subclass's file and the base's module both come out relative (the
    base's path used to be absolute beside relative ones); named absolutely, both are absolute."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": """\
        from .base import Base


        class Sub(Base):
            def __init__(self):
                self.u = 2
        """})
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    for cached in (False, True):
        rel = [f.path for r in analyse_paths([Path("pkg")], jobs=1) for f in r.findings]
        assert rel == ["pkg/base.py"], (cached, rel)
    absolute = [f.path for r in analyse_paths([root / "pkg"], jobs=1) for f in r.findings]
    assert absolute == [str(root / "pkg/base.py")]


def test_a_public_method_the_skipped_init_hands_its_arguments_to_is_the_missing_super(tmp_path):
    """python-can 3.1.0rc1: ``BusABC.__init__`` calls ``self.set_filters(can_filters)`` (which a
    property setter calls again later); ``Usb2canBus`` skips ``BusABC.__init__`` and the inherited
    ``recv`` reads ``self._filters``. A bare ``self.setup()`` stays two-phase (above)."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/bus.py": """\
        class BusABC:
            def __init__(self, channel, can_filters=None):
                self.channel = channel
                self.set_filters(can_filters)

            @property
            def filters(self):
                return self._filters

            @filters.setter
            def filters(self, filters):
                self.set_filters(filters)

            def set_filters(self, filters=None):
                self._filters = filters or None

            def recv(self, msg):
                return msg if self._filters is None else None
        """, "pkg/usb2can.py": """\
        from .bus import BusABC


        class Usb2canBus(BusABC):
            def __init__(self, channel):
                self.handle = channel
        """})
    got = {(f.code, f.attr): f for f in errors(root, "pkg/usb2can.py")} | \
        {(f.code, f.attr): f for f in errors(root, "pkg/bus.py")}
    assert ("PK003", "_filters") in got
    assert "missing super().__init__()" in got[("PK003", "_filters")].why


def test_the_field_bug_split_over_modules_names_the_other_class_and_the_reader(tmp_path):
    """The assignment landed in DraftWorker (draft.py) while TargetWorker (target.py, reached through
    a re-export) reads it, and a subclass in a third module inherits the read: one finding, under
    the class whose method reads, naming the other module's class and line and the subclass."""
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/spec/__init__.py": "from .base import WorkerBase as PublicBase\n",
        "pkg/spec/base.py": """\
            class WorkerBase:
                def __init__(self, server_args):
                    self.server_args = server_args
            """,
        "pkg/spec/draft.py": """\
            from .base import WorkerBase


            class DraftWorker(WorkerBase):
                def __init__(self, server_args):
                    super().__init__(server_args)
                    self.spec_disable_batch_threshold = server_args.threshold
            """,
        "pkg/spec/target.py": """\
            from pkg.spec import PublicBase


            class TargetWorker(PublicBase):
                def __init__(self, server_args):
                    super(TargetWorker, self).__init__(server_args)

                def forward(self, batch):
                    return len(batch) > self.spec_disable_batch_threshold
            """,
        "pkg/spec/standalone.py": """\
            from . import target as t


            class Standalone(t.TargetWorker):
                def __init__(self, server_args):
                    t.PublicBase.__init__(self, server_args)
            """,
    })
    reps = analyse_paths([root / "pkg"], use_cache=False)
    from patchkit.checkrun import _dedupe
    got, _ = _dedupe([f for r in reps for f in r.findings])
    assert [(f.code, f.cls, f.attr, f.severity) for f in got] == \
        [("PK003", "TargetWorker", "spec_disable_batch_threshold", Severity.ERROR)]
    (f,) = got
    assert f.hint == "assigned in DraftWorker.__init__ (pkg/spec/draft.py:7), a different class"
    assert list(f.also) == ["Standalone"]


def test_an_in_process_run_keeps_no_tree_alive(tmp_path):
    """The gate and the pytest plugin analyse in their own process: once the results are back, no
    project (and none of its syntax trees) may stay reachable. The injection index of the last
    chunk once held its project until the next run (1 GB on SGLang's srt/)."""
    import gc
    from patchkit.analysis.project import Project
    from patchkit.analysis.runner import analyse_paths
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text("class Base:\n    def __init__(self):\n        self.t = 1\n\n    def get(self):\n"
                                 "        return self.t\n")
    (pkg / "sub.py").write_text("from pkg.base import Base\n\n\nclass Sub(Base):\n    def __init__(self):\n"
                                "        pass\n")
    reports = analyse_paths([pkg], use_cache=False, jobs=1)
    assert any(f.attr == "t" for r in reports for f in r.findings)
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, Project)]


def test_parallel_run_finds_what_the_serial_run_finds(tmp_path, monkeypatch):
    """With two workers the files go out in several chunks each (runner.CHUNKS_PER_JOB); a worker's
    later chunks reuse the projects and tree-wide indexes of its first. Bases and subclasses sit in
    different chunks; every subclass's own read of the attribute its skipped base __init__ sets is
    found, as the one-process run finds it."""
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    files = {"pkg/__init__.py": "", "pkg/a_base.py": BASE}
    for i in range(90):
        files[f"pkg/m{i:02d}.py"] = f"""\
            from .a_base import Base
            from .m{(i + 45) % 90:02d} import S{(i + 45) % 90}  # a module of another chunk


            class S{i}(Base):
                def __init__(self):
                    self.u{i} = {i}

                def get(self):
                    return self.t + {i}
            """
    root = tree(tmp_path / "src", files)
    flat = lambda reps: sorted((Path(f.path).name, f.line, f.cls, f.attr, f.code, f.severity.value)  # noqa: E731
                               for r in reps for f in r.findings)
    serial = flat(analyse_paths([root / "pkg"], use_cache=False, jobs=1))
    parallel = flat(analyse_paths([root / "pkg"], use_cache=False, jobs=2))
    assert parallel == serial
    assert {(name, cls, attr) for name, _l, cls, attr, _c, _s in serial if name != "a_base.py"} == \
        {(f"m{i:02d}.py", f"S{i}", "t") for i in range(90)}


def test_a_namespace_package_that_imports_itself_by_its_own_name(tmp_path):
    """``ns/`` has no ``__init__.py``, so its files are rooted at ``ns/`` itself, yet they import each
    other as ``ns.base`` (run from the folder above): that name is the root's own ``base``."""
    root = tree(tmp_path, {"ns/base.py": BASE, "ns/sub.py": """\
        from ns.base import Base


        class Sub(Base):
            def __init__(self):
                self.u = 2
        """, "ns/plain.py": """\
        import ns.base


        class Plain(ns.base.Base):
            pass
        """})
    reps = analyse_paths([root / "ns"], use_cache=False)
    found = sorted((Path(f.path).name, f.cls, f.attr, f.code) for r in reps for f in r.findings)
    assert found == [("base.py", "Sub", "t", "PK003")]  # Plain runs Base.__init__
