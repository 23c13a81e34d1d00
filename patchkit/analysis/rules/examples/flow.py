"""Examples of the construction walk as a whole: code where every read is assigned on every path (helpers, super()
chains, guards, library bases, decorators, descriptors). Each would come out as PK001, PK002 or PK003
if the walk lost track; they belong to no single rule, so the check carries them beside the rules'.

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

from .pk001 import _FASTNLP_SAMPLER

_LADDER = '''
class AutoTS:
    def __init__(self, template):
        if template is not None:
            self.import_template(template, method=%r)
        else:
            self.initial_template = []
    def import_template(self, template, method="add_on"):
        if method.lower() in ["add on", "addon", "add_on"]:
            addon_flag = True
        else:
            addon_flag = False
        if addon_flag:
            self.initial_template = self.initial_template + [template]
        elif method.lower() in ["only", "user_only"]:
            self.initial_template = [template]
        else:
            return ValueError("method must be 'addon' or 'only'")
'''

VALID = (
    E("a local an if/else ladder sets, where the call site's argument decides the ladder: only that arm's value holds (autots' AutoTS.import_template with method='only')",
      _LADDER % "only"),
    E("a decorator's wrapper that calls a method of the instance before the initialiser runs it at entry (diffusers' @register_to_config)", """
import functools
def register_to_config(init):
    @functools.wraps(init)
    def inner_init(self, *args, **kwargs):
        getattr(self, "register_to_config")(**kwargs)
        init(self, *args, **kwargs)
    return inner_init
class ConfigMixin:
    def register_to_config(self, **kwargs):
        self._internal_dict = dict(kwargs)
    @property
    def config(self):
        return self._internal_dict
class Scheduler(ConfigMixin):
    @register_to_config
    def __init__(self, num_train_timesteps=1000):
        self.timesteps = list(range(self.config["num_train_timesteps"]))
"""),
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
    E("a class declared under `if TYPE_CHECKING:` is a stub that never runs", """
from typing import TYPE_CHECKING
import torch.nn as nn
if TYPE_CHECKING:
    class Layer(nn.Module):
        def __init__(self, n) -> None: ...
        def forward(self):
            return self.w
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
    E("a subclass's property setter hands on to its base's with Base.prop.fset(self, v) (qutip's Solver.options)", """
class Solver:
    def __init__(self, options=None):
        self.options = options
    @property
    def options(self):
        return self._options
    @options.setter
    def options(self, new):
        if not hasattr(self, "_options"):
            self._options = {}
        self._options = dict(new or {}, **self._options)
class BRSolver(Solver):
    @property
    def options(self):
        return self._options
    @options.setter
    def options(self, new):
        Solver.options.fset(self, new)
"""),
    E("a class-body constant that nothing rebinds decides the branch (pyglet's WMFSource.decode_audio)", """
class Source:
    decode_audio = True
    def __init__(self):
        if self.decode_audio:
            self._load_audio()
    def _load_audio(self):
        self._stream = 1
    def get(self):
        return self._stream
"""),
    E("a dataclass subclass's generated __init__ sets the fields of an init=False dataclass base (dbt's RuntimeConfig)", """
from dataclasses import dataclass
@dataclass(init=False)
class Profile:
    threads: int
    def __init__(self, threads):
        self.threads = threads
    def describe(self):
        return self.threads
@dataclass
class RuntimeConfig(Profile):
    name: str
"""),
    E("Base.prop.fset finds the setter along Base's MRO (qutip's MCSolver through MultiTrajSolver)", """
class Solver:
    def __init__(self, options=None):
        self.options = options
    @property
    def options(self):
        return self._options
    @options.setter
    def options(self, new):
        self._options = dict(new or {})
class MultiTrajSolver(Solver):
    pass
class MCSolver(MultiTrajSolver):
    @property
    def options(self):
        return self._options
    @options.setter
    def options(self, new):
        MultiTrajSolver.options.fset(self, new)
"""),
)

INVALID = (
    E("the same ladder decided the other way reads what construction has not stored yet",
      _LADDER % "add_on", (("PK002", "initial_template"),)),
    E("an elif the call site decides under an if it does not: other paths took the first arm, so the local is not known after the ladder", """
class AutoTS:
    def __init__(self, template, merge):
        self.import_template(template, merge, method="only")
    def import_template(self, template, merge, method="add_on"):
        if merge:
            addon_flag = True
        elif method.lower() in ["add on", "addon", "add_on"]:
            addon_flag = True
        else:
            addon_flag = False
        if addon_flag:
            self.initial_template = self.initial_template + [template]
        else:
            self.initial_template = [template]
""", (("PK002", "initial_template"),)),
    E("a dict a ladder arm builds and then hands to a call is not known after the ladder (the call may change it)", """
class Setup:
    def __init__(self):
        self.setup(mode="a")
    def tweak(self, o):
        o["merge"] = True
    def setup(self, mode="b"):
        if mode == "a":
            opts = {"merge": False}
            self.tweak(opts)
        else:
            opts = {"merge": True}
        if opts.get("merge"):
            self.items = self.items + [1]
        else:
            self.items = [1]
""", (("PK002", "items"),)),
    E("a ladder local a match capture rebinds is not the ladder's value any more", """
class Store:
    def __init__(self, opts):
        self.load(opts, method="only")
    def load(self, opts, method="add_on"):
        if method == "only":
            flag = False
        else:
            flag = True
        match opts:
            case {"merge": flag}:
                pass
        if flag:
            self.items = self.items + [1]
        else:
            self.items = [1]
""", (("PK002", "items"),)),
    E("after the handler, __init__ reads what the try body stored: that read is the finding (a warning), and a path that swallowed the error builds no object, so later methods read it assigned (fastNLP's BucketedBatchSampler)",
      _FASTNLP_SAMPLER % "        assert len(self.sorted_indices) == len(dataset)", (("PK002", "sorted_indices"),)),
    E("a base setter reached through .fset that reads what nothing assigned yet is walked and judged", """
class Solver:
    def __init__(self, options=None):
        self.options = options
    @property
    def options(self):
        return self._options
    @options.setter
    def options(self, new):
        self._options = dict(new or {}, **self._defaults)
class BRSolver(Solver):
    @property
    def options(self):
        return self._options
    @options.setter
    def options(self, new):
        Solver.options.fset(self, new)
""", (("PK002", "_defaults"),)),
    E("a class-body flag that other code sets is a setting, not a constant: the branch stays open", """
class Source:
    decode_audio = False
    def __init__(self):
        if self.decode_audio:
            self._stream = 1
        else:
            try:
                self._stream = open_stream()
            except OSError:
                pass
    def get(self):
        return self._stream
Source.decode_audio = True
""", (("PK001", "_stream"),)),
    E("a summarised helper that stores an attribute again composes with an entry that set it otherwise (python-can's EtasBus)", """
class BusABC:
    def __init__(self, filters=None):
        self.set_filters(filters)
    @property
    def filters(self):
        return self._filters
    @filters.setter
    def filters(self, value):
        self.set_filters(value)
    def set_filters(self, filters=None):
        self._filters = filters
        self._apply_filters(self._filters)
    def _apply_filters(self, filters):
        pass
class EtasBus(BusABC):
    def __init__(self, filters=None):
        super().__init__()
        self._oci = None
        self.filters = filters
    def _apply_filters(self, filters):
        if self._oci:
            self._oci = None
        self._oci = [filters]
    def close(self):
        return self.handle
""", (("PK002", "_oci"), ("PK003", "handle"))),
)
