"""A plain method whose whole body returns a bool or None constant is a constant of the class:
``if self.m():`` is decided by it, as a class attribute bound to a constant decides ``if self.flag:``.
vllm-omni 0.30.0 vendors NeMo's ``AttentionAdapterModuleMixin`` as a stub whose
``is_adapter_available`` returns False; ``ConformerLayer.forward`` reads
``self.forward_enabled_adapters`` only under ``if self.is_adapter_available():`` (a false PK003 in
set AJ). A subclass that overrides the stub, or code that rebinds the method, makes it live again."""
from __future__ import annotations

from patchkit.analysis import analyse_source

STUB = '''
class AdapterMixin:
    def is_adapter_available(self) -> bool:
        """Stub."""
        return {value}


class Layer(AdapterMixin):
    def __init__(self, size):
        self.size = size

    def forward(self, x):
        if self.is_adapter_available():
            x = self.forward_enabled_adapters(x)
        return x
'''


def _errors(src):
    return {(f.cls, f.attr) for f in analyse_source("m.py", src) if f.severity.value == "error"}


def test_a_stub_returning_false_makes_the_branch_dead():
    assert _errors(STUB.format(value="False")) == set()
    assert _errors(STUB.format(value="None")) == set()


def test_a_stub_returning_true_keeps_the_read():
    assert ("Layer", "forward_enabled_adapters") in _errors(STUB.format(value="True"))


def test_a_subclass_overriding_the_stub_is_judged_on_its_own():
    src = STUB.format(value="False") + '''
class Adapted(Layer):
    def is_adapter_available(self):
        return len(self.size) > 0
'''
    got = _errors(src)
    assert ("Adapted", "forward_enabled_adapters") in got
    assert ("Layer", "forward_enabled_adapters") not in got


def test_a_method_rebound_from_outside_is_no_constant():
    src = STUB.format(value="False") + '''
def enable_adapters():
    Layer.is_adapter_available = lambda self: True
'''
    assert ("Layer", "forward_enabled_adapters") in _errors(src)


def test_construction_follows_the_constant_too():
    src = '''
class Model:
    def uses_cache(self):
        return False

    def __init__(self):
        if self.uses_cache():
            self.size = self.cache.size
        self.cache = None
'''
    assert _errors(src) == set()
    assert ("Model", "cache") in _errors(src.replace("return False", "return True"))


def test_a_library_base_before_the_stub_may_define_the_method():
    src = '''
import threading


class Stub:
    def is_alive(self):
        return False


class Worker(threading.Thread, Stub):
    def __init__(self):
        super().__init__()
        self.n = 0

    def poll(self):
        if self.is_alive():
            return self.resutl
        return None
'''
    assert ("Worker", "resutl") in _errors(src)


def test_a_module_function_of_the_same_name_is_not_the_method():
    src = '''
def is_enabled():
    return True


class Mixin:
    def is_enabled(self):
        return False


class A(Mixin):
    def __init__(self):
        self.n = 1

    def run(self):
        if is_enabled():
            return self.missing_thing
        return None
'''
    assert ("A", "missing_thing") in _errors(src)
