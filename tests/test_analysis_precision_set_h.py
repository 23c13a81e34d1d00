"""Rules from set H (seed 37, session 9), each with the counterpart that stays an error."""
from __future__ import annotations

from _analysed_package import package_findings

HELPER = '''
class Base:
    def __init__(self, stream, model=None):
        self.stream = stream
        self.model = model

    def peek(self):
        return self.model


class Wrapper(Base):
    pass


def _wrapper_init(wrapper, stream, model):
    Base.__init__(wrapper, stream, model=model)
    wrapper.extra = 1


def _half_init(wrapper, stream):
    wrapper.stream = stream


class Sync(Wrapper):
    def __init__(self, stream, model):
        _wrapper_init(self, stream, model)

    def go(self):
        return self.extra + self.peek()


class Half(Wrapper):
    def __init__(self, stream):
        _half_init(self, stream)

    def go(self):
        return self.peek()


def _reads_first(wrapper, stream):
    size = wrapper.extra
    Base.__init__(wrapper, stream)
    return size


class Early(Base):
    def __init__(self, stream):
        _reads_first(self, stream)
        self.extra = 1


def weight_init(module):
    if isinstance(module, Conv):
        module.weight.fill_(module.out_channels)


class Conv:
    pass


class SmallNet(Base):
    def __init__(self, stream):
        super().__init__(stream)
        weight_init(self)
'''


def test_a_module_helper_that_takes_the_instance_runs_as_part_of_construction(tmp_path):
    """litellm's ``_chat_wrapper_init(self, ...)`` calls ``CustomStreamWrapper.__init__(wrapper, ...)``
    for the stream classes' ``__init__`` (21 false error groups): the helper is walked with its first
    parameter as the instance. A helper that does not run the base initialiser leaves the error, a
    helper that reads before the assignment is a read during construction, and a helper that runs no
    base initialiser stays an escape (kornia's ``weight_init(module)``, written for any module, reads
    ``module.weight`` under ``isinstance(module, nn.Conv2d)``)."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": HELPER})}
    assert ("Sync", "model") not in found and ("Sync", "extra") not in found
    assert found[("Half", "model")].severity == "error" and found[("Half", "model")].code == "PK003"
    early = found[("Early", "extra")]
    assert early.severity == "error" and early.code in ("PK001", "PK002"), early
    assert not [k for k in found if k[0] == "SmallNet"]


STREAMS = '''
class BaseIt:
    def __init__(self, logging_obj):
        self.logging_obj = logging_obj
        self._cache_hit = None

    def _log_completed_response(self):
        return self._cache_hit

    def _handle_failure(self, e):
        return self.logging_obj


class RespIt(BaseIt):
    async def __anext__(self):
        return await self._next_event()

    async def _next_event(self):
        try:
            pass
        except Exception as e:
            self._handle_failure(e)
        self._log_completed_response()


class LiteIt(RespIt):
    def __init__(self, x):
        self.x = x

    async def __anext__(self):
        return self.x


class SuperIt(RespIt):
    def __init__(self, x):
        self.x = x

    async def __anext__(self):
        return await super().__anext__()
'''


def test_a_private_helper_reached_only_through_an_overridden_method_of_another_base_is_dead(tmp_path):
    """litellm's LiteLLMCompletionStreamingIterator skips its base's ``__init__`` and overrides
    ``__anext__``: the base's private ``_next_event`` and the ``_log_completed_response`` it calls
    (defined one class further up) never run on it. Reachability follows private helpers
    transitively from the public methods; ``super().__anext__()`` keeps the chain alive."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": STREAMS})}
    assert not [k for k in found if k[0] == "LiteIt"], found
    assert found[("SuperIt", "_cache_hit")].severity == "error"
    assert found[("SuperIt", "logging_obj")].severity == "error"


ASYNC = '''
import asyncio


class BatchLogger:
    def __init__(self, flush_interval=5):
        self.flush_interval = flush_interval
        self.log_queue = []


class MetricsLogger(BatchLogger):
    def __init__(self, key):
        self.key = key
        self._stopped = False
        asyncio.create_task(self.periodic_flush())
        super().__init__()

    async def periodic_flush(self):
        while not self._stopped:
            await asyncio.sleep(self.flush_interval)
            self.log_queue.clear()


class EagerLogger(BatchLogger):
    def __init__(self, key):
        self.key = key
        self.flush_now()
        super().__init__()

    def flush_now(self):
        return self.flush_interval
'''


def test_calling_an_async_method_during_construction_does_not_run_its_body(tmp_path):
    """litellm's NewRelicMetricsLogger schedules ``self.periodic_flush()`` with
    ``asyncio.create_task`` before ``super().__init__()``: the coroutine's body runs after
    construction. The same read in a plain method called there is a read during construction."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": ASYNC})}
    assert not [k for k in found if k[0] == "MetricsLogger" and k[1] in ("flush_interval", "log_queue")], found
    eager = found[("EagerLogger", "flush_interval")]
    assert eager.severity == "error" and eager.code in ("PK001", "PK002"), eager


CMS = '''
import warnings
from contextlib import contextmanager


@contextmanager
def _suppress_deprecation_warning():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore")
        yield


@contextmanager
def _suppress_errors():
    try:
        yield
    except Exception:
        pass


def build(x):
    return x


class Builder:
    def __init__(self, fn):
        with _suppress_deprecation_warning():
            self.nb_func = build(fn)
        self.name = self.nb_func.__name__


class Lenient:
    def __init__(self, fn):
        with _suppress_errors():
            self.nb_func = build(fn)
        self.name = self.nb_func.__name__
'''


def test_a_contextmanager_that_only_filters_warnings_does_not_swallow_exceptions(tmp_path):
    """numba's ``with _suppress_deprecation_warning_nopython_not_supplied():`` (a ``@contextmanager``
    around ``warnings.catch_warnings()``, no ``except``) cannot skip the block's assignment and go
    on: its own body decides, not its name. One with an ``except`` around its ``yield`` can (a warning)."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": CMS})}
    assert ("Builder", "nb_func") not in found, found
    assert found[("Lenient", "nb_func")].code == "PK002"  # a swallowed exception skips the assignment
