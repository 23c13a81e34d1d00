"""Run a function on a module right after it is imported (a ``sys.meta_path`` finder that
wraps the real loader), without importing it early or changing anything else."""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from typing import Callable


class AfterImport(importlib.abc.MetaPathFinder):
    def __init__(self, fullname: str, then: Callable):
        self.fullname, self.then = fullname, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.fullname:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        inner, then = spec.loader, self.then

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return inner.create_module(spec)

            def exec_module(self, module):
                inner.exec_module(module)
                then(module)
        spec.loader = Loader()
        return spec


def after_import(fullname: str, then: Callable) -> None:
    sys.meta_path.insert(0, AfterImport(fullname, then))
