"""patchkit: carry patches on top of upstream releases, and prove they are safe to launch."""
from __future__ import annotations

from pathlib import Path as _Path

__version__ = "0.1.0"

# In a source checkout the built-in patches, checks and fixtures live beside this package
# (top-level ``patches/``, ``checks/``, ``fixtures/``); an installed wheel maps them to
# ``patchkit.patches`` etc. Adding the checkout root to our search path gives one import
# name for both layouts without claiming generic top-level names in site-packages.
_checkout = _Path(__file__).resolve().parent.parent
if (_checkout / "pyproject.toml").is_file() and (_checkout / "patches" / "__init__.py").is_file():
    __path__.append(str(_checkout))  # type: ignore[name-defined]
