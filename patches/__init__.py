"""Built-in patches: one sub-package per patch, each exposing ``PATCH``."""

if __name__ != "patchkit.patches":  # imported as top-level 'patches' from a checkout: be patchkit.patches (one module)
    import importlib as _importlib
    import sys as _sys
    _sys.modules[__name__] = _importlib.import_module("patchkit.patches")
