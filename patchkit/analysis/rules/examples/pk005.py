"""Examples of the rule PK005 del-reads-partial-object (its unit: ``patchkit/analysis/rules/pk005_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

VALID: tuple = ()

INVALID = (
    E("__del__ after a failed __init__", """
import subprocess
class Runner:
    def __init__(self, cmd):
        self.cmd = cmd
        self.log = open("/tmp/log", "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log)
    def __del__(self):
        self.proc.kill()
""", (("PK005", "proc"),)),
)
