"""Examples of the rule PK003 never-assigned (its unit: ``patchkit/analysis/rules/pk003_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

def _cooperative_chain(links: int, broken: int = -1) -> str:
    """``links`` store classes whose initialisers chain with ``super().__init__(db)``, the root
    storing ``db_pool``, one class mixing them all (synapse's ``DataStore``); ``broken``: the link
    that forgets the super call."""
    out = ["class SQLBaseStore:", "    def __init__(self, db):", "        self.db_pool = db", ""]
    for i in range(links):
        call = "        pass" if i == broken else "        super().__init__(db)"
        out += [f"class Store{i}(SQLBaseStore):", "    def __init__(self, db):", call,
                f"        self.cache{i} = {{}}", ""]
    out += ["class DataStore(" + ", ".join(f"Store{i}" for i in range(links)) + "):",
            "    def count(self):", "        return self.db_pool.count()", ""]
    return "\n".join(out)


# sources shared by an example and its counterpart (the head and tail of both)
_YT_LINE_PLOT_HEAD = """
class PlotContainer:
    def __init__(self, data_source, figure_size):
        self.data_source = data_source
        self.figure_size = figure_size


class LinePlot(PlotContainer):
    def __init__(self, ds, fields, figure_size=None):
"""

_BIOPYTHON_SEQUENCE_ITERATOR_HEAD = """
class SequenceIterator:
    def __init__(self, source):
        self.stream = open(source)
        self.source = source

    def __exit__(self, *exc):
        try:
            stream = self.stream
        except AttributeError:
"""

_BIOPYTHON_SEQUENCE_ITERATOR_TAIL = """
        if stream is not self.source:
            self.stream.close()


class PdbAtomIterator(SequenceIterator):
    def __init__(self, handle):
        self.handle = handle
"""

_METAFLOW_MESSAGE_HEAD = """
class Base:
    def __init__(self):
        self._payload = None
        self._headers = []


class Message(Base):
    def __new__(cls, orig):
        res = super().__new__(cls)"""
_METAFLOW_MESSAGE_TAIL = """
        return res

    def __init__(self, orig):
        self._headers = self._repair_headers()

    def _repair_headers(self):
        return [(k, v) for k, v in self._headers]

    def payload(self):
        return self._payload
"""

_XINFERENCE_LAYER_HEAD = """
class Layer:
    def __init__(self, reverse=False):
        self.reverse = reverse

    def forward(self, x):
        if not self.reverse:
"""

_REPORTLAB_KEEP_TOGETHER_HEAD = """
class KeepTogether:
    def __init__(self, flowables):
        if not hasattr(KeepTogether, "Null"):
"""

_MITMPROXY_WAKEUP_HEAD = """
import dataclasses
class Command:
    def __init__(self):
        raise NotImplementedError("only its dataclasses are built")
    def __repr__(self):
        return repr(self.reply)
"""

_REPORTLAB_AXIS_HEAD = """
class ValueAxis:
    def __init__(self):
        self.valueStep = None
class TimeValueAxis:
    def __init__(self):
        self._saved = {}
    def step(self):
        return self.valueStep
class XTimeValueAxis(TimeValueAxis, ValueAxis):
    def __init__(self):
        ValueAxis.__init__(self)
        TimeValueAxis.__init__(self)
"""

# sources shared by an example and its counterpart (session 18)
_JINJA_EXTENSION = """
def with_metaclass(meta, *bases):
    class metaclass(type):
        def __new__(cls, name, this_bases, d):
            return meta(name, bases, d)
    return type.__new__(metaclass, "temporary_class", (), {})


class ExtensionRegistry(type):
    def __new__(cls, name, bases, d):
        rv = type.__new__(cls, name, bases, d)
        rv.identifier = rv.__module__ + "." + rv.__name__
        return rv


class Extension(with_metaclass(ExtensionRegistry, object)):
    def __init__(self, environment):
        self.environment = environment

    def attr(self, name):
        return (%s)
"""

_HG_WORKINGFILECTX = """
class WorkingFileCtx:
    def __init__(self, path):
        self._path = path

    def _changeid(self):
        attrs = vars(self)
        if "_changeid" in attrs:
            return 1
        elif "_descendantrev" in attrs:
            %s
        return None
"""

_MSVS_USER_GENERATOR = """
class UserGenerator:
    def __init__(self, dspfile):
        self.dspfile = dspfile

    def user_header(self):
        return self.env, self.dspabs, self.dspfile


class GenerateV7User(UserGenerator):
    pass


class GenerateV10User(UserGenerator):
    pass


class DSPGenerator:
    def __init__(self, dspfile, env):
        self.env = env
        self.dspabs = dspfile


class GenerateV7DSP(DSPGenerator, GenerateV7User):
    def __init__(self, dspfile, env):
        DSPGenerator.__init__(self, dspfile, env)
        GenerateV7User.__init__(self, dspfile)
"""

_MXNET_RNN_CELLS = """
class BaseRNNCell:
    def __init__(self, prefix):
        self._prefix = prefix

    @property
    def _gate_names(self):
        return ()

    def unpack_weights(self, args):
        if not self._gate_names:
            return args
        return args[self._num_hidden]


class LSTMCell(BaseRNNCell):
    def __init__(self, num_hidden):
        super().__init__("lstm_")
        self._num_hidden = num_hidden

    @property
    def _gate_names(self):
        return ("_i", "_f")


class DropoutCell(BaseRNNCell):
    def __init__(self, dropout):
        super().__init__("dropout_")
        self.dropout = dropout
"""


_CYTHON_SETUP = """
class Transform:
    def __init__(self):
        self.setup()
    def setup(self):
        self.env_stack = []
    def current_env(self):
        return self.env_stack[-1]


class AnalyseDeclarations(Transform):
    def setup(self):
        self.seen_vars_stack = []
        super_class = super()
"""

_ASYNC_TRAINER = """
import abc
class StandardTrainer(metaclass=abc.ABCMeta):
    def __init__(self, ds):
        self._train_ds = ds
    @abc.abstractmethod
    def train_step(self, it):
        pass
class StandardEvaluator(metaclass=abc.ABCMeta):
    def __init__(self, ds):
        self._eval_ds = ds
class _AsyncTrainer(StandardTrainer, StandardEvaluator):
%s    def join(self):
        return self._eval_ds
"""

_OBSPY_BLOCKETTE = """
class Field:
    def __init__(self, name):
        self.attribute_name = name
    def parse(self, blockette, data):
        setattr(blockette, %s, data.pop(0))
class Blockette:
    fields = []
    def __init__(self):
        self.debug = False
    def parse_seed(self, data):
        for field in self.fields:
            field.parse(self, data)
class Blockette48(Blockette):
    fields = [Field("sensitivity_gain")]
    def get_resp(self):
        return self.sensitivity_gain
"""


_DBT_CONTEXT = """
class ContextMeta(type):
    def __new__(mcls, name, bases, dct):
        members = {}
        new_dct = {}
        for key, value in dct.items():
            new_dct[key] = value
        new_dct["_context_members_"] = members
        return type.__new__(mcls, name, bases, new_dct)
class BaseContext(metaclass=ContextMeta):
    def __init__(self, cli_vars):
        self._ctx = {}
    def to_dict(self):
        return dict(self.%s)
"""

_MDA_TOPOLOGY = """
transplants = {}
class Atom:
    def __init__(self, ix):
        self.ix = ix
class Tempfactors:
    def __init__(self, values):
        self.values = values
    def bfactor(self):
        return self.values[self.ix]
%s
"""

_ASE_CACHE = """
class _CacheTemplate:
    def __init__(self, directory):
        self.directory = directory
    def filename(self, key):
        return self.directory + key + self.backend.extension
class JSONCache(_CacheTemplate):
    backend = object()
%s"""

# numpy's distutils CCompilerOpt: a mixin's reads that a sibling mixin sets by computed name (session 25)
_HOST_SETATTR = """
class _Config:
    def __init__(self):
        self.conf_nocache = False
    def conf_features(self):
        return {"x86": self.cc_on_x86, "arm": self.cc_on_arm}
class _CCompiler:
    def __init__(self, detected):
        for attr, value in detected.items():
            %s
class CCompilerOpt(_Config, _CCompiler):
    def __init__(self, detected):
        _Config.__init__(self)
        _CCompiler.__init__(self, detected)
"""

# diffusers' ConfigMixin: a __getattr__ that serves the registered configuration, nothing else (session 25)
_CONFIG_GETATTR = """
class ConfigMixin:
    def register_to_config(self, **kwargs):
        self._internal_dict = dict(kwargs)
    def __getattr__(self, name):
        is_in_config = "_internal_dict" in self.__dict__ and name in self.__dict__["_internal_dict"]
        if is_in_config and name not in self.__dict__:
            return self._internal_dict[name]
        raise AttributeError(name)
class Processor(ConfigMixin):
    def __init__(self, resolution=384, do_resize=True):
        self.register_to_config(resolution=resolution, do_resize=do_resize, vae_latent_channels=4)
    def process(self, image):
        if self.do_resize and self.vae_latent_channels:
            image = %s
        return image
"""

#: vispy 0.4.0's camera base: a computed store bounded by a class-level list
_CAMERA_BASE = """
class BaseCamera:
    _state_props = ()
    def __init__(self):
        self._center = None
    def set_state(self, state=None, **kwargs):
        d = dict(state or {}, **kwargs)
        for key, val in d.items():
            if key not in self._state_props:
                raise KeyError(key)
            setattr(self, key, val)
"""

_TWEEPY_PARSE = '''
class Model:
    def __init__(self, api=None):
        self._api = api

class BoundingBox(Model):
    @classmethod
    def parse(cls, api, json):
        result = %s(api)
        for k, v in json.items():
            setattr(result, %s, v)
        return result

    def origin(self):
        return self.coordinates[0][0]
'''

VALID = (
    E("under a base the analyzer cannot read, a public name over the class's own private one is the base's API (a property over `_name`), and so is one that differs by a letter substitution or at an end, or is the same name in another style (mmengine's METAINFO and metainfo, pycocotools' getAnnIds and get_ann_ids; nearname.py)", """
from not_installed_framework import Layer
class Scaler(Layer):
    def __init__(self, name, model_dim):
        super().__init__()
        self._name = name
        self.model_dim = model_dim
    def describe(self):
        return self.name, self.model_dir, self.model_dims, self.conv2, self.modelDim, self.MODEL_DIM
    def conv1(self):
        return 1
"""),
    E("a classmethod factory stores computed names on the instance it builds (tweepy's models: `result = cls(api); setattr(result, k, v)`), so its instances are open", _TWEEPY_PARSE % ("cls", "k")),
    E("the same factory building its class by name (tweepy's `lst = List(api)`)", _TWEEPY_PARSE % ("BoundingBox", "k")),
    E("a mixin's read that its only host may set by computed name (numpy's _Config inside CCompilerOpt, whose _CCompiler sets every cc_on_* flag with setattr)",
      _HOST_SETATTR % "setattr(self, attr, value)"),
    E("a __getattr__ that serves the registered configuration answers for the constructor's parameters and the registered keywords",
      _CONFIG_GETATTR % "image[: self.resolution]"),
    E("setattr(Cls, f'_{name}', impl) in the class's module gives it those names (torch's SymNode._gt, session 24)", """
class SymNode:
    def __init__(self, expr):
        self.expr = expr
    def gt(self, other):
        return self._gt(other)
def _make_node_magic(method, impl):
    setattr(SymNode, f"_{method}", impl)
for _m in ("gt", "lt"):
    _make_node_magic(_m, lambda self, other: other)
"""),
    E("__new__ stores on the object it builds from cls and returns (torch's ShardedTensor._metadata)", """
def make_wrapper_subclass(cls, data):
    return object.__new__(cls)
class Sharded:
    def __new__(cls, data):
        r = make_wrapper_subclass(cls, data)
        r._metadata = data
        return r
    def metadata(self):
        return self._metadata
"""),
    E("issubclass(ThisClass, dict) when no class of the MRO is a dict: dead (swagger-codegen's to_dict)", """
class KnativeStatus(object):
    def __init__(self, conditions=None):
        self._conditions = conditions
    def to_dict(self):
        result = {}
        if issubclass(KnativeStatus, dict):
            for key, value in self.items():
                result[key] = value
        return result
"""),
    E("@dataclass puts __dataclass_fields__ on the class", """
from dataclasses import dataclass
@dataclass(frozen=True)
class Query:
    n: int
    def names(self):
        return list(self.__dataclass_fields__)
"""),
    E("a metaclass of the tree builds the class from a new namespace it fills (dbt's ContextMeta: `new_dct[\"_context_members_\"] = ...` then `type.__new__(mcls, name, bases, new_dct)`)", _DBT_CONTEXT % "_context_members_"),
    E("a method the class body hands to other code as a function runs bound to other objects (MDAnalysis's topology attributes: `transplants[Atom].append((\"bfactor\", property(bfactor)))`)", _MDA_TOPOLOGY % '    transplants.setdefault(Atom, []).append(("bfactor", property(bfactor)))'),
    E("a base method hands self to a helper that stores computed names on what it is handed (obspy's SEED blockettes: `field.parse_seed(self, data)` runs `setattr(blockette, self.attribute_name, value)`)", _OBSPY_BLOCKETTE % "self.attribute_name"),
    E("a template base that every subclass of the module completes with a class attribute (ase's _MultiFileCacheTemplate.backend)", _ASE_CACHE % "class ULMCache(_CacheTemplate):\n    backend = object()\n"),
    E("ABCMeta refuses to instantiate a class that leaves an abstract method unimplemented: what it reads is its concrete subclasses' business (tf-models' _AsyncTrainer)", _ASYNC_TRAINER % ""),
    E("a subclass's class attribute hides a base's __slots__ entry: the instance reads the class value (bentoml's JSON._mime_type)", """
class IODescriptor:
    __slots__ = ("_mime_type", "descriptor_id")
    def mime(self):
        return self._mime_type
class JSON(IODescriptor):
    _mime_type = "application/json"
    def __init__(self):
        self.descriptor_id = None
    def spec(self):
        return {self._mime_type: self.descriptor_id}
"""),
    E("a cooperative chain of 20 initialisers, each calling `super().__init__(db)`: the chain is followed to the root however long (synapse's DataStore mixes 40+ stores)", _cooperative_chain(20)),
    E("a property of the base that returns a constant (`_gate_names`: `()`) decides the guard `if not self._gate_names: return` for subclasses that keep it, so the read after it never runs on them (mxnet's DropoutCell)", _MXNET_RNN_CELLS),
    E("`attrs = vars(self)` then `\"x\" in attrs` guards the read of x as `hasattr` would (mercurial's workingfilectx._descendantrev)", _HG_WORKINGFILECTX % "return self._descendantrev"),
    E("a mixin by use through a chain of never-built subclasses: every host (a class with two bases) provides what it reads (SCons' _UserGenerator)", _MSVS_USER_GENERATOR + """

class GenerateV10DSP(DSPGenerator, GenerateV10User):
    def __init__(self, dspfile, env):
        DSPGenerator.__init__(self, dspfile, env)
        GenerateV10User.__init__(self, dspfile)
"""),
    E("a metaclass given through a `with_metaclass(Meta, object)` base sets the class attribute in its `__new__` (jinja2's Extension.identifier, vendored in nuitka)", _JINJA_EXTENSION % "self.identifier, name"),
    E("a classmethod initialiser handed the instance (`self._initialize_instance(self, ...)`, and `cls._initialize_instance(obj, ...)` after `obj = cls.__new__(cls)`) stores on it and runs the base initialiser through `super(Cls, obj)` (yt's LinePlot)", _YT_LINE_PLOT_HEAD + """        self.lines = []
        self._initialize_instance(self, ds, fields, figure_size)
        self._setup_plots()

    @classmethod
    def _initialize_instance(cls, obj, ds, fields, figure_size):
        obj._x_unit = None
        obj.fields = fields
        super(LinePlot, obj).__init__(ds, figure_size=figure_size)

    @classmethod
    def from_profile(cls, ds, fields):
        obj = cls.__new__(cls)
        obj.lines = []
        cls._initialize_instance(obj, ds, fields, None)
        return obj

    def _setup_plots(self):
        return self.figure_size, self._x_unit, self.fields, self.data_source, self.lines
"""),
    E("`try: x = self.stream / except AttributeError: return` guards what follows, and what is assigned with it (biopython's SequenceIterator.__exit__)", _BIOPYTHON_SEQUENCE_ITERATOR_HEAD + """            return""" + _BIOPYTHON_SEQUENCE_ITERATOR_TAIL),
    E("a subclass that skips the base __init__ but binds the mode the read tests to another constant (lmdeploy's Qwen3_5MtpDecoderLayer)", """
class DecoderLayer:
    def __init__(self, layer_type):
        self.layer_type = layer_type
        if layer_type == "linear_attention":
            self.linear_attn = object()
        else:
            self.self_attn = object()

    def forward(self, x):
        if self.layer_type == "linear_attention":
            return self.linear_attn(x)
        return self.self_attn(x)


class MtpLayer(DecoderLayer):
    def __init__(self):
        self.layer_type = "full_attention"
        self.self_attn = object()
"""),
    E("a read under a test of a class constant each subclass binds: dead for the classes that bind it the other way (metaflow's MetaflowObject._NAME)", """
class MetaflowObject:
    _NAME = "base"

    def __init__(self, pathspec):
        self.pathspec = pathspec

    def describe(self):
        if self._NAME == "task":
            return self.metadata
        return self.pathspec


class Flow(MetaflowObject):
    _NAME = "flow"


class Task(MetaflowObject):
    _NAME = "task"

    def __init__(self, pathspec):
        super().__init__(pathspec)
        self.metadata = {}
"""),
    E("a __new__ that fills the new instance from another object's attributes (importlib_metadata's Message, vendored by metaflow)", _METAFLOW_MESSAGE_HEAD + """
        vars(res).update(vars(orig))""" + _METAFLOW_MESSAGE_TAIL),
    E("a read after an if whose every branch returns never runs (xinference's vendored TransformerCouplingLayer)", _XINFERENCE_LAYER_HEAD + """            return x
        else:
            return -x
        return x * self.tail_bound
"""),
    E("__init__ = partialmethod(Base.__init__, flag=True) runs the base's initialiser (modelscope's unifold)", """
from functools import partialmethod
class TriangleMultiplication:
    def __init__(self, d, outgoing=True):
        self.outgoing = outgoing
    def forward(self, z):
        return z if self.outgoing else None
class TriangleMultiplicationOutgoing(TriangleMultiplication):
    __init__ = partialmethod(TriangleMultiplication.__init__, outgoing=True)
"""),
    E("a local bound once to None guards dead code (modelscope's MaskDINODecoder)", """
class Decoder:
    def __init__(self, dim):
        self.dim = dim
    def forward(self, x):
        mask_dict = None
        out = x * self.dim
        if mask_dict is not None:
            out = self.dn_post_process(out, mask_dict)
        return out
"""),
    E("the instance handed to a function outside the tree, which may set anything on it", """
from somelib import configure
class A:
    def __init__(self):
        configure(self)
    def f(self):
        return self.x
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
    E("a decorator class of the tree whose __call__ hands the class to an outside base's __call__ opens it (namex's export)", """
import namex
class api_export(namex.export):
    def __call__(self, symbol):
        return super().__call__(symbol)
class Base:
    def __init__(self):
        self.t = 1
@api_export("pkg.Sub")
class Sub(Base):
    def __init__(self):
        self.k = 2
    def f(self):
        return self.t
"""),
    E("setattr(self, key, v) after `if key not in self.<list>: raise` stores the names of that class-level list: reads of them are not reported", _CAMERA_BASE + """class PerspectiveCamera(BaseCamera):
    _state_props = BaseCamera._state_props + ('scale_factor', 'fov')
    def zoom(self, s):
        return self.scale_factor * s
"""),
    E("a setattr guarded by a list the class body does not spell out (an instance attribute) keeps the class dynamic", """
class Settings:
    def __init__(self, **allowed):
        self._allowed = set(allowed)
    def update(self, **kw):
        for key, val in kw.items():
            if key not in self._allowed:
                raise KeyError(key)
            setattr(self, key, val)
    def show(self):
        return self.anything
"""),
    E('a type() factory building a subclass with attributes opens the base', """
class Base:
    def __init__(self):
        self.x = 1
    def f(self):
        return self.extra
Sub = type("Sub", (Base,), {"extra": 2})
"""),
    E("Cls.attr = ... in one of the class's own methods is a class attribute (reportlab's KeepTogether)", _REPORTLAB_KEEP_TOGETHER_HEAD + """            from os import path as Null
            KeepTogether.Null = Null
        self._content = flowables or [self.Null]
    def split(self):
        return self.Null
"""),
    E("a dataclass's generated __repr__ hides the base's (mitmproxy's Wakeup)", _MITMPROXY_WAKEUP_HEAD + """@dataclasses.dataclass
class Wakeup(Command):
    when: float
"""),
    E("a base-less class only mixed into hosts with other bases, never built alone (reportlab's TimeValueAxis)", _REPORTLAB_AXIS_HEAD + """"""),
    E("a class-level property (``@classproperty def name(cls)``) reads the class, which has a __name__ (airflow's deadline references)", """
class classproperty:
    def __init__(self, method):
        self.method = method
    def __get__(self, instance, cls=None):
        return self.method(cls)
class Reference:
    def __init__(self, when):
        self.when = when
    @classproperty
    def reference_name(cls):
        return cls.__name__
"""),
    E("what torch's Optimizer gives its instances is known without torch installed", """
import torch
class AcceleratedOptimizer(torch.optim.Optimizer):
    def __init__(self, optimizer):
        super().__init__(optimizer.param_groups, {})
        self.optimizer = optimizer
        self.device_placement = True
    def state_dict(self):
        return self.optimizer.state_dict() if self.device_placement else self.param_groups
"""),
    E("an override that chains through a local bound to super() runs the base's method, which stores the attribute (Cython's AnalyseDeclarationsTransform)", _CYTHON_SETUP + """
        return super_class.setup()
"""),
)

INVALID = (
    E("a read that misspells a name the class defines is reported even under a base the analyzer cannot read: no base provides a near-twin of a subclass's own name (nearname.py)", """
from not_installed_framework import Layer
class Scaler(Layer):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
    def call(self, x):
        return x * self.hiden_size
""", (("PK003", "hiden_size"),)),
    E("the same factory storing one literal name: the read of another is still never assigned (counterpart of tweepy's models)", _TWEEPY_PARSE % ("cls", "'bbox'"), (("PK003", "coordinates"),)),
    E("setattr(self, key, v) after `if key not in self.<list>: raise` stores only the names of that class-level list (vispy 0.4.0's BaseCamera.set_state: FlyCamera still lacks the _distance only its sibling sets)", _CAMERA_BASE + """class FlyCamera(BaseCamera):
    _state_props = BaseCamera._state_props + ('scale_factor', 'fov')
    def wheel(self, s):
        return self._distance * s
""", (("PK003", "_distance"),)),
    E("a base from a module imported for type checkers and again at run time under a try whose fallback is None is the real one (aiohttp 3.13.3's ClientConnectorCertificateError, which skips ClientConnectorError.__init__)", """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import ssl
else:
    try:
        import ssl
    except ImportError:
        ssl = None
class ClientConnectorError(OSError):
    def __init__(self, os_error):
        self._os_error = os_error
    @property
    def os_error(self):
        return self._os_error
class ClientConnectorCertificateError(ClientConnectorError, ssl.CertificateError):
    def __init__(self, certificate_error):
        self._certificate_error = certificate_error
""", (("PK003", "_os_error"),)),
    E("a decorator class of the tree whose __call__ registers the class and returns it keeps it closed (keras 3.11.3's @keras_export on the legacy Iterator, which skips PyDataset.__init__)", """
REGISTRY = {}
class keras_export:
    def __init__(self, path):
        self.path = path
    def __call__(self, symbol):
        REGISTRY[self.path] = symbol
        return symbol
class PyDataset:
    def __init__(self, workers=1):
        self._workers = workers
    @property
    def workers(self):
        return self._workers
@keras_export("keras.preprocessing.image.Iterator")
class Iterator(PyDataset):
    def __init__(self, n):
        self.n = n
""", (("PK003", "_workers"),)),
    E("the same mixin when no class of its host sets the flags at all",
      _HOST_SETATTR % "print(attr, value)", (("PK003", "cc_on_x86"), ("PK003", "cc_on_arm"))),
    E("a config-serving __getattr__ answers for configuration keys only: a method that exists nowhere still raises (diffusers 0.35.2's VisualClozeProcessor.height)",
      _CONFIG_GETATTR % "self.height(image, self.resolution)", (("PK003", "height"),)),
    E("a stateless class never built but handed around as a value reads its run-time host's attribute (ngboost's score mixins): a warning, still PK003", """
class NormalLogScore:
    def score(self, y):
        return (self.loc - y) ** 2
class Normal:
    scores = [NormalLogScore]
    def __init__(self, params):
        self.loc = params[0]
    @classmethod
    def implementation(cls, score):
        return next(s for s in cls.scores if issubclass(s, score))
def manifold(score, dist):
    class Manifold(dist.implementation(score), dist):
        pass
    return Manifold
""", (("PK003", "loc"),)),
    E("an attribute no code stores on self, set on the object from outside (opencompass's evaluator._out_dir): a warning, still PK003", """
class BaseEvaluator:
    def __init__(self, k=1):
        self.k = k
    @property
    def out_dir(self):
        return self._out_dir
def run(evaluator_type, cfg, path):
    evaluator = evaluator_type(**cfg)
    evaluator._out_dir = path
    return evaluator
""", (("PK003", "_out_dir"),)),
    E("a skipped base __init__ whose attribute a public setter also stores (paddle's Callback.set_model): a warning, still PK003", """
class Callback:
    def __init__(self):
        self.model = None
    def set_model(self, model):
        self.model = model
    def on_epoch_end(self):
        return self.model.step()
class LRScheduler(Callback):
    def __init__(self, by_step=True):
        self.by_step = by_step
""", (("PK003", "model"),)),
    E("a name that metaclass never puts in the namespace (counterpart of dbt's ContextMeta)", _DBT_CONTEXT % "_context_attrs_", (("PK003", "_context_attrs_"),)),
    E("a property of the class itself reads what the class never sets (counterpart of MDAnalysis's transplanted methods)", _MDA_TOPOLOGY % '    bfactor_value = property(bfactor)', (("PK003", "ix"),)),
    E("self handed to a helper that stores only a literal name: the class stays closed (counterpart of obspy's blockettes)", _OBSPY_BLOCKETTE % '"raw"', (("PK003", "sensitivity_gain"),)),
    E("a template base one of whose subclasses never sets what it reads (counterpart of ase's _MultiFileCacheTemplate)", _ASE_CACHE % "class PlainCache(_CacheTemplate):\n    pass\n", (("PK003", "backend"),)),
    E("the same class with the abstract method implemented can be built, and StandardEvaluator.__init__ never runs (counterpart of tf-models' _AsyncTrainer)",
      _ASYNC_TRAINER % "    def train_step(self, it):\n        pass\n", (("PK003", "_eval_ds"),)),
    E("a subclass's slot hides a base's class attribute: nothing stores it on the instance (counterpart of bentoml's JSON)", """
class Plain:
    kind = "base"
class Slotted(Plain):
    __slots__ = ("kind", "n")
    def __init__(self):
        self.n = 1
    def use(self):
        return self.kind
""", (("PK003", "kind"),)),
    E("the same override calling another method through the alias: the base's setup never runs (counterpart of Cython's AnalyseDeclarationsTransform)", _CYTHON_SETUP + """
        return super_class.__init__
""", (("PK003", "env_stack"),)),
    E("the same chain with one link that forgets `super().__init__`: the links after it in the MRO, the root among them, never run (counterpart of synapse's DataStore)", _cooperative_chain(20, broken=7), (("PK003", "db_pool"),)),
    E("the same guard on a subclass that overrides the property with gate names and never sets what follows (counterpart of mxnet's DropoutCell)", _MXNET_RNN_CELLS + """

class GRUCell(BaseRNNCell):
    def __init__(self, num_hidden):
        super().__init__("gru_")

    @property
    def _gate_names(self):
        return ("_r", "_z")
""", (("PK003", "_num_hidden"),)),
    E("the same `vars(self)` guard, a read of another attribute under it (counterpart of mercurial's workingfilectx)", _HG_WORKINGFILECTX % "return self._descendant", (("PK003", "_descendant"),)),
    E("the same mixin chain, one host that lacks what it reads (counterpart of SCons' _UserGenerator)", _MSVS_USER_GENERATOR + """

class Settings:
    def __init__(self, env):
        self.env = env


class GenerateV10DSP(Settings, GenerateV10User):
    def __init__(self, dspfile, env):
        Settings.__init__(self, env)
        GenerateV10User.__init__(self, dspfile)
""", (("PK003", "dspabs"),)),
    E("the same `with_metaclass` base, a name the metaclass does not set (counterpart of jinja2's Extension.identifier)", _JINJA_EXTENSION % "self.identifer, name", (("PK003", "identifer"),)),
    E("the same classmethod initialiser, one attribute it never stores (the counterpart of yt's LinePlot)", _YT_LINE_PLOT_HEAD + """        self._initialize_instance(self, ds, fields, figure_size)

    @classmethod
    def _initialize_instance(cls, obj, ds, fields, figure_size):
        obj.fields = fields
        super(LinePlot, obj).__init__(ds, figure_size=figure_size)

    def plot(self):
        return self.figure_size, self.fields, self._x_units
""", (("PK003", "_x_units"),)),
    E("the same read on a branch that does run is still reported (counterpart of the dead-code example)", _XINFERENCE_LAYER_HEAD + """            x = x * self.tail_bound
        else:
            return -x
        return x
""", (("PK003", "tail_bound"),)),
    E("the same __new__ without the vars() copy: the skipped base __init__ is reported (counterpart)", "\n" + _METAFLOW_MESSAGE_HEAD + _METAFLOW_MESSAGE_TAIL, (("PK002", "_headers"), ("PK003", "_payload"))),
    E("the same try whose handler falls through guards nothing after it", _BIOPYTHON_SEQUENCE_ITERATOR_HEAD + """            stream = None""" + _BIOPYTHON_SEQUENCE_ITERATOR_TAIL, (("PK003", "source"), ("PK003", "stream"))),
    E("a functional namedtuple / NamedTuple base gives its fields as class-level names (dagster's StaleCause); a name it lacks is still missing", """
from typing import NamedTuple
from collections import namedtuple


class StaleCause(NamedTuple("_StaleCause", [("key", str), ("category", str), ("reason", str)])):
    def __new__(cls, key, category, reason):
        return super(StaleCause, cls).__new__(cls, key=key, category=category, reason=reason)

    def describe(self):
        return f"{self.key}: {self.reason} ({self.category})"


class Point(namedtuple("_Point", "x y")):
    def norm(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5


class Pair(namedtuple("_Pair", ["a", "b"])):
    def total(self):
        return self.a + self.b + self.c
""", (("PK003", "c"),)),
    E("six.with_metaclass(M, Base) as the base list: Base is the base (pyglet's BaseWindow)", """
import six

class Meta(type):
    pass

class Base:
    def __init__(self):
        self.t = 1

    def get(self):
        return self.t

class Sub(six.with_metaclass(Meta, Base)):
    def __init__(self):
        self.u = 2
""", (("PK003", "t"),)),
    E("an instance property reads the instance, which has no __name__ (the classproperty example's counterpart)", """
class Reference:
    def __init__(self, when):
        self.when = when
    @property
    def reference_name(self):
        return self.__name__
""", (("PK003", "__name__"),)),
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
    E("a subclass reading the base's private name gets its own mangled name (reported as written)", """
class Base:
    def __init__(self):
        self.__token = "t"
class Client(Base):
    def send(self):
        return self.__token
""", (("PK003", "__token"),)),
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
    E("a typo of an assigned name (the hint suggests it)", """
class Trainer:
    def __init__(self):
        self.optimizer = object()
    def step(self):
        return self.optimzer
""", (("PK003", "optimzer"),)),
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
    E("dataclass field(init=False) without default", """
from dataclasses import dataclass, field
@dataclass
class A:
    a: int
    b: int = field(init=False)
    def f(self):
        return self.b
""", (("PK003", "b"),)),
    E("nn.Module attribute never registered", """
from torch import nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, 1)
    def forward(self, x):
        return self.a(x) + self.b(x)
""", (("PK003", "b"),)),
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
    E("typo of an assigned name", """
class A:
    def __init__(self):
        self.config = {}
    def f(self):
        return self.confg
""", (("PK003", "confg"),)),
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
    E("Cls.attr = ... for one name does not provide another (the counterpart of KeepTogether)", _REPORTLAB_KEEP_TOGETHER_HEAD + """            KeepTogether.Null = object
        self._content = flowables
    def split(self):
        return self.FrameBreak
""", (("PK003", "FrameBreak"),)),
    E("with repr=False the base's __repr__ is the dataclass's, and it reads what nothing assigns", _MITMPROXY_WAKEUP_HEAD + """@dataclasses.dataclass(repr=False)
class Wakeup(Command):
    when: float
""", (("PK003", "reply"),)),
    E("a dataclass subclass's generated __init__ never runs the base's: the base's attribute is missing", """
import dataclasses
class Base:
    def __init__(self):
        self.x = 1
    def get(self):
        return self.x
@dataclasses.dataclass
class D(Base):
    y: int
""", (("PK003", "x"),)),
    E("a base-less class that is also built on its own is no mixin: its read is judged", _REPORTLAB_AXIS_HEAD + """def make():
    return TimeValueAxis()
""", (("PK003", "valueStep"),)),
    E("a mixin by use whose read one host lacks is still judged (matplotlib's _AnnotationBase.get_size)", """
class Text:
    def __init__(self):
        self.size = 1
    def get_size(self):
        return self.size
class Artist:
    def __init__(self):
        self.visible = True
class AnnotationBase:
    def __init__(self, xy):
        self.xy = xy
    def offset(self):
        return self.get_size()
class Annotation(Text, AnnotationBase):
    def __init__(self, xy):
        Text.__init__(self)
        AnnotationBase.__init__(self, xy)
class AnnotationBbox(Artist, AnnotationBase):
    def __init__(self, xy):
        Artist.__init__(self)
        AnnotationBase.__init__(self, xy)
""", (("PK003", "get_size"),)),
    E("a torch Dataset subclass reads what neither it nor Dataset sets (fairseq's SubsampleDataset.shuffle)", """
from torch.utils.data import Dataset
class BaseWrapperDataset(Dataset):
    def __init__(self, dataset):
        self.dataset = dataset
class SubsampleDataset(BaseWrapperDataset):
    def __init__(self, dataset, ratio):
        super().__init__(dataset)
        self.ratio = ratio
    def ordered_indices(self):
        return list(range(len(self.dataset))) if self.shuffle else []
""", (("PK003", "shuffle"),)),
)
