"""Examples of the rule PK004 two-phase-initialisation (its unit: ``patchkit/analysis/rules/pk004_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

VALID = (
    E("unittest runs setUp before each test method of a TestCase", """
import unittest
class TestQueue(unittest.TestCase):
    def setUp(self):
        self.items = []
    def test_empty(self):
        self.assertEqual(self.items, [])
"""),
    E("a descriptor's __set_name__ runs when the owner class is created, before any __get__ or __set__", """
class Field:
    def __set_name__(self, owner, name):
        self.name = "_" + name
    def __get__(self, obj, objtype=None):
        return self if obj is None else getattr(obj, self.name)
    def __set__(self, obj, value):
        setattr(obj, self.name, value)
class Point:
    x = Field()
"""),
    E("__exit__ reads what __enter__ assigned, whatever construction skipped (arcade's framebuffers)", """
class Framebuffer:
    def __init__(self, ctx):
        self._ctx = ctx
        self._prev = None
    def __enter__(self):
        self._prev = self._ctx.active
        return self
    def __exit__(self, *exc):
        self._prev.use()
class DefaultFramebuffer(Framebuffer):
    def __init__(self, ctx):
        self._ctx = ctx
"""),
)

INVALID = (
    E("__set_name__ on a class that is no descriptor: nothing says it ran before another method reads what it set", """
class Tag:
    def __set_name__(self, owner, name):
        self.name = name
    def describe(self):
        return self.name
""", (("PK004", "name"),)),
    E("a store in a closure __init__ builds and hands on: two-phase, not a PK001 store on no path (flashinfer's _local_init)", """
def on_rank(fn):
    return fn
class Runner:
    def __init__(self, weights):
        def _local_init():
            self.size = weights.size
        self.start = on_rank(_local_init)
    def width(self):
        return self.size
""", (("PK004", "size"),)),
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
    E("close() reads what only connect() assigns (close on a never-connected client)", """
class Client:
    def __init__(self, url):
        self.url = url
    def connect(self):
        self.sock = object()
    def close(self):
        self.sock.close()
""", (("PK004", "sock"),)),
    E("setUp spelt for the base's setup hook: the override never runs (an error naming the hook)", """
class Task:
    def __init__(self):
        self.setup()
    def setup(self):
        pass
class Download(Task):
    def setUp(self):
        self.urls = []
    def run(self):
        return len(self.urls)
""", (("PK004", "urls"),)),
)
