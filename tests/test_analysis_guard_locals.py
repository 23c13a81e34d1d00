"""A getattr result kept in a local and tested with ``is not None`` guards the read (sqlalchemy's
``legacy = getattr(self, "type_compiler", None); if legacy is not None: ... self.type_compiler``);
with a default that is not None the test says nothing about the attribute."""
from __future__ import annotations

from patchkit.analysis import analyse_source

SRC = '''
class D:
    def __init__(self):
        self.x = 1

    def none_default(self):
        legacy = getattr(self, "tc", None)
        if legacy is not None:
            return self.tc
        return None

    def zero_default(self):
        v = getattr(self, "zc", 0)
        if v is not None:
            return self.zc
        return None

    def rebound(self):
        w = getattr(self, "rc", None)
        w = 5
        if w is not None:
            return self.rc
        return None
'''


def test_is_not_none_on_a_getattr_local_guards_only_with_a_none_default():
    flagged = {f.attr for f in analyse_source("d.py", SRC) if f.code in ("PK002", "PK003")}
    assert "tc" not in flagged
    assert {"zc", "rc"} <= flagged
