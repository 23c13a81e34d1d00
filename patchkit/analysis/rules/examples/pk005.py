"""Examples of the rule PK005 del-reads-partial-object (its unit: ``patchkit/analysis/rules/pk005_*.py``).

VALID: no finding at the default settings. INVALID: exactly the (code, attribute) pairs named
(info-level findings are not shown by default and do not count). tests/test_check_examples.py
turns each into a test; ``patchkit check`` runs the same analyzer."""
from patchkit.checks_api import Example as E

VALID = (
    E("the method __del__ calls runs inside a try that swallows what it raises", """
class Client:
    def __init__(self, client_id, clean_session=True):
        if not clean_session and not client_id:
            raise ValueError("a client id is needed without a clean session")
        self._sock = None
    def __del__(self):
        try:
            self._reset_sockets()
        except Exception:
            pass
    def _reset_sockets(self):
        if self._sock:
            self._sock.close()
"""),
)

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
    E("__del__ reaches the read through the methods it calls (paho-mqtt 1.5.1's Client._sock)", """
class Client:
    def __init__(self, client_id, clean_session=True):
        if not clean_session and not client_id:
            raise ValueError("a client id is needed without a clean session")
        self._sock = None
    def __del__(self):
        self._reset_sockets()
    def _reset_sockets(self):
        self._sock_close()
    def _sock_close(self):
        if not self._sock:
            return
        self._sock.close()
""", (("PK005", "_sock"),)),
)
