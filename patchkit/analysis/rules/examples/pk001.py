"""Examples of the rule PK001 maybe-unassigned (its unit: ``patchkit/analysis/rules/pk001_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

# fastNLP's sampler: a try body stores what a handler may leave unset (session 23)
_FASTNLP_SAMPLER = """
import logging
import numpy as np
class BucketedBatchSampler:
    def __init__(self, dataset, length):
        try:
            self.length = np.array(length, dtype=int)
            self.sorted_indices = np.argsort(length)[::-1]
        except BaseException:
            logging.error("cannot sort by length")
%s
        self.dataset = dataset
    def __iter__(self):
        return iter(self.sorted_indices[: len(self.length)])
"""

# nncf's telemetry: a decorator's wrapper around the reading method, that swallows or re-raises (session 21)
_TELEMETRY = """
import functools
def guard(func):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except Exception as e:
            print("failed", e)%s
    return wrapped
class Telemetry:
    def __init__(self, factory):
        try:
            self._impl = factory()
        except Exception:
            pass
    @guard
    def send_event(self, name):
        self._impl.send(name)
"""

# timm's TNT Block (bug fixed before 1.0.16): TorchScript compiles both branches of forward (session 25)
_SCRIPTED = """
import torch
from torch import nn
class Block(nn.Module):%s
    def __init__(self, dim, legacy=False):
        super().__init__()
        self.legacy = legacy
        self.proj = nn.Linear(dim, dim)
        if not legacy:
            self.norm2_proj = nn.LayerNorm(dim)%s
    def forward(self, x):
        if %s:
            return self.proj(x)
        return self.norm2_proj(self.proj(x))
def script(dim):
    return torch.jit.script(Block(dim))
"""

# mmcv 1.2.7's ConvModule: the computed store's name is held in the attribute read (session 25)
_NAMED_BY = """
from torch import nn
def build_norm_layer(cfg, channels):
    return cfg["type"].lower(), nn.BatchNorm2d(channels)
class ConvModule(nn.Module):
    def __init__(self, channels, norm_cfg=None):
        super().__init__()
        self.with_norm = norm_cfg is not None
        if self.with_norm:
            self.norm_name, norm = build_norm_layer(norm_cfg, channels)
            self.add_module(self.norm_name, norm)%s
    @property
    def norm(self):
        return %s
"""

VALID = (
    E("a decorator whose wrapper catches Exception around the method swallows the read's AttributeError (nncf's @skip_if_raised telemetry methods)",
      _TELEMETRY % ""),
    E("a context manager named for warnings (suppress_warnings, imported from another module) filters warnings and lets exceptions through: the block's assignment happens (crewai's Telemetry)", """
from .logger_utils import suppress_warnings
class Telemetry:
    def __init__(self):
        with suppress_warnings():
            self.provider = object()
    def span(self):
        return self.provider
"""),
    E("until construction stores it, the instance reads the class's value (pyglet 1.5.4's XlibWindow: `_window = None`, atoms made under `if not self._window:`)", """
class Window:
    _window = None

    def __init__(self, drops=False):
        self._drops = drops
        self._create()

    def _create(self):
        if not self._window:
            self._window = object()
            self._atoms = {}

    def on_drop(self):
        return self._atoms["x"]
"""),
    E("a method that returns hasattr(self, ...) guards like the hasattr (igraph's Shell)", """
class Shell:
    def __init__(self, progress=False):
        if progress:
            self._progress_handler = print
    def supports_progress_bar(self):
        return hasattr(self, "_progress_handler")
    def get_progress_handler(self):
        if self.supports_progress_bar():
            return self._progress_handler
        return None
"""),
    E("TorchScript folds an `is None` test of a module attribute: the branch it rules out is never compiled (timm's RotAttentionPool2d)", """
import torch
from torch import nn
class Pool(nn.Module):
    def __init__(self, dim, separate=False):
        super().__init__()
        if separate:
            self.q = nn.Linear(dim, dim)
            self.qkv = None
        else:
            self.qkv = nn.Linear(dim, 3 * dim)
    def forward(self, x):
        if self.qkv is None:
            return self.q(x)
        return self.qkv(x)
def script(dim):
    return torch.jit.script(Pool(dim))
"""),
    E("a `Final` flag is a TorchScript constant: the branch it rules out is not compiled",
      _SCRIPTED % ("\n    legacy: torch.jit.Final[bool]", "", "self.legacy")),
    E("an attribute no literal store names may be the one setattr(self, self.slot, ...) added: the class stays open for it", """
class Plugin:
    def __init__(self, kind):
        self.kind = kind
        self.slot = kind + "_handler"
        setattr(self, self.slot, object())
    def handle(self):
        return self.audio_handler if self.kind == "audio" else None
"""),
    E("the attribute holding the computed name, assigned on every path (mmcv 1.3.0's fix)",
      _NAMED_BY % ("\n        else:\n            self.norm_name = None", "getattr(self, self.norm_name) if self.norm_name else None")),
    E("a package that never uses TorchScript: Python alone runs forward, and it never reaches the read",
      _SCRIPTED.replace("torch.jit.script(Block(dim))", "Block(dim)") % ("", "", "self.legacy")),
)

INVALID = (
    E("add_module(self.norm_name, ...) adds the attribute norm_name names, never norm_name itself: without a norm the property raises (mmcv 1.2.7's ConvModule, fixed in 1.3.0)",
      _NAMED_BY % ("", "getattr(self, self.norm_name)"), (("PK001", "norm_name"),)),
    E("torch.jit.script compiles both branches of forward: a Block built with legacy=True has no norm2_proj (timm's TNT, fixed before 1.0.16)",
      _SCRIPTED % ("", "", "self.legacy"), (("PK001", "norm2_proj"),)),
    E("the same sampler without the read after the handler: the object is built without its indices (counterpart of fastNLP's sampler)",
      _FASTNLP_SAMPLER % "        pass", (("PK001", "sorted_indices"), ("PK001", "length"))),
    E("a decorator whose wrapper logs and re-raises does not hide the read", _TELEMETRY % "\n            raise",
      (("PK001", "_impl"),)),
    E("the branch the constructor's defaults take leaves it out: no caller opted into a mode (mmcv's ConvModule.norm_name, fixed in 1.3.0)", """
class ConvModule:
    def __init__(self, in_channels, out_channels, norm_cfg=None):
        self.with_norm = norm_cfg is not None
        self.channels = (in_channels, out_channels)
        if self.with_norm:
            self.norm_name = "bn"
    @property
    def norm(self):
        return getattr(self, self.norm_name)
""", (("PK001", "norm_name"),)),
    E("a private helper with one unguarded caller", """
class C:
    def __init__(self, use_cache):
        self.use_cache = use_cache
        if use_cache:
            self.cache = {}
    def get(self, k):
        if self.use_cache:
            return self._lookup(k)
        return None
    def peek(self, k):
        return self._lookup(k)
    def _lookup(self, k):
        return self.cache[k]
""", (("PK001", "cache"),)),
    E("an alternative constructor built with super().__new__ skips __init__", """
class A:
    def __init__(self):
        self.x = 1
        self.y = 2
    @classmethod
    def quick(cls):
        obj = super().__new__(cls)
        obj.x = 1
        return obj
    def f(self):
        return self.y
""", (("PK001", "y"),)),
    E("deleted inside a try whose handler swallows the exception raised after it", """
class A:
    def __init__(self, c):
        self.a = 1
        try:
            del self.a
            if c:
                raise KeyError(c)
            self.a = 2
        except KeyError:
            pass
    def f(self):
        return self.a
""", (("PK001", "a"),)),
    E("delattr(self, name) un-assigns like del", """
class A:
    def __init__(self):
        self.a = 1
        delattr(self, "a")
    def f(self):
        return self.a
""", (("PK001", "a"),)),
    E("an optional dependency that records its absence in a flag is a mode (a warning, still reported)", """
class Tool:
    def __init__(self):
        self.enabled = True
        try:
            import some_optional_dependency as dep
        except ImportError:
            self.enabled = False
            return
        self.impl = dep.Impl()
    def run(self):
        return self.impl.go()
""", (("PK001", "impl"),)),
    E("if without else", """
class A:
    def __init__(self, c):
        if c:
            self.x = 1
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("early return before the assignment", """
class A:
    def __init__(self, c):
        if c:
            return
        self.x = 1
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("for loop body may not run", """
class A:
    def __init__(self, items):
        for i in items:
            self.last = i
    def f(self):
        return self.last
""", (("PK001", "last"),)),
    E("while loop body may not run", """
class A:
    def __init__(self, n):
        while n > 0:
            self.x = n
            n -= 1
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("except swallows before the assignment", """
class A:
    def __init__(self, path):
        try:
            data = open(path).read()
            self.data = data
        except OSError:
            pass
    def f(self):
        return self.data
""", (("PK001", "data"),)),
    E("contextlib.suppress swallows the assignment", """
import contextlib
class A:
    def __init__(self, path):
        with contextlib.suppress(OSError):
            self.data = open(path).read()
    def f(self):
        return self.data
""", (("PK001", "data"),)),
    E("match without a wildcard", """
class A:
    def __init__(self, m):
        match m:
            case 1:
                self.x = 1
            case 2:
                self.x = 2
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("conditional helper call", """
class A:
    def __init__(self, c):
        if c:
            self._init_x()
    def _init_x(self):
        self.x = 1
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("subclass calls super().__init__ conditionally", """
class Base:
    def __init__(self):
        self.x = 1
class Leaf(Base):
    def __init__(self, c):
        if c:
            super().__init__()
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("del un-assigns", """
class A:
    def __init__(self):
        self.x = 1
        del self.x
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("alternative constructor with __new__ skips __init__", """
class A:
    def __init__(self):
        self.x = 1
        self.y = 2
    @classmethod
    def fast(cls):
        obj = cls.__new__(cls)
        obj.x = 1
        return obj
    def f(self):
        return self.y
""", (("PK001", "y"),)),
    E("a read on the path the flag does not cover", """
class A:
    def __init__(self, server_args):
        self.enable_foo = server_args.enable_foo
        if self.enable_foo:
            self.foo = 1
    def f(self):
        return self.foo
""", (("PK001", "foo"),)),
    # -- Analyzer 2.0 precision families (issue 16): each still fires
    E('a hasattr result kept in a local but not tested before the read', """
class A:
    def __init__(self, c):
        if c:
            self.cache = {}
    def get(self, k):
        has = hasattr(self, "cache")
        print(has)
        return self.cache[k]
""", (('PK001', 'cache'),)),
    E('del self.x, then a conditional re-assignment, then a read', """
class A:
    def __init__(self, c):
        self.x = 1
        del self.x
        if c:
            self.x = 2
    def f(self):
        return self.x
""", (('PK001', 'x'),)),
    E("a subclass hands its base a constant that turns the store off: every instance lacks it (session 24)", """
class Base:
    def __init__(self, use_cache):
        if use_cache:
            self.cache = {}
    def lookup(self, k):
        return self.cache[k]
class NoCache(Base):
    def __init__(self):
        super().__init__(use_cache=False)
""", (("PK001", "cache"),)),
    E("a failure path with no flag leaves the attribute unassigned", """
class SymmMemCommunicator:
    def __init__(self, world):
        try:
            self.buffer = [0] * world
        except RuntimeError:
            return
    def all_reduce(self, x):
        self.buffer[0] = x
""", (("PK001", "buffer"),)),
)
