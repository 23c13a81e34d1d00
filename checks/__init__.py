"""Built-in checks: one module per check, each exposing ``CHECK`` with its own examples."""

if __name__ != "patchkit.checks":  # imported as top-level 'checks' from a checkout: be patchkit.checks (one module)
    import importlib as _importlib
    import sys as _sys
    _sys.modules[__name__] = _importlib.import_module("patchkit.checks")
