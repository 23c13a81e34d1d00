"""patchkit: carry patches on top of upstream releases, and prove they are safe to launch."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys as _sys
from pathlib import Path as _Path

__version__ = "0.1.0"

# In a source checkout the built-in patches, checks and fixtures live beside this package
# (top-level ``patches/``, ``checks/``, ``fixtures/``); an installed wheel maps them to
# ``patchkit.patches`` etc. Adding the checkout root to our search path gives one import
# name for both layouts without claiming generic top-level names in site-packages.
_checkout = _Path(__file__).resolve().parent.parent
_ALIASED = ("patches", "checks", "fixtures")


class _CheckoutAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """In a checkout, ``patches.x`` (the checkout root on ``sys.path``, as tests and scripts
    have it) is the module ``patchkit.patches.x``, not a second copy of the same file: one
    module, so one ``PATCH`` object, whichever name imported it first."""

    def __init__(self) -> None:
        self._specs: dict[str, object] = {}

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in _ALIASED:
            return None
        if "." in fullname:  # a submodule: only below a package this finder aliased
            if _sys.modules.get(top) is None or _sys.modules.get(top) is not _sys.modules.get(f"patchkit.{top}"):
                return None
        else:  # the top-level name: only where it would be this checkout's folder
            found = importlib.machinery.PathFinder.find_spec(fullname, path)
            if found is None or not found.origin or _Path(found.origin).resolve().parent.parent != _checkout:
                return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        module = importlib.import_module(f"patchkit.{spec.name}")
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module) -> None:  # already executed under its patchkit name; keep its own spec
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)


if (_checkout / "pyproject.toml").is_file() and (_checkout / "patches" / "__init__.py").is_file():
    __path__.append(str(_checkout))  # type: ignore[name-defined]
    if not any(isinstance(f, _CheckoutAlias) for f in _sys.meta_path):
        _sys.meta_path.insert(0, _CheckoutAlias())
