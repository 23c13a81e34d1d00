"""Examples of the rule PK006 base-init-skipped (its unit: ``patchkit/analysis/rules/pk006_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

VALID: tuple = (
    E("a plain value stored before Module.__init__() (torch's __setattr__ only refuses modules, parameters and buffers)", """
import torch.nn as nn
class Scale(nn.Module):
    def __init__(self, n):
        self.n = n
        super().__init__()
        self.lin = nn.Linear(n, n)
    def forward(self, x):
        return self.lin(x) * self.n
"""),
    E("a submodule stored after the base __init__ ran through a base of the tree", """
import torch.nn as nn
class Base(nn.Module):
    def __init__(self):
        super().__init__()
class Head(Base):
    def __init__(self, n):
        super().__init__()
        self.proj = nn.Linear(n, n)
    def forward(self, x):
        return self.proj(x)
"""),
    E("a logging.Handler subclass that runs Handler.__init__()", """
import logging
class ListHandler(logging.Handler):
    def __init__(self, sink):
        super().__init__()
        self.sink = sink
    def emit(self, record):
        self.sink.append(self.format(record))
"""),
    E("a json.JSONEncoder subclass that keeps the base's __init__ (none of its own)", """
import json
class Enc(json.JSONEncoder):
    def default(self, o):
        return str(o)
"""),
)

INVALID = (
    E("an nn.Module subclass that never runs Module.__init__()", """
import torch
class Net(torch.nn.Module):
    def __init__(self, n):
        self.lin = torch.nn.Linear(n, n)
    def forward(self, x):
        return self.lin(x)
""", (("PK006", "torch.nn.Module"),)),
    E("a submodule assigned before super().__init__() (torch raises: cannot assign module before Module.__init__() call)", """
from torch import nn
class Block(nn.Module):
    def __init__(self, n):
        self.norm = nn.LayerNorm(n)
        super().__init__()
    def forward(self, x):
        return self.norm(x)
""", (("PK006", "torch.nn.Module"),)),
    E("a submodule of the tree assigned before the base of the tree runs Module.__init__()", """
import torch
class Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
class Outer(Base):
    def __init__(self):
        self.inner = Inner()
        super().__init__()
""", (("PK006", "torch.nn.Module"),)),
    E("a logging.Handler subclass whose __init__ never runs Handler.__init__(): Logger.callHandlers reads its level", """
import logging
class ListHandler(logging.Handler):
    def __init__(self, sink):
        self.sink = sink
    def emit(self, record):
        self.sink.append(self.format(record))
""", (("PK006", "Handler"),)),
    E("a json.JSONEncoder subclass with its own __init__ and no super call: encode() reads the options", """
import json
class Enc(json.JSONEncoder):
    def __init__(self, precision):
        self.precision = precision
    def default(self, o):
        return round(o, self.precision)
""", (("PK006", "JSONEncoder"),)),
)
