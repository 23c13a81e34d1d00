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
