"""Hooks for smoke servers only, put first on the server's PYTHONPATH by ``patchkit smoke``
(``patchkit/smoke/server.py``): each acts when SGLang imports the module it hooks, and only when its
variable is set. The server under test is not changed otherwise; any other ``sitecustomize`` further
down the path still runs.

- ``PATCHKIT_SMOKE_WEIGHTS=random[:STD]``: seeded random weights instead of SGLang's near-constant
  dummy ones (``_pk_weights.py``).
- ``PATCHKIT_SMOKE_KV_CHECK=1``: every speculative decode step is checked against the KV slots the
  scheduler allocated for it (``_pk_kvcheck.py``)."""
from __future__ import annotations

import importlib.util
import os
import sys

def _chain() -> None:
    """Run the next sitecustomize on the path, as if this one were not there."""
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or ".") == here:
            continue
        candidate = os.path.join(entry or ".", "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_patchkit_chained_sitecustomize", candidate)
            if spec and spec.loader:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            return


def _install() -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from _pk_after_import import after_import
        import _pk_kvcheck
        import _pk_weights
    finally:
        sys.path.pop(0)
    std = _pk_weights.parse(os.environ.get(_pk_weights.ENV, ""))
    if std is not None:
        after_import(_pk_weights.TARGET, lambda m: _pk_weights.install(m, std))
    if _pk_kvcheck.enabled(os.environ):
        after_import(_pk_kvcheck.TARGET, _pk_kvcheck.install)


_install()
_chain()
