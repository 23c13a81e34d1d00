"""Examples of the rule PK002 read-before-assignment (its unit: ``patchkit/analysis/rules/pk002_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

# the source shared by an example and its counterpart (session 18)
_NEO_BASE_RAW_IO = """
class BaseRawIO:
    def __init__(self, use_cache=False, cache_path="same", **kargs):
        self.use_cache = use_cache
        if use_cache:
            self.setup_cache(cache_path)
        else:
            self._cache = None

    def setup_cache(self, cache_path):
        return self.filename + cache_path


class BufferIO(BaseRawIO):
    def __init__(self, *arg, **kwargs):
        super().__init__(*arg, **kwargs)
        self._has_buffer = True
"""


_CYTHON_SCOPES = """
class Scope:
    scope_predefined_names = %s
    def __init__(self, name):
        self.name = name
        for var_name in self.scope_predefined_names:
            self.declare_var(var_name)


class ComprehensionScope(Scope):
    def __init__(self, outer):
        Scope.__init__(self, "genexpr")
        self.genexp_prefix = "x"
    def declare_var(self, name):
        return self.genexp_prefix + name
"""

_MANISKILL_ENV = """
class BaseEnv:
    def __init__(self):
        self.reconfiguration_freq = 0
        self.reset(seed=2022, options=dict(reconfigure=%s))
        self.action_space = self.agent.action_space

    def reset(self, seed=None, options=None):
        if options is None:
            options = dict()
        reconfigure = options.get("reconfigure", False)
        reconfigure = reconfigure or self.reconfiguration_freq != 0
        if reconfigure:
            self._reconfigure(options)
        return self.agent

    def _reconfigure(self, options):
        self.agent = Agent()


class Agent:
    action_space = None
"""


_BILBY_FROM_FILE = """
import logging
class Interpolated:
    def __init__(self, xx):
        self.xx = xx
class FromFile(Interpolated):
    def __init__(self, file_name):
        try:
%s
            super().__init__(open(file_name).read())
        except IOError:
            logging.warning("Can't load %%s", self.file_name)
"""

_NEQUIP_SAVE_FOR_OUTPUT = """
import torch
class GraphModuleMixin:
    def _init_irreps(self, irreps_in=None):
        self.irreps_in = dict(irreps_in or {})
        self.irreps_out = dict(self.irreps_in)
class SaveForOutput(torch.nn.Module, GraphModuleMixin):
    def __init__(self, field, out_field, irreps_in=None):
        super().__init__()
%s
        self.irreps_out[out_field] = self.irreps_in[field]
"""

_VISPY_FILTER = """
class Filter:
    def __init__(self):
        self._attached = False
    @property
    def attached(self):
        return self._attached
    def _attach(self, visual):
        self._attached = True
%s
class WireframeFilter(Filter):
    def __init__(self, width=1):
        super().__init__()
        self._width = width
        self._update_data()
    def _update_data(self):
        if not self.attached:
            return
        return self._visual.mesh_data
"""

VALID = (
    E("a method nn.Module does not have resolves to the next base of the MRO (nequip's SaveForOutput calls its mixin's _init_irreps)",
      _NEQUIP_SAVE_FOR_OUTPUT % "        self._init_irreps(irreps_in=irreps_in)"),
    E("a try body whose first statement stores a name cannot raise before it: the handler reads it assigned (bilby's FromFile)",
      _BILBY_FROM_FILE % "            self.file_name = file_name"),
    E("a read under a property that returns a flag set together with the attribute (vispy's filters: `if not self.attached: return` before `self._visual`)", _VISPY_FILTER % "        self._visual = visual\n"),
    E("`if client is self:` in __init__ runs only for an object __new__ handed back already built (nemoguardrails' InstrumentedHTTPClient): not a read during construction", """
class Instrumented:
    def __new__(cls, client, *args, **kwargs):
        if isinstance(client, cls):
            return client
        return super().__new__(cls)
    def __init__(self, client, tracer=None):
        if client is self:
            if tracer is not self._tracer:
                print("already instrumented")
            return
        self._client = client
        self._tracer = tracer
"""),
    E("a dict literal handed to a method decides the branch it takes, through a local only top-level statements assign (ManiSkill's BaseEnv: reset(options=dict(reconfigure=True)) builds the agent)",
      _MANISKILL_ENV % "True"),
    E("attrs' generated __attrs_init__, called by the class's own __init__, sets every field before a validator reads them (bentoml's ModelInfo)", """
import attr
@attr.define(frozen=True, init=False)
class ModelInfo:
    tag: str
    _options: dict
    def __init__(self, tag, options):
        self.__attrs_init__(tag=tag, options=options)
        self.validate()
    def validate(self):
        return self.tag, self._options
"""),
    E("a pass-through `super().__init__(*arg, **kwargs)` called with nothing to pass: the base's defaults hold (`use_cache=False`), so the cache set-up that reads the file name does not run (neo's AxonRawIO)", _NEO_BASE_RAW_IO + """

class AxonRawIO(BufferIO):
    def __init__(self, filename=""):
        BufferIO.__init__(self)
        self.filename = filename
"""),
    E("attrs keeps a class's own __init__ and generates __attrs_init__, which it may call (airflow's SerializedDAG)", """
import attrs
@attrs.define
class Dag:
    dag_id: str
    display: str
    def __init__(self, *, dag_id):
        self.__attrs_init__(dag_id=dag_id, display=dag_id)
    def __repr__(self):
        return self.display
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
    E("an unreadable library base's __init__ ran before the read (nn.Linear sets weight)", """
import torch.nn as nn
class QuantizedLinear(nn.Linear):
    def __init__(self, a, b):
        super().__init__(a, b)
        shape = self.weight.shape
        self.weight = nn.Parameter(self.weight.view(shape))
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
    E("a loop over the class's own empty class-level list never runs: the helper it calls does not run during construction (Cython's ComprehensionScope)", _CYTHON_SCOPES % "[]"),
)

INVALID = (
    E("construction reads a misspelling of the class's own constant under a base the analyzer cannot read (keras 3.2.1's RandomBrightness: value_range_VALIDATION_ERROR for _VALUE_RANGE_VALIDATION_ERROR, rel_51)", """
from not_installed_framework import Layer
class RandomBrightness(Layer):
    _VALUE_RANGE_VALIDATION_ERROR = "The `value_range` argument should be a list of two numbers. "
    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self._set_value_range(value_range)
    def _set_value_range(self, value_range):
        if len(value_range) != 2:
            raise ValueError(self.value_range_VALIDATION_ERROR + f"Received: {value_range}")
        self.value_range = sorted(value_range)
""", (("PK002", "value_range_VALIDATION_ERROR"),)),
    E("the same class without the call to the mixin's set-up (counterpart of nequip's SaveForOutput)",
      _NEQUIP_SAVE_FOR_OUTPUT % "        pass", (("PK002", "irreps_in"), ("PK002", "irreps_out"))),
    E("the same store after a call that can raise: the handler may read it unassigned (counterpart of bilby's FromFile)",
      _BILBY_FROM_FILE % "            open(file_name).close()\n            self.file_name = file_name", (("PK002", "file_name"),)),
    E("the flag the property returns is set without the attribute (counterpart of vispy's filters)", _VISPY_FILTER % "    def _bind(self, visual):\n        self._visual = visual\n", (("PK002", "_visual"),)),
    E("the same reset given reconfigure=False: the agent is read before anything builds it, in __init__ and in "
      "reset's return (counterpart of ManiSkill's BaseEnv; `reconfigure = reconfigure or self.reconfiguration_freq "
      "!= 0` is false on the only path, localflags.py)",
      _MANISKILL_ENV % "False", (("PK002", "agent"),)),
    E("the same loop over a non-empty list runs the helper before the attribute is stored (counterpart of Cython's ComprehensionScope)", _CYTHON_SCOPES % "['__module__']", (("PK002", "genexp_prefix"),)),
    E("the same pass-through given `use_cache=True`: the set-up runs before the file name is stored (counterpart of neo's AxonRawIO)", _NEO_BASE_RAW_IO + """

class CachedRawIO(BufferIO):
    def __init__(self, filename=""):
        BufferIO.__init__(self, use_cache=True)
        self.filename = filename
""", (("PK002", "filename"),)),
    E("a classmethod initialiser handed the instance runs where it is called: a read before the call is a read before assignment (counterpart of yt's LinePlot)", """
class LinePlot:
    def __init__(self, ds, fields):
        self._setup_plots()
        self._initialize_instance(self, ds, fields)

    @classmethod
    def _initialize_instance(cls, obj, ds, fields):
        obj.fields = fields
        obj.ds = ds

    def _setup_plots(self):
        return self.fields
""", (("PK002", "fields"),)),
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
    E("a property read during construction runs its getter, which reads too early", """
class A:
    def __init__(self):
        self.total = self.doubled
        self._x = 0
    @property
    def doubled(self):
        return self._x * 2
""", (("PK002", "_x"),)),
    E("a closure called during construction reads before the assignment", """
class A:
    def __init__(self):
        def now():
            return self.z
        now()
        self.z = 1
""", (("PK002", "z"),)),
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
    E("`if client is not self:` in __init__ is the fresh object's own path: a read there still comes first", """
class Instrumented:
    def __init__(self, client, tracer=None):
        if client is not self:
            print(self._tracer)
        self._tracer = tracer
""", (("PK002", "_tracer"),)),
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
    E("augmented assignment reads first", """
class C:
    def __init__(self):
        self.count += 1
""", (("PK002", "count"),)),
    E("an annotation-only attribute no subclass gives a value is read before it is set", """
class Sized:
    size: int
    def __init__(self):
        self.half = self.size // 2
""", (("PK002", "size"),)),
)
