"""Modules of the analysed tree: parsing, imports, and resolving a class name to its
definition in another module of the same root (so ``EAGLEWorkerV2(BaseSpecWorker)`` sees
``BaseSpecWorker`` in ``base_spec_worker.py``) without importing anything."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

from .model import ClassInfo, ModuleInfo, build_module


def module_name_for(rel: str) -> str:
    """``sglang/srt/x.py`` -> ``sglang.srt.x``; ``pkg/__init__.py`` -> ``pkg``."""
    parts = rel.replace("\\", "/").removesuffix(".py").split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(p for p in parts if p)


@dataclass
class Project:
    """A root folder (may be None: single-file analysis) plus in-memory overlays of edited files."""

    root: Optional[Path] = None
    overlay: Mapping[str, str] = field(default_factory=dict)
    _mods: dict[str, Optional[ModuleInfo]] = field(default_factory=dict)
    #: files (rel path -> text) read to resolve other modules, for cache keys
    deps: dict[str, str] = field(default_factory=dict)
    #: rel paths of the modules looked up since the last reset (what one file's result depends on)
    touched: set = field(default_factory=set)

    def add_source(self, rel: str, source: str) -> ModuleInfo:
        name = module_name_for(rel)
        known = self._mods.get(name)
        if known is not None and known.source == source:
            return known  # already parsed as another file's dependency
        tree = ast.parse(source, filename=rel)
        mod = build_module(name, rel, tree, source, is_package=rel.endswith("__init__.py"))
        self._mods[name] = mod
        return mod

    def module(self, name: str) -> Optional[ModuleInfo]:
        if name in self._mods:
            m = self._mods[name]
            if m is not None:
                self.touched.add(m.rel)
            return m
        self._mods[name] = None  # cycle guard
        mod = None
        for rel in (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"):
            text = self.overlay.get(rel)
            if text is None and self.root is not None:
                p = self.root / rel
                if p.is_file():
                    try:
                        text = p.read_text(encoding="utf-8", errors="replace")
                    except OSError:
                        text = None
            if text is not None:
                try:
                    tree = ast.parse(text, filename=rel)
                except SyntaxError:
                    break
                self.deps[rel] = text
                self.touched.add(rel)
                mod = build_module(name, rel, tree, text, is_package=rel.endswith("__init__.py"))
                break
        self._mods[name] = mod
        return mod

    def resolve_class(self, mod: ModuleInfo, dotted: str, depth: int = 0) -> Optional[ClassInfo] | str:
        """A class name as written in ``mod`` -> its ClassInfo, or the imported qualified name
        (``torch.nn.Module``) when it lies outside the analysed tree."""
        if depth > 6:
            return dotted
        head, _, rest = dotted.partition(".")
        if not rest and head in mod.classes:
            return mod.classes[head]
        if head in mod.classes and rest:
            c = mod.classes.get(dotted)
            return c if c else dotted
        if head in mod.imports:
            target = mod.imports[head]  # fully qualified: module or module.attr
            full = f"{target}.{rest}" if rest else target
            return self._resolve_qualified(full, depth + 1)
        return dotted

    def _resolve_qualified(self, full: str, depth: int) -> Optional[ClassInfo] | str:
        parts = full.split(".")
        for i in range(len(parts) - 1, 0, -1):
            modname, attr = ".".join(parts[:i]), ".".join(parts[i:])
            m = self.module(modname)
            if m is None:
                continue
            if attr in m.classes:
                return m.classes[attr]
            head = attr.split(".")[0]
            if head in m.imports:
                return self.resolve_class(m, attr, depth + 1)
            return full
        return full

    def resolve_function(self, mod: ModuleInfo, dotted: str) -> Optional[tuple[ModuleInfo, ast.FunctionDef]]:
        """A module-level function as written in ``mod``, if it lies in the analysed tree."""
        if dotted in mod.functions:
            return mod, mod.functions[dotted]
        head, _, rest = dotted.partition(".")
        if head in mod.imports:
            full = mod.imports[head] + (f".{rest}" if rest else "")
            parts = full.split(".")
            for i in range(len(parts) - 1, 0, -1):
                m = self.module(".".join(parts[:i]))
                if m is not None:
                    fn = m.functions.get(".".join(parts[i:]))
                    return (m, fn) if fn is not None else None
        return None
