"""The construction path the constructor's defaults take (patchkit/analysis/defaults.py): PK001's
warning says so when a flag left at its default (``file_drops=False``) leaves the attribute out, or
when an optional part left out (``cuzinf=None``) is read by a test of its presence (``if self.cuzinf
is not None:``). The same branch decided by a required argument, by a default that takes the other
branch, by an optional part a configuration supplies (mmdet's ``train_cfg=None`` ->
``self.assigner``), under the caller's opt-in or under a test the defaults decide against, is a
plain mode warning. Every one stays a warning: as errors, 12 of 30 such groups on the labelled
corpus were real or latent (analyzer-precision-session15.md in bench/results/analyzer-precision-history.tar.xz). Shapes of rel_20
(flopy's Mt3dUzt.cuzinf) and rel_39 (pyglet's XlibWindow._xdnd_atoms) of the recall corpus."""
from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings, strategies as st

from patchkit.analysis.defaults import UNKNOWN, default_env, evaluate, evaluate_node
from patchkit.ftypes import Severity

from test_analysis_precision_rules import findings, tree

CONV = """\
    class ConvModule:
        def __init__(self, in_ch, out_ch, norm_cfg={default}):
            self.with_norm = norm_cfg is not None
            self.conv = (in_ch, out_ch)
            if self.with_norm:
                self.norm_name = "bn"

        @property
        def norm(self):
            return getattr(self, self.norm_name)

        def describe(self):
            if self.norm_name is not None:
                return self.norm_name
            return "no norm"
    """


#: what a finding says: a warning naming the defaults' path, a plain (mode) warning, or its severity
DEFAULT, MODE = "warning on the defaults' path", "warning"


def _mark(f):
    if f.severity == Severity.WARNING:
        return DEFAULT if "the path the constructor's defaults take" in f.why else MODE
    return f.severity


def _severities(root, attr):
    from patchkit.analysis.runner import analyse_paths
    reps = analyse_paths([root / "pkg"], use_cache=False)
    return {f.line: _mark(f) for r in reps for f in r.findings if f.attr == attr}


def _marks(root):
    from patchkit.analysis.runner import analyse_paths
    reps = analyse_paths([root / "pkg"], use_cache=False)
    return {(f.cls, f.attr, f.code): _mark(f) for r in reps for f in r.findings}


@pytest.mark.parametrize("default, norm, describe", [
    # an optional part left out: only the read that asks whether it is there is an error
    ("None", MODE, DEFAULT),
    # the default builds a norm: the other path is opted into
    ('{"type": "BN"}', MODE, MODE),
])
def test_the_path_the_defaults_take(tmp_path, default, norm, describe):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/conv.py": CONV.format(default=default)})
    # line 14 sits under line 13's test: a read of its own, not a presence test
    assert _severities(root, "norm_name") == {10: norm, 13: describe, 14: MODE}


def test_a_required_argument_decides_nothing(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/conv.py": CONV.replace("norm_cfg={default}", "norm_cfg")})
    assert set(_severities(root, "norm_name").values()) == {MODE}


def test_an_optional_part_a_configuration_supplies_stays_a_warning(tmp_path):
    """mmdet's heads: ``train_cfg=None`` at inference, and ``loss()`` (training only) reads the
    assigner built from it; configs always pass it for training."""
    src = """\
        class AnchorHead:
            def __init__(self, num_classes, train_cfg=None, test_cfg=None):
                self.num_classes = num_classes
                self.train_cfg = train_cfg
                self.test_cfg = test_cfg
                if self.train_cfg:
                    self.assigner = dict(train_cfg["assigner"])

            def loss(self, preds):
                return self.assigner, preds
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": src})
    assert _marks(root)[("AnchorHead", "assigner", "PK001")] == MODE


WINDOW = """\
    class BaseWindow:
        def __init__(self, width=640, file_drops=False):
            self._file_drops = file_drops
            self.width = width
            self._create()

        def _create(self):
            pass


    class XlibWindow(BaseWindow):
        def _create(self):
            if self._file_drops:
                self._xdnd_atoms = {{"XdndEnter": 1}}

        def _event_clientmessage(self, ev):
            {guard}return ev == self._xdnd_atoms["XdndEnter"]
    """


def test_a_flag_stored_by_the_base_init_and_tested_in_a_hook_across_modules(tmp_path):
    base, sub = WINDOW.split("\n\n\n")
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": base.replace("{{", "{").replace("}}", "}") + "\n",
                           "pkg/xlib.py": "    from .base import BaseWindow\n\n\n" + sub.format(guard="")})
    assert _marks(root)[("XlibWindow", "_xdnd_atoms", "PK001")] == DEFAULT


def test_a_read_under_the_same_flag_is_no_finding(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/win.py": WINDOW.format(
        guard="if not self._file_drops:\n                return False\n            ")})
    assert ("XlibWindow", "_xdnd_atoms", "PK001") not in findings(root)


def test_default_env_follows_straight_line_stores_only():
    fn = ast.parse("def __init__(self, a=None, b=True, *, c=3, d):\n"
                   "    self.x = a is not None\n"
                   "    self.y = not b\n"
                   "    self.z = self.x or self.y\n"
                   "    if c:\n"
                   "        self.w = 1\n"
                   "    self.w = 2\n").body[0]
    env = default_env(fn)
    assert env["x"] is False and env["y"] is False and env["z"] is False
    assert env["c"] == 3 and env["d"] is UNKNOWN
    assert env["w"] is UNKNOWN  # also stored inside a branch: the evaluator does not follow it


NAMES = ("a", "b", "c")
VALUES = st.sampled_from([None, True, False, 0, 1, "x", ""])


def _exprs():
    leaf = st.one_of(st.sampled_from(NAMES), VALUES.map(repr))
    return st.recursive(leaf, lambda inner: st.one_of(
        inner.map(lambda e: f"not ({e})"),
        st.tuples(inner, inner).map(lambda p: f"({p[0]}) and ({p[1]})"),
        st.tuples(inner, inner).map(lambda p: f"({p[0]}) or ({p[1]})"),
        inner.map(lambda e: f"({e}) is None"),
        inner.map(lambda e: f"({e}) is not None"),
        st.tuples(inner, VALUES).map(lambda p: f"({p[0]}) == {p[1]!r}"),
        st.tuples(inner, VALUES).map(lambda p: f"({p[0]}) != {p[1]!r}"),
    ), max_leaves=8)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # `1 is None`: generated on purpose
@settings(max_examples=300, deadline=None)
@given(_exprs(), st.dictionaries(st.sampled_from(NAMES), VALUES))
def test_the_evaluator_agrees_with_python_wherever_it_answers(expr, env):
    """Whatever it decides, Python decides the same (truthiness), and it answers whenever every
    name it needs is known and no ``is`` compares two non-None values."""
    got = evaluate(expr, env)
    try:
        want = eval(expr, {"__builtins__": {}}, dict(env))  # noqa: S307 - our own generated expression
    except NameError:
        assert got is UNKNOWN or all(n in env for n in NAMES if n in expr)
        return
    if got is not UNKNOWN:
        assert bool(got) == bool(want)
    node = ast.parse(expr, mode="eval").body
    assert (evaluate_node(node, env, None) is UNKNOWN) == (got is UNKNOWN)


def test_a_read_the_caller_opts_into_with_an_argument_stays_a_warning(tmp_path):
    """coqui-tts's DurationPredictor: ``cond`` exists only when conditioning was asked for, and
    forward reads it only when the caller passes ``g`` (a speaker embedding)."""
    src = """\
        class DurationPredictor:
            def __init__(self, channels, use_cond=False):
                self.channels = channels
                if use_cond:
                    self.cond = channels * 2

            def forward(self, x, g=None):
                if g is not None:
                    x = x + self.cond * g
                return x

            def summary(self, x, label):
                if label == "cond":
                    return self.cond
                return x
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/dp.py": src})
    reps = __import__("patchkit.analysis.runner", fromlist=["x"]).analyse_paths([root / "pkg"], use_cache=False)
    sev = {f.line: _mark(f) for r in reps for f in r.findings if f.attr == "cond"}
    assert sev == {9: MODE, 14: DEFAULT}  # opted in by g; a dispatch on data is not


def test_a_read_the_defaults_never_reach_stays_a_warning(tmp_path):
    """botorch's MultiObjectiveMCAcquisitionFunction: ``eta`` only with constraints, read under a
    test of the same setting; built with the defaults, that read never runs."""
    src = """\
        class Acquisition:
            def __init__(self, model, constrained=False, eta=1e-3):
                self.model = model
                self.constrained = constrained
                if constrained:
                    self.eta = eta

            def forward(self, x):
                if self.constrained is True:
                    x = x * self.eta
                return x

            def describe(self):
                return self.eta
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/acq.py": src})
    reps = __import__("patchkit.analysis.runner", fromlist=["x"]).analyse_paths([root / "pkg"], use_cache=False)
    sev = {f.line: _mark(f) for r in reps for f in r.findings if f.attr == "eta"}
    assert sev == {10: MODE, 14: DEFAULT}


def test_defaults_that_raise_build_nothing(tmp_path):
    """biopython's Astral: with every argument at its default the constructor raises, so the path
    that lacks ``fasta_dict`` (a database handle given) is one a caller opted into."""
    src = """\
        class Astral:
            def __init__(self, astral_file=None, db_handle=None):
                if astral_file is None and db_handle is None:
                    raise RuntimeError("need a file or a database")
                self.db_handle = db_handle
                if astral_file:
                    self.fasta_dict = {}

            def write(self):
                return list(self.fasta_dict)
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/astral.py": src})
    assert _marks(root)[("Astral", "fasta_dict", "PK001")] == MODE


def test_a_helper_called_only_under_a_test_the_defaults_decide_stays_a_warning(tmp_path):
    """diffusers' VectorQuantizer: ``used`` exists only with ``remap``; ``remap_to_used`` reads it
    and is called only under ``if self.remap is not None:``. A method nobody in the class calls
    (public API) is judged by the defaults."""
    src = """\
        class VectorQuantizer:
            def __init__(self, n, remap=False):
                self.n = n
                self.remap = remap
                if self.remap:
                    self.used = [1, 2]

            def remap_to_used(self, inds):
                return [i for i in inds if i in self.used]

            def forward(self, inds, gligen=None):
                extra = gligen.get("objs") if gligen else None
                if extra is not None:
                    inds = inds + [len(self.used)]
                if self.remap:
                    inds = self.remap_to_used(inds)
                return inds

            def stats(self):
                return len(self.used)
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/vq.py": src})
    reps = __import__("patchkit.analysis.runner", fromlist=["x"]).analyse_paths([root / "pkg"], use_cache=False)
    sev = {f.line: _mark(f) for r in reps for f in r.findings if f.attr == "used"}
    # remap_to_used: called only under `remap is not None`; forward: opted in through a local of a
    # parameter; stats: nobody opts in
    assert sev == {9: MODE, 14: MODE, 20: DEFAULT}


def test_a_method_handed_out_as_a_callback_is_no_default_path(tmp_path):
    """matplotlib's Animation: with blit=False nothing connects ``_on_resize``, which reads
    ``_resize_id``; a method handed out as a callback runs when its registrar decides."""
    src = """\
        class Animation:
            def __init__(self, fig, blit=False):
                self._fig = fig
                self._blit = blit
                if self._blit:
                    self._resize_id = fig.connect("resize", self._on_resize)

            def _on_resize(self, event):
                self._fig.disconnect(self._resize_id)

            def _stop(self):
                return self._resize_id
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/anim.py": src})
    assert _severities(root, "_resize_id") == {9: MODE, 12: DEFAULT}


def test_the_defaults_path_names_its_parameters_in_path_order_whatever_the_hash_seed(tmp_path):
    """The path's conditions are a frozenset: read in its order, the message (and so a JSON report
    or a baseline compared across runs) changed with PYTHONHASHSEED; it now follows the path."""
    import json
    import subprocess
    import sys
    src = tmp_path / "block.py"
    src.write_text("class Block:\n    def __init__(self, dim, zeta=False, alpha=False, mid=False, beta=False):\n"
                   "        self.dim = dim\n        if zeta:\n            self.norm2 = dim\n"
                   "        elif alpha:\n            self.norm2 = dim\n        elif mid:\n            self.norm2 = dim\n"
                   "        elif beta:\n            self.norm2 = dim\n\n    def forward(self, x):\n        return self.norm2\n")
    whys = set()
    for seed in ("1", "2", "3", "4", "5"):
        r = subprocess.run([sys.executable, "-m", "patchkit", "check", str(src), "--no-cache", "--format", "json"],
                           capture_output=True, text=True, env={**__import__("os").environ, "PYTHONHASHSEED": seed})
        [f] = json.loads(r.stdout)["findings"]
        whys.add(f["why"])
    assert len(whys) == 1, whys
    assert whys.pop().endswith("the path the constructor's defaults take (zeta=False, alpha=False, mid=False, beta=False)")
