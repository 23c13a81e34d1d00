"""Examples of the rule PK006 base-init-skipped (its unit: ``patchkit/analysis/rules/pk006_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

VALID: tuple = ()

INVALID = (
    E("an nn.Module subclass that never runs Module.__init__()", """
import torch
class Net(torch.nn.Module):
    def __init__(self, n):
        self.lin = torch.nn.Linear(n, n)
    def forward(self, x):
        return self.lin(x)
""", (("PK006", "torch.nn.Module"),)),
)
