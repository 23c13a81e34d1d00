"""Examples of the rule PK007 unpickled-missing (its unit: ``patchkit/analysis/rules/pk007_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

# the head and tail a valid example and its invalid counterpart share
_CACHE_HEAD = """
import threading
class Cache:
    def __init__(self):
        self.data = {}
        self._lock = threading.Lock()
    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_lock"]
        return state
"""
_CACHE_PUT = """    def put(self, k, v):
        with self._lock:
            self.data[k] = v
"""

VALID = (
    E("__setstate__ restores the state and makes what the state leaves out again (requests 2.2.0)", """
class HTTPAdapter:
    __attrs__ = ["max_retries", "_pool_connections"]
    def __init__(self, pool_connections=10):
        self.max_retries = 0
        self.proxy_manager = {}
        self._pool_connections = pool_connections
        self.init_poolmanager(pool_connections)
    def __getstate__(self):
        return dict((attr, getattr(self, attr, None)) for attr in self.__attrs__)
    def __setstate__(self, state):
        self.proxy_manager = {}
        for attr, value in state.items():
            setattr(self, attr, value)
        self.init_poolmanager(self._pool_connections)
    def init_poolmanager(self, connections):
        self.poolmanager = connections
    def get_connection(self, proxy):
        return self.proxy_manager.get(proxy) or self.poolmanager
"""),
    E("a dropped lock is made again in __setstate__", _CACHE_HEAD + """    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()
""" + _CACHE_PUT),
    E("a dropped name with a class-level default, and a guarded read", """
class Model:
    _compiled = None
    def __init__(self):
        self._compiled = object()
        self._session = object()
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled", None)
        state.pop("_session", None)
        return state
    def run(self):
        if not hasattr(self, "_session"):
            return self._compiled
        return self._session
"""),
    E("a state this analyzer cannot read says nothing", """
class Box:
    def __init__(self):
        self.a = 1
        self.b = 2
    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "b"}
    def total(self):
        return self.a + self.b
"""),
)

INVALID = (
    E("a name __attrs__ leaves out (requests 2.1.0's HTTPAdapter.proxy_manager)", """
class HTTPAdapter:
    __attrs__ = ["max_retries", "config", "_pool_connections"]
    def __init__(self, pool_connections=10):
        self.max_retries = 0
        self.config = {}
        self.proxy_manager = {}
        self._pool_connections = pool_connections
        self.init_poolmanager(pool_connections)
    def __getstate__(self):
        return dict((attr, getattr(self, attr, None)) for attr in self.__attrs__)
    def __setstate__(self, state):
        for attr, value in state.items():
            setattr(self, attr, value)
        self.init_poolmanager(self._pool_connections)
    def init_poolmanager(self, connections):
        self.poolmanager = connections
    def get_connection(self, proxy):
        if proxy not in self.proxy_manager:
            self.proxy_manager[proxy] = object()
        return self.poolmanager
""", (("PK007", "proxy_manager"),)),
    E("a dropped lock that __setstate__ forgets", _CACHE_HEAD + _CACHE_PUT, (("PK007", "_lock"),)),
)
