"""Two bug shapes session 40's red team found unreported or reported as a warning
(analyzer-precision-session40.md in bench/results/analyzer-precision-history.tar.xz), with the look-alikes that stay quiet.

1. A torch submodule, parameter or buffer assigned before ``Module.__init__()`` has run
   (``self.fc = nn.Linear(...)`` above ``super().__init__()``): torch raises
   ``AttributeError: cannot assign module before Module.__init__() call`` on that line (PK006).
2. A misspelled ``__init__`` (``__innit__``, ``__init_``, ``_init__``): Python never calls it, so
   what it assigns is never assigned on construction. An error, not a two-phase warning (PK004).

And one false positive the false-positive red team found: a class attribute another module sets on
the class itself (``Logger.manager = Manager()``, as the standard library's ``logging`` does) is a
warning naming that store, not a PK003 error.
"""
from __future__ import annotations

import textwrap

from patchkit.analysis import analyse_source


def _found(src: str) -> set[tuple[str, str, str, str]]:
    return {(f.code, f.cls, f.attr, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}


NET = """
import torch
import torch.nn as nn
from torch import nn as tnn
from torch.nn import Parameter
from torch.nn.utils.rnn import PackedSequence


class Inner(nn.Module):
    def __init__(self):
        super().__init__()


class Net(nn.Module):
    def __init__(self, n):
        {before}
        super().__init__()
        self.after = nn.Linear(n, n)

    def forward(self, x):
        return self.after(x)
"""

EARLY = ("self.fc = nn.Linear(n, n)", "self.fc = torch.nn.Linear(n, n)", "self.fc = tnn.Sequential()",
         "self.w = Parameter(torch.zeros(n))", "self.w = nn.Parameter(torch.zeros(n))", "self.inner = Inner()",
         "self.fc: nn.Linear = nn.Linear(n, n)")


def test_a_submodule_or_parameter_assigned_before_module_init_is_an_error():
    for before in EARLY:
        found = _found(NET.format(before=before))
        assert ("PK006", "Net", "torch.nn.Module", "error") in found, before


def test_plain_values_and_non_module_calls_before_module_init_are_not_reported():
    for before in ("self.n = n", "self.shape = (n, n)", "self.packed = PackedSequence(None)",
                   "self.size = torch.Size([n])", "self.act = nn.functional.relu", "pass"):
        found = _found(NET.format(before=before))
        assert not {x for x in found if x[0] == "PK006"}, before


def test_the_store_is_judged_against_the_library_init_not_the_tree_base():
    """``Outer(Base)``: ``Base.__init__`` runs ``Module.__init__`` first, so a store after
    ``super().__init__()`` is fine and one before it is not; ``nn.Module.__init__(self)`` named
    explicitly counts as the base ``__init__`` running."""
    src = """
    import torch.nn as nn
    class Base(nn.Module):
        def __init__(self):
            super().__init__()
    class Outer(Base):
        def __init__(self, n):
            {body}
    """
    assert ("PK006", "Outer", "torch.nn.Module", "error") in _found(
        src.format(body="self.fc = nn.Linear(n, n)\n            super().__init__()"))
    assert not {x for x in _found(src.format(body="super().__init__()\n            self.fc = nn.Linear(n, n)"))
                if x[0] == "PK006"}
    assert not {x for x in _found(src.format(body="nn.Module.__init__(self)\n            self.fc = nn.Linear(n, n)"))
                if x[0] == "PK006"}


FORMATTER = """
class Formatter:
    def {name}(self, prefix="> "):
        self.prefix = prefix

    def fmt(self, s):
        return self.prefix + s
{extra}
"""


def test_a_misspelled_init_is_an_error_that_names_it():
    for name in ("__innit__", "__inti__", "__init_", "_init__", "__init___"):
        found = _found(FORMATTER.format(name=name, extra=""))
        assert ("PK004", "Formatter", "prefix", "error") in found, name
    [f] = [f for f in analyse_source("m.py", FORMATTER.format(name="__innit__", extra="")) if f.attr == "prefix"]
    assert "rename __innit__ to __init__" in f.hint


def test_set_up_methods_and_a_typo_someone_calls_stay_two_phase_warnings():
    for name, extra in (("setup", ""), ("_init", ""), ("_init_", ""), ("__init_", "\ndef make():\n    f = Formatter()\n    f.__init_()\n")):
        found = _found(FORMATTER.format(name=name, extra=extra))
        assert ("PK004", "Formatter", "prefix", "warning") in found, name


LOG = """
class Logger:
    def __init__(self, name):
        self.name = name

    def emit(self, msg):
        return self.manager.handle(self.name, msg)
"""

SETUP = """
from pkg import log
from pkg.log import Logger


class Manager:
    def handle(self, name, msg):
        return name + msg


{store}
"""


def test_a_class_attribute_another_module_sets_on_the_class_is_a_warning(tmp_path):
    """The standard library's ``logging`` shape (session 40's false-positive red team, case67):
    ``Logger.manager = Manager()`` at module level in another module of the package."""
    from _analysed_package import package_keys
    for i, store in enumerate(("Logger.manager = Manager()", "log.Logger.manager = Manager()",
                               "def install():\n    Logger.manager = Manager()")):
        (tmp_path / str(i)).mkdir()
        got = package_keys(tmp_path / str(i), {"log.py": LOG, "setup.py": SETUP.format(store=store)})
        assert ("Logger", "manager", "PK003", "warning") in got, store


def test_a_store_on_an_instance_or_another_class_leaves_the_error(tmp_path):
    from _analysed_package import package_keys
    for i, store in enumerate(("logger = Logger('x')\nlogger.other = 1", "Manager.manager = Manager()", "pass")):
        (tmp_path / str(i)).mkdir()
        got = package_keys(tmp_path / str(i), {"log.py": LOG, "setup.py": SETUP.format(store=store)})
        assert ("Logger", "manager", "PK003", "error") in got, store


# the review of session 40's changes: shapes each first version got wrong


def test_a_class_a_call_returns_running_its_init_on_the_instance_is_a_run_time_base():
    """``self.storage_class().__init__(self, ...)`` runs a class chosen at run time: a warning
    naming it (as before the built-receiver change), and no PK006 for a torch base run that way."""
    src = """
    class Storage:
        def __init__(self, root):
            self.root = root
    class Account(Storage):
        def __init__(self, kind):
            self.kind = kind
            self.storage_class().__init__(self, root=kind)
        def storage_class(self):
            return Storage
        def path(self):
            return self.root
    """
    assert ("PK003", "Account", "root", "warning") in _found(src)
    torch_src = """
    import torch.nn as nn
    def base():
        return nn.Module
    class N(nn.Module):
        def __init__(self):
            base().__init__(self)
            self.fc = nn.Linear(2, 2)
    """
    assert not {x for x in _found(torch_src) if x[0] == "PK006"}


def test_torch_values_it_accepts_and_a_tree_setattr_are_not_reported():
    for before in ("self.b = nn.UninitializedBuffer()", "self.w = nn.init.xavier_uniform_(torch.empty(2, 2))"):
        assert not {x for x in _found(NET.format(before=before)) if x[0] == "PK006"}, before
    src = """
    import torch.nn as nn
    class Lazy(nn.Module):
        def __setattr__(self, k, v):
            object.__setattr__(self, k, v)
    class A8(Lazy):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
            super().__init__()
    """
    assert not {x for x in _found(src) if x[0] == "PK006"}
    [f] = [f for f in analyse_source("m.py", textwrap.dedent(NET.format(before="self.w = nn.Parameter(torch.zeros(n))")))
           if f.code == "PK006"]
    assert "cannot assign parameters before" in f.why


def test_a_typo_named_init_is_judged_by_its_uses_across_the_tree(tmp_path):
    """A base calling ``self._init__()`` (overridden in a subclass of another module) or another
    module calling ``fmt.__innit__()`` uses the name: a two-phase warning. A module with an ordinary
    ``__init__`` elsewhere does not hide ``__init_`` (the name as a whole word, not a substring)."""
    from _analysed_package import package_keys
    base = "class Plugin:\n    def start(self):\n        self._init__()\n        return self\n"
    impl = ("from pkg.base import Plugin\n\n\nclass Echo(Plugin):\n    def _init__(self):\n        self.buffer = []\n\n"
            "    def say(self, x):\n        self.buffer.append(x)\n")
    got = package_keys(tmp_path, {"base.py": base, "impl.py": impl})
    assert ("Echo", "buffer", "PK004", "warning") in got
    other = FORMATTER.format(name="__init_", extra="\nclass Plain:\n    def __init__(self):\n        self.x = 1\n")
    assert ("PK004", "Formatter", "prefix", "error") in _found(other)


def test_local_names_outside_ascii_word_characters_are_forgotten_at_return():
    """``किताब`` holds a combining mark that ``\\w`` does not match: the callee's facts about it
    still end with the call, as they did with the whole-name pattern."""
    src = """
    class C:
        def __init__(self, a, b):
            self.setx(a)
            self.sety(b)
        def setx(self, किताब):
            if not किताब:
                raise ValueError
            self.x = 1
        def sety(self, किताब):
            if किताब:
                self.y = 1
        def get(self):
            return self.y
    """
    assert ("PK001", "C", "y", "warning") in _found(src)
