"""Valid (no finding) and invalid (these findings) examples of the attr-init check.

Each invalid example names the (code, attribute) pairs it must produce, no more, no less
(info-level findings are not shown by default and do not count).
"""
from patchkit.checks_api import Example as E

VALID = (
    E("the base initialiser called through functools.wraps' __wrapped__ (captum's ClassSummarizer)", """
import functools
def log_usage(f):
    @functools.wraps(f)
    def wrapper(*a, **k):
        return f(*a, **k)
    return wrapper
class Summarizer:
    @log_usage
    def __init__(self, stats):
        self._summarizers = stats
    def summary(self):
        return self._summarizers
class ClassSummarizer(Summarizer):
    def __init__(self, stats):
        Summarizer.__init__.__wrapped__(self, stats)
        self.classes = {}
"""),
    E("Base.__init__(self) on a base without __init__ runs its library base's (botorch's OutcomeTransform)", """
from torch.nn import Module
class OutcomeTransform(Module):
    def forward(self, y):
        return y
class Mixin:
    def __init__(self):
        self.extra = 1
class Standardize(OutcomeTransform, Mixin):
    def __init__(self):
        OutcomeTransform.__init__(self)
        self.register_buffer("means", None)
        self.m = 0
"""),
    E("a private method read back by its mangled name (salt's AESFuncs)", """
class AESFuncs:
    def __init__(self):
        self.__cache = {}
    def __verify(self, x):
        return x in self.__cache
    def sync_verify(self, x):
        return self._AESFuncs__verify(x)
"""),
    E("the instance handed to a function outside the tree, which may set anything on it", """
from somelib import configure
class A:
    def __init__(self):
        configure(self)
    def f(self):
        return self.x
"""),
    E("assigned in __init__", """
class A:
    def __init__(self):
        self.x = 1
    def f(self):
        return self.x
"""),
    E("both branches assign", """
class A:
    def __init__(self, c):
        if c:
            self.x = 1
        else:
            self.x = 2
    def f(self):
        return self.x
"""),
    E("elif chain with else", """
class A:
    def __init__(self, m):
        if m == 1:
            self.x = 1
        elif m == 2:
            self.x = 2
        else:
            self.x = 3
    def f(self):
        return self.x
"""),
    E("raise on the other path", """
class A:
    def __init__(self, c):
        if c:
            self.x = 1
        else:
            raise ValueError(c)
    def f(self):
        return self.x
"""),
    E("assert False / sys.exit kill the path", """
import sys
class A:
    def __init__(self, c):
        if c == 1:
            self.x = 1
        elif c == 2:
            assert False, "no"
        else:
            sys.exit(2)
    def f(self):
        return self.x
"""),
    E("NoReturn helper", """
from typing import NoReturn
def die(msg) -> NoReturn:
    raise SystemExit(msg)
class A:
    def __init__(self, c):
        if not c:
            die("no c")
        self.x = c
    def f(self):
        return self.x
"""),
    E("while True with break after assignment", """
class A:
    def __init__(self, it):
        while True:
            self.x = next(it)
            break
    def f(self):
        return self.x
"""),
    E("helper chain from __init__", """
class A:
    def __init__(self):
        self._setup()
    def _setup(self):
        self._more()
    def _more(self):
        self.x = 1
    def f(self):
        return self.x
"""),
    E("recursive helpers do not hang", """
class A:
    def __init__(self):
        self.a()
    def a(self):
        self.x = 1
        self.b()
    def b(self):
        self.a()
    def f(self):
        return self.x
"""),
    E("super().__init__ along the MRO", """
class Base:
    def __init__(self):
        self.x = 1
class Mid(Base):
    def __init__(self):
        super().__init__()
        self.y = 2
class Leaf(Mid):
    def f(self):
        return self.x + self.y
"""),
    E("Base.__init__(self)", """
class Base:
    def __init__(self):
        self.x = 1
class Leaf(Base):
    def __init__(self):
        Base.__init__(self)
    def f(self):
        return self.x
"""),
    E("template hook overridden in subclass", """
class Base:
    def __init__(self):
        self.setup()
    def setup(self):
        pass
class Leaf(Base):
    def setup(self):
        self.x = 1
    def f(self):
        return self.x
"""),
    E("class-level default, property, cached_property, method", """
import functools
class A:
    x = 0
    @property
    def y(self):
        return 1
    @functools.cached_property
    def z(self):
        return 2
    def m(self):
        return 3
    def f(self):
        return self.x + self.y + self.z + self.m()
"""),
    E("dataclass fields and __post_init__", """
from dataclasses import dataclass, field
@dataclass
class A:
    a: int
    b: list = field(default_factory=list)
    def __post_init__(self):
        self.c = self.a + 1
    def f(self):
        return self.a + len(self.b) + self.c
"""),
    E("NamedTuple, pydantic and msgspec fields", """
from typing import NamedTuple
import msgspec
from pydantic import BaseModel
class P(NamedTuple):
    x: int
    def f(self):
        return self.x
class M(BaseModel):
    y: int
    def f(self):
        return self.y
class S(msgspec.Struct):
    z: int
    def f(self):
        return self.z
"""),
    E("literal setattr and object.__setattr__", """
class A:
    def __init__(self):
        setattr(self, "x", 1)
        object.__setattr__(self, "y", 2)
    def f(self):
        return self.x + self.y
"""),
    E("nn.Module register_buffer / register_parameter / add_module", """
import torch
from torch import nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(1))
        self.register_parameter("w", None)
        self.add_module("sub", nn.Identity())
    def forward(self, x):
        self.eval()
        return x * self.scale + self.w + self.sub(x) if self.training else x
"""),
    E("hasattr guard at the read", """
class A:
    def __init__(self, c):
        if c:
            self.x = 1
    def f(self):
        if hasattr(self, "x"):
            return self.x
        return getattr(self, "x", None)
"""),
    E("lazy initialisation guarded by hasattr", """
class A:
    def f(self):
        if not hasattr(self, "_cache"):
            self._cache = {}
        return self._cache
"""),
    E("try/except AttributeError at the read", """
class A:
    def __init__(self, c):
        if c:
            self.x = 1
    def f(self):
        try:
            return self.x
        except AttributeError:
            return None
"""),
    E("correlated flag: assigned only when enabled, read only when enabled", """
class A:
    def __init__(self, server_args):
        self.enable_foo = server_args.enable_foo
        if self.enable_foo:
            self.foo = 1
    def f(self):
        if self.enable_foo:
            return self.foo
        return 0
"""),
    E("correlated flag through an early return", """
class A:
    def __init__(self, enabled):
        self.enabled = enabled
        if not enabled:
            return
        self.buf = []
    def push(self, v):
        if not self.enabled:
            return
        self.buf.append(v)
"""),
    E("disabled flag set with a constant before the early return", """
class A:
    def __init__(self, world_size):
        if world_size == 1:
            self.disabled = True
            return
        self.disabled = False
        self.comm = object()
    def send(self):
        if self.disabled:
            return None
        return self.comm
"""),
    E("match with a wildcard", """
class A:
    def __init__(self, m):
        match m:
            case 1:
                self.x = 1
            case _:
                self.x = 0
    def f(self):
        return self.x
"""),
    E("try/finally assigns on every path", """
class A:
    def __init__(self):
        try:
            v = 1
        finally:
            self.x = 2
    def f(self):
        return self.x
"""),
    E("__getattr__ makes the class unknowable", """
class A:
    def __getattr__(self, name):
        return 0
    def f(self):
        return self.anything
"""),
    E("non-literal setattr makes the class unknowable", """
class A:
    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
    def f(self):
        return self.whatever
"""),
    E("f-string setattr pattern", """
class A:
    def __init__(self, names):
        for n in names:
            setattr(self, f"{n}_proj", None)
    def f(self):
        return self.q_proj
"""),
    E("unknown external base (quiet by default)", """
from somewhere_else import Base
class A(Base):
    def f(self):
        return self.provided_by_base
"""),
    E("mixin judged by its host", """
class Mixin:
    def f(self):
        return self.x
class Host(Mixin):
    def __init__(self):
        self.x = 1
"""),
    E("abstract base reads what subclasses define", """
from abc import ABC, abstractmethod
class Base(ABC):
    @abstractmethod
    def make(self): ...
    def f(self):
        return self.x
class Leaf(Base):
    def __init__(self):
        self.x = 1
    def make(self):
        return 1
"""),
    E("closures and comprehensions read after construction", """
class A:
    def __init__(self):
        self.x = [1, 2]
        self.cb = lambda: self.x
    def f(self):
        return [v + len(self.x) for v in self.x]
"""),
    E("read inside with suppress(AttributeError)", """
import contextlib
class A:
    def __init__(self, c):
        if c:
            self.x = 1
    def f(self):
        with contextlib.suppress(AttributeError):
            return self.x
"""),
    E("attrs fields and __attrs_post_init__", """
import attr
@attr.s
class A:
    a = attr.ib()
    def __attrs_post_init__(self):
        self.b = self.a
    def f(self):
        return self.a + self.b
"""),
    E("with-as and for targets on self, annotated assignment", """
class W:
    def __init__(self, path):
        with open(path) as self.fh:
            pass
        for self.last in [1]:
            pass
        self.n: int = 0
    def f(self):
        return self.fh, self.n
"""),
    E("a flag that stores hasattr", """
class A:
    def __init__(self, c):
        if c:
            self.proj = 1
        self.has_proj = hasattr(self, "proj")
        if self.has_proj and self.proj > 0:
            self.ok = True
"""),
    E("assignment through a property setter", """
class P:
    def __init__(self, v):
        self.value = v
    @property
    def value(self):
        return self._value
    @value.setter
    def value(self, v):
        self._value = v
    def f(self):
        return self._value
"""),
    E("__del__ guarded with getattr", """
import subprocess
class Runner:
    def __init__(self, cmd):
        self.proc = None
        self.proc = subprocess.Popen(cmd)
    def __del__(self):
        proc = getattr(self, "proc", None)
        if proc is not None:
            proc.kill()
"""),
    E("patchkit suppression comment", """
class A:
    def f(self):
        return self.x  # patchkit: ignore[PK003]
"""),
    E("a subclass fixes the base's mode by a constant argument (super().__init__(use_dsa=True))", """
class Pool:
    def __init__(self, size, use_dsa=False):
        self.kv = [0] * size
        if not use_dsa:
            self.log()
    def log(self):
        return self.size_bytes()
    def size_bytes(self):
        return len(self.kv)
class DsaPool(Pool):
    def __init__(self, size):
        super().__init__(size, use_dsa=True)
        self.index = [0] * size
        self.log()
    def size_bytes(self):
        return len(self.kv) + len(self.index)
"""),
    E("an omitted argument takes its default (helper(None) path never reads)", """
class A:
    def __init__(self):
        self.set_mode()
        self.mode = 1
    def set_mode(self, shot=None):
        if shot is None:
            self.limit = 0
        else:
            self.limit = self.mode + shot
    def f(self):
        return self.limit
"""),
    E("__new__ sets attributes on the instance it creates", """
class A:
    def __new__(cls, *args):
        obj = super().__new__(cls)
        obj.registry = {}
        return obj
    def __init__(self, name):
        self.name = name
    def f(self):
        return self.registry.get(self.name)
"""),
    E("nn.Module.__init__ runs through a helper", """
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        self._setup()
        self.lin = nn.Linear(2, 2)
    def _setup(self):
        super().__init__()
    def forward(self, x):
        return self.lin(x) if self.training else x
"""),
    E("a recursive helper assigns on its base case (a returning call went through it)", """
class A:
    def __init__(self, n):
        self.step(n)
    def step(self, n):
        if n:
            self.step(n - 1)
        else:
            self.x = 1
    def f(self):
        return self.x
"""),
    E("a flag kept from a same-named local after the branch (self.use_y = use_y)", """
class A:
    def __init__(self, cfg):
        use_y = cfg.use_y
        if use_y:
            self.y = 1
        self.use_y = use_y
    def f(self):
        if self.use_y:
            return self.y
        return 0
"""),
    E("a generator expression's element runs later; only its first iterable runs now", """
class A:
    def __init__(self, n):
        self.lazy = (self.scale * i for i in range(n))
        self.scale = 2
"""),
    E("a property read during construction after what it needs is assigned", """
class A:
    def __init__(self):
        self._x = 0
        self.total = self.doubled
    @property
    def doubled(self):
        return self._x * 2
"""),
    E("a class attribute set at module level after the class (Cls.attr = ...)", """
class Registry:
    def names(self):
        return list(self.entries)
Registry.entries = {}
"""),
    E("correlated flag one call up: a private helper called only under the flag", """
class C:
    def __init__(self, use_cache):
        self.use_cache = use_cache
        if use_cache:
            self.cache = {}
    def get(self, k):
        if self.use_cache:
            return self._lookup(k)
        return None
    def _lookup(self, k):
        return self.cache[k]
"""),
    E("an early return on the complementary comparison (n <= 1 against n > 1)", """
class A:
    def __init__(self, tp_size):
        self.tp_size = tp_size
        if self.tp_size > 1:
            self.group = object()
    def gather(self):
        if self.tp_size <= 1:
            return None
        return self.group
"""),
    E("integer facts that exclude each other (n < 2 at the read, n > 1 false on the missing path)", """
class A:
    def __init__(self, n):
        self.n = n
        if self.n > 1:
            self.big = True
        else:
            return
        self.x = 1
    def f(self):
        if self.n < 2:
            return None
        return self.x
"""),
    E("a thread started at the end of __init__", """
import threading
class Poller(threading.Thread):
    def __init__(self, interval):
        super().__init__(daemon=True)
        self.interval = interval
        self.start()
    def run(self):
        print(self.interval)
"""),
    E("a local bound to getattr(self, name, []) that is non-empty implies the attribute", """
class Info:
    def __init__(self):
        self.name = "x"
    def first(self):
        libs = getattr(self, "_lib_names", [])
        if len(libs) == 1:
            return self._lib_names[0]
        if libs:
            return self._lib_names[-1]
        return None
"""),
    E("a read narrowed by isinstance(self, Sub) to the subclass that assigns it", """
class Base:
    def __init__(self):
        self.k = 0
    def parts(self):
        return self.children if isinstance(self, Composite) else [self]
class Composite(Base):
    def __init__(self, children):
        super().__init__()
        self.children = children
"""),
    E("class attributes set through type(self), self.__class__ or a fixture's request.cls", """
class T:
    def setup(self, request):
        request.cls.kind = "a"
        type(self).count = 0
        self.__class__.seen = set()
    def f(self):
        return self.kind, self.count, self.seen
"""),
    E("a function the class body uses as a decorator is not a method", """
class Shrinker:
    def cached(fn):
        def wrapper(self):
            return fn(self)
        wrapper.__name__ = fn.__name__
        return property(wrapper)
    def __init__(self):
        self.n = 1
    @cached
    def double(self):
        return self.n * 2
"""),
    E("an abstract base only declares what its concrete subclasses set", """
from abc import ABC
class Command(ABC):
    TAG: str
    def __init__(self):
        self.pattern = "pyre-" + self.TAG
class Strict(Command):
    TAG = "strict"
"""),
    E("a template base reads what every concrete subclass sets before super().__init__()", """
class Shapes:
    def __init__(self, density):
        self.count = self.num_rows * density
class Circles(Shapes):
    pass
class Small(Circles):
    def __init__(self, density):
        self.num_rows = 2
        super().__init__(density)
class Large(Circles):
    def __init__(self, density):
        self.num_rows = 8
        super().__init__(density)
"""),
    E("a context manager's __exit__ reads what __enter__ set; a test reads what setUp set", """
import time
import unittest
class Timer:
    def __enter__(self):
        self.t0 = time.time()
        return self
    def __exit__(self, *exc):
        self.elapsed = time.time() - self.t0
class T(unittest.TestCase):
    def setUp(self):
        self.db = {}
    def test_empty(self):
        self.assertEqual(self.db, {})
"""),
    # -- Analyzer 2.0 precision families (issue 16): each with a counterpart below
    E('a hasattr/getattr result kept in a local or combined in a boolean guards the read', """
class A:
    def __init__(self, c):
        if c:
            self.cache = {}
    def get(self, k):
        has = hasattr(self, "cache")
        if has:
            return self.cache[k]
    def get2(self, k):
        use = getattr(self, "cache", None) is not None and k > 0
        if use:
            return self.cache[k]
    def get3(self, k):
        ok = k > 0 and hasattr(self, "cache")
        if not ok:
            return None
        return self.cache[k]
"""),
    E('functions whose first parameter is not the instance (JIT kernel, template, missing @staticmethod)', """
import triton
import triton.language as tl
class Kernels:
    def __init__(self):
        self.n = 1
    @triton.jit
    def _kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
        v = x_ptr.dtype
        return out_ptr.shape
    def helper(x):
        return x.shape
    @some_template("code")
    def emit(ctx, out):
        return ctx.buffer
"""),
    E('a base with a try/except fallback definition opens the class', """
try:
    from fastlib import Base
except ImportError:
    class Base:
        pass
class Impl(Base):
    def __init__(self):
        super().__init__()
        self.k = 1
    def f(self):
        return self.handle
"""),
    E('a base from a TYPE_CHECKING stub opens the class', """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from engine import Engine as _Base
else:
    class _Base:
        pass
class EngineMixin(_Base):
    def __init__(self):
        self.k = 1
    def step(self):
        return self.scheduler
"""),
    E('a metaclass that may set attributes opens the class', """
class Meta(type):
    def __call__(cls, *a):
        obj = super().__call__(*a)
        obj.injected = 1
        return obj
class A(metaclass=Meta):
    def __init__(self):
        self.x = 1
    def f(self):
        return self.injected
"""),
    E('a class decorator that may set attributes opens the class', """
def inject(cls):
    cls.__init__ = lambda self: setattr(self, "y", 1)
    return cls
@inject
class A:
    def __init__(self):
        self.x = 1
    def f(self):
        return self.y
"""),
    E("a class decorator of the tree that rebuilds the class with a metaclass opens it (accelerate's input.register)", """
class KeyHandler(type):
    def __new__(mcs, name, bases, attrs):
        new_cls = super().__new__(mcs, name, bases, attrs)
        new_cls.handle_input = lambda self: setattr(self, "current_selection", 1)
        return new_cls
def register(cls):
    return KeyHandler(cls.__name__, cls.__bases__, cls.__dict__.copy())
@register
class Menu:
    def __init__(self):
        self.position = 0
    def select_row(self):
        return self.current_selection
"""),
    E('a class decorator call that spells attribute names provides them (aiofiles\' delegate_to_executor)', """
def delegate_to_executor(*names):
    def cls_builder(cls):
        for n in names:
            setattr(cls, n, lambda self, *a, n=n: getattr(self._file, n)(*a))
        return cls
    return cls_builder
@delegate_to_executor("readline", "close")
class AsyncText:
    def __init__(self, file):
        self._file = file
    async def __anext__(self):
        return await self.readline()
"""),
    E('a type() factory building a subclass with attributes opens the base', """
class Base:
    def __init__(self):
        self.x = 1
    def f(self):
        return self.extra
Sub = type("Sub", (Base,), {"extra": 2})
"""),
    E("an abstract base's annotation-only attribute is a contract", """
from abc import ABC
class Base(ABC):
    name: str
    def describe(self):
        return self.name
"""),
    E("a stdlib base's __init__ sets the attribute (read from its source by path)", """
import textwrap
class W(textwrap.TextWrapper):
    def __init__(self):
        super().__init__(width=10)
    def f(self):
        return self.width
"""),
    E('Base.__init__(self=self, ...) runs the base initialiser', """
class Base:
    def __init__(self, n):
        self.t = n
class Sub(Base):
    def __init__(self):
        Base.__init__(self=self, n=2)
    def f(self):
        return self.t
"""),
    E("an inherited private helper called only by a base __init__ the subclass skips", """
class Pool:
    def __init__(self, dim):
        self.dim = dim
        self._create_buffers()
    def _create_buffers(self):
        self.buf = [0] * self.dim
class NpuPool(Pool):
    def __init__(self, dim):
        self.buf = [1] * dim
    def get(self):
        return self.buf
"""),
    E("a local bound to super().__init__ (argparse's `superinit = super(...).__init__`) runs it", """
class Base:
    def __init__(self, x):
        self.x = x
class Mid(Base):
    def __init__(self):
        superinit = super(Mid, self).__init__
        superinit(3)
    def g(self):
        return self.x
"""),
    E("an unreadable library base's __init__ ran before the read (nn.Linear sets weight)", """
import torch.nn as nn
class QuantizedLinear(nn.Linear):
    def __init__(self, a, b):
        super().__init__(a, b)
        shape = self.weight.shape
        self.weight = nn.Parameter(self.weight.view(shape))
"""),
    E("a class declared under `if TYPE_CHECKING:` is a stub that never runs", """
from typing import TYPE_CHECKING
import torch.nn as nn
if TYPE_CHECKING:
    class Layer(nn.Module):
        def __init__(self, n) -> None: ...
        def forward(self):
            return self.w
"""),
    E("an annotation-only attribute that the subclasses give a value is a contract", """
class DistributionOutput:
    args_dim: dict
    def __init__(self, dim=1):
        self.dim = dim
        self.args_dim = {k: dim * self.args_dim[k] for k in self.args_dim}
class StudentTOutput(DistributionOutput):
    args_dim = {"df": 1, "loc": 1}
"""),
    E("nn.Module's own dunder methods are there", """
import torch.nn as nn
class Upsample(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        for i in range(n):
            self.add_module(f"conv_{i}", nn.Conv2d(4, 4, 3))
    def forward(self, x):
        for i in range(self.n):
            x = self.__getattr__(f"conv_{i}")(x)
        return x
"""),
)

INVALID = (
    E("a class decorator of the tree that returns the class unchanged (a registry) keeps it closed; what it sets is a class attribute (fairseq's register_task)", """
KNOWN = {}
def track(name, dataclass=None):
    def track_cls(cls):
        KNOWN[name] = cls
        cls.__doc__ = (cls.__doc__ or "") + " (tracked)"
        cls.config_class = dataclass
        return cls
    return track_cls
@track("plugin")
class Plugin:
    def __init__(self):
        self.name = "p"
    def run(self):
        return self.client, self.config_class
""", (("PK003", "client"),)),
    E("a subclass of a dataclass whose own __init__ never runs the generated one: the field without a default is never set", """
from dataclasses import dataclass
@dataclass
class Options:
    path: str
    retries: int = 3
    def describe(self):
        return self.path, self.retries
class DefaultOptions(Options):
    def __init__(self):
        self.verbose = False
""", (("PK003", "path"),)),
    E("a private helper that only the base's __init__ calls, skipped by a subclass without super().__init__() (SGLang's NPUMLATokenToKVPool.kv_buffer shape)", """
class Pool:
    def __init__(self, size):
        self.size = size
        self._create_buffers()
    def _create_buffers(self):
        self.kv_buffer = [0] * self.size
    def move(self, i, j):
        self.kv_buffer[i] = self.kv_buffer[j]
class DevicePool(Pool):
    def __init__(self, size):
        self.size = size
        self.k_buffer = [0] * size
""", (("PK003", "kv_buffer"),)),
    E("a subclass reading the base's private name gets its own mangled name", """
class Base:
    def __init__(self):
        self.__token = "t"
class Client(Base):
    def send(self):
        return self.__token
""", (("PK003", "_Client__token"),)),
    E("a property setter run only after construction: two-phase, not never-assigned (tornado's selected_subprotocol)", """
class Proto:
    def __init__(self):
        self.x = 1
    @property
    def sub(self):
        return self._sub
    @sub.setter
    def sub(self, value):
        self._sub = value
    def handshake(self, v):
        self.sub = v
""", (("PK004", "_sub"),)),
    E("hasattr / isinstance on the instance set nothing (timm CrossViT.embed_dim, fixed upstream)", """
import torch.nn as nn
class CrossViT(nn.Module):
    def __init__(self, n, embed_dim):
        super().__init__()
        for i in range(n):
            setattr(self, f"pos_embed_{i}", nn.Parameter(embed_dim[i]))
            if hasattr(self, f"pos_embed_{i}") and isinstance(self, nn.Module):
                print(getattr(self, f"pos_embed_{i}"))
    def reset_classifier(self, num_classes):
        self.head = nn.Linear(self.embed_dim, num_classes)
""", (("PK003", "embed_dim"),)),
    E("a thread started in __init__ before the attribute its run() reads", """
import threading
class Poller(threading.Thread):
    def __init__(self, interval):
        super().__init__(daemon=True)
        self.start()
        self.interval = interval
    def run(self):
        print(self.interval)
""", (("PK002", "interval"),)),
    E("a typo of an assigned name (the hint suggests it)", """
class Trainer:
    def __init__(self):
        self.optimizer = object()
    def step(self):
        return self.optimzer
""", (("PK003", "optimzer"),)),
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
    E("a property read during construction runs its getter, which reads too early", """
class A:
    def __init__(self):
        self.total = self.doubled
        self._x = 0
    @property
    def doubled(self):
        return self._x * 2
""", (("PK002", "_x"),)),
    E("close() reads what only connect() assigns (close on a never-connected client)", """
class Client:
    def __init__(self, url):
        self.url = url
    def connect(self):
        self.sock = object()
    def close(self):
        self.sock.close()
""", (("PK004", "sock"),)),
    E("a closure called during construction reads before the assignment", """
class A:
    def __init__(self):
        def now():
            return self.z
        now()
        self.z = 1
""", (("PK002", "z"),)),
    E("an nn.Module subclass that never runs Module.__init__()", """
import torch
class Net(torch.nn.Module):
    def __init__(self, n):
        self.lin = torch.nn.Linear(n, n)
    def forward(self, x):
        return self.lin(x)
""", (("PK006", "torch.nn.Module"),)),
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
    E("a constant argument is not trusted when the function rebinds the parameter", """
class A:
    def __init__(self):
        self.helper(False)
        self.x = 1
    def helper(self, skip):
        skip = not skip
        if not skip:
            print(self.x)
""", (("PK002", "x"),)),
    E("the field bug: assignment in another class of the file", """
class EagleDraftWorker:
    def __init__(self, server_args):
        self.spec_disable_batch_threshold = server_args.t
class EAGLEWorkerV2:
    def __init__(self, server_args):
        self.server_args = server_args
        self.draft = EagleDraftWorker(server_args)
    def forward_batch_generation(self, batch):
        if len(batch) > self.spec_disable_batch_threshold:
            return None
        return batch
""", (("PK003", "spec_disable_batch_threshold"),)),
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
    E("read before assignment in __init__", """
class A:
    def __init__(self):
        print(self.x)
        self.x = 1
""", (("PK002", "x"),)),
    E("read before assignment through a helper", """
class A:
    def __init__(self):
        self.show()
        self.x = 1
    def show(self):
        print(self.x)
""", (("PK002", "x"),)),
    E("subclass skips super().__init__", """
class Base:
    def __init__(self):
        self.x = 1
class Leaf(Base):
    def __init__(self):
        self.y = 2
    def f(self):
        return self.x + self.y
""", (("PK003", "x"),)),
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
    E("overridden helper no longer assigns", """
class Base:
    def __init__(self):
        self.setup()
    def setup(self):
        self.x = 1
    def f(self):
        return self.x
class Leaf(Base):
    def setup(self):
        pass
""", (("PK003", "x"),)),
    E("mixin read missing in its host", """
class Mixin:
    def f(self):
        return self.x + self.y
class Host(Mixin):
    def __init__(self):
        self.x = 1
""", (("PK003", "y"),)),
    E("annotation without a value is not an assignment", """
class A:
    x: int
    def __init__(self):
        self.y = 1
    def f(self):
        return self.x
""", (("PK003", "x"),)),
    E("__slots__ entry is not an assignment", """
class A:
    __slots__ = ("x", "y")
    def __init__(self):
        self.y = 1
    def f(self):
        return self.x
""", (("PK003", "x"),)),
    E("del un-assigns", """
class A:
    def __init__(self):
        self.x = 1
        del self.x
    def f(self):
        return self.x
""", (("PK001", "x"),)),
    E("dataclass field(init=False) without default", """
from dataclasses import dataclass, field
@dataclass
class A:
    a: int
    b: int = field(init=False)
    def f(self):
        return self.b
""", (("PK003", "b"),)),
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
    E("nn.Module attribute never registered", """
from torch import nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, 1)
    def forward(self, x):
        return self.a(x) + self.b(x)
""", (("PK003", "b"),)),
    E("a read on the path the flag does not cover", """
class A:
    def __init__(self, server_args):
        self.enable_foo = server_args.enable_foo
        if self.enable_foo:
            self.foo = 1
    def f(self):
        return self.foo
""", (("PK001", "foo"),)),
    E("super(Named, self) skips the named class's __init__", """
class Base:
    def __init__(self):
        self.x = 1
class Mid(Base):
    def __init__(self):
        self.m = 2
class Leaf(Mid):
    def __init__(self):
        super(Mid, self).__init__()
    def f(self):
        return self.x + self.m
""", (("PK003", "m"),)),
    E("augmented assignment reads first", """
class C:
    def __init__(self):
        self.count += 1
""", (("PK002", "count"),)),
    E("a dataclass InitVar is not stored", """
from dataclasses import dataclass, InitVar
@dataclass
class D:
    a: int
    scale: InitVar[int]
    def __post_init__(self, scale):
        self.b = self.a * scale
    def f(self):
        return self.scale
""", (("PK003", "scale"),)),
    E("__del__ after a failed __init__", """
import subprocess
class Runner:
    def __init__(self, cmd):
        self.cmd = cmd
        self.log = open("/tmp/log", "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log)
    def __del__(self):
        self.proc.kill()
""", (("PK005", "proc"),)),
    E("typo of an assigned name", """
class A:
    def __init__(self):
        self.config = {}
    def f(self):
        return self.confg
""", (("PK003", "confg"),)),
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
    E('a decorated method whose first parameter is self is still judged', """
import torch
class M:
    def __init__(self):
        self.n = 1
    @torch.no_grad()
    def f(self):
        return self.missing
""", (('PK003', 'missing'),)),
    E('a base bound once is closed: its missing attribute is an error', """
class Base:
    pass
class Impl(Base):
    def __init__(self):
        super().__init__()
        self.k = 1
    def f(self):
        return self.handle
""", (('PK003', 'handle'),)),
    E('ABCMeta adds no attributes: the class stays closed', """
from abc import ABCMeta
class A(metaclass=ABCMeta):
    def __init__(self):
        self.x = 1
    def f(self):
        return self.y
""", (('PK003', 'y'),)),
    E('a concrete subclass that does not fulfil the contract', """
from abc import ABC
class Base(ABC):
    name: str
    def describe(self):
        return self.name
class Impl(Base):
    def __init__(self):
        self.k = 1
""", (('PK003', 'name'),)),
    E('a stdlib base whose __init__ does not set the attribute', """
import textwrap
class W(textwrap.TextWrapper):
    def __init__(self):
        super().__init__(width=10)
    def f(self):
        return self.height
""", (('PK003', 'height'),)),
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
    E("an inherited private helper the subclass does call", """
class Pool:
    def __init__(self, dim):
        self.dim = dim
        self._create_buffers()
    def _create_buffers(self):
        self.buf = [0] * self.dim
class NpuPool(Pool):
    def __init__(self, dim):
        self.buf = [1] * dim
    def reset(self):
        self._create_buffers()
""", (("PK003", "dim"),)),
    E("an annotation-only attribute no subclass gives a value is read before it is set", """
class Sized:
    size: int
    def __init__(self):
        self.half = self.size // 2
""", (("PK002", "size"),)),
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
    E("a mixin method calling a method only its other hosts define (the DataCollatorMixin bug)", """
class CollatorMixin:
    def __call__(self, x, kind):
        if kind == "np":
            return self.numpy_call(x)
        return self.torch_call(x)
class DefaultCollator(CollatorMixin):
    def __init__(self):
        self.pad = 0
    def numpy_call(self, x):
        return x
    def torch_call(self, x):
        return x
class MultipleChoiceCollator(CollatorMixin):
    def __init__(self):
        self.pad = 0
    def torch_call(self, x):
        return x
""", (("PK003", "numpy_call"),)),
)
