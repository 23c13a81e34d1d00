"""Modules of the analysed tree: parsing, imports, and resolving a class name to its
definition in another module of the same root (so ``EAGLEWorkerV2(BaseSpecWorker)`` sees
``BaseSpecWorker`` in ``base_spec_worker.py``) without importing anything."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

from .classindex import header_tokens, tokens_of
from .external import external_module, top_level_present
from .lazyexports import lazy_class
from .localclasses import local_classes
from .library import classify_external, known_without_source
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
    #: module names not in the tree that may be read from the environment
    _ext_ok: set = field(default_factory=set)

    def add_source(self, rel: str, source: str) -> ModuleInfo:
        name = module_name_for(rel)
        known = self._mods.get(name)
        if known is not None and known.source == source:
            return known  # already parsed as another file's dependency
        tree = ast.parse(source, filename=rel)
        mod = build_module(name, rel, tree, source, is_package=rel.endswith("__init__.py"))
        self._mods[name] = mod
        self.__dict__.setdefault("_added", {})[rel] = mod
        return mod

    def module(self, name: str, external: bool = True) -> Optional[ModuleInfo]:
        """The module ``name`` of the tree (or overlay); with ``external``, else the library module
        of that name read from the environment."""
        if name in self._mods:
            m = self._mods[name]
            if m is not None:
                self.touched.add(m.rel)
            elif external and name in self._ext_ok:
                return external_module(name)
            return m
        self._mods[name] = None  # cycle guard
        mod = None
        found = self._source(name)
        if found is not None:
            rel, text = found
            try:
                tree = ast.parse(text, filename=rel)
            except SyntaxError:
                tree = None
            if tree is not None:
                self.deps[rel] = text
                self.touched.add(rel)
                mod = build_module(name, rel, tree, text, is_package=rel.endswith("__init__.py"))
        if mod is None and self.root is not None and name.startswith(self.root.name + ".") and \
                not (self.root / self.root.name).exists():
            # the root is itself a namespace package (no __init__.py) its files import by its own
            # name (``ns/sub.py``: ``from ns.base import Base``): ``ns.base`` is the root's ``base``
            mod = self.module(name[len(self.root.name) + 1:], external=False)
        self._mods[name] = mod
        if mod is None and self._may_be_external(name):
            self._ext_ok.add(name)
            return external_module(name) if external else None
        return mod

    def module_text(self, name: str) -> Optional[str]:
        """The text :meth:`module` would parse for the tree module ``name`` (None when the tree
        has no such file), read without parsing it and recorded as a dependency the same way: a
        cheap look before a parse that a word missing from the text makes pointless."""
        m = self._mods.get(name)
        if m is not None:
            self.touched.add(m.rel)
            return m.source
        found = self._source(name)
        if found is not None:
            self.deps[found[0]] = found[1]
            self.touched.add(found[0])
            return found[1]
        if name in self._mods or self.root is None or not name.startswith(self.root.name + ".") or \
                (self.root / self.root.name).exists():
            return None
        return self.module_text(name[len(self.root.name) + 1:])  # a namespace root (see module)

    def _source(self, name: str) -> Optional[tuple[str, str]]:
        """(rel, text) of the tree's (or overlay's) file for module ``name``: ``name.py``, else
        ``name/__init__.py``; None when neither can be read."""
        for rel in (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"):
            text = self.overlay.get(rel)
            if text is None and self.root is not None:
                p = self.root / rel
                if p.is_file():
                    try:
                        text = p.read_text(encoding="utf-8-sig", errors="replace")
                    except OSError:
                        text = None
            if text is not None:
                return rel, text
        return None

    def lines_of(self, rel: str) -> list[str]:
        """The source lines of the tree module at ``rel`` parsed so far (empty when none)."""
        m = self.__dict__.get("_added", {}).get(rel) or self._mods.get(module_name_for(rel))
        return m.lines if m is not None and m.rel == rel else []

    def _may_be_external(self, name: str) -> bool:
        """A module outside the tree may be read from the environment: not one of the tree's own
        top-level packages (a missing file there is a missing file, not a library)."""
        top = name.split(".")[0]
        if top in self.__dict__.setdefault("_own_tops", set()):
            return False
        if self.root is not None and ((self.root / top).is_dir() or (self.root / f"{top}.py").is_file()):
            self._own_tops.add(top)
            return False
        return not any(r.split("/")[0] == top for r in self.overlay)

    def resolve_class(self, mod: ModuleInfo, dotted: str, depth: int = 0) -> Optional[ClassInfo] | str:
        """A class name as written in ``mod`` -> its ClassInfo, or the imported qualified name
        (``torch.nn.Module``) when it lies outside the analysed tree."""
        if depth > 6:
            return dotted
        head, _, rest = dotted.partition(".")
        if head in mod.fallbacks:
            # a stand-in defined when the real class cannot be imported: the real one is the base
            return self._resolve_qualified(mod.imports[head] + (f".{rest}" if rest else ""), depth + 1) \
                if head in mod.imports else dotted
        if not rest and head in mod.classes:
            return mod.classes[head]
        if head in mod.classes and rest:
            c = mod.classes.get(dotted)
            return c if c else dotted
        if head in mod.imports:
            target = mod.imports[head]  # fully qualified: module or module.attr
            alt = self.fallback_import(mod, head, rest)
            if alt is not None:
                target = alt  # the try: import cannot succeed here: its except: import is what runs
            full = f"{target}.{rest}" if rest else target
            return self._resolve_qualified(full, depth + 1)
        if head in mod.aliases:  # ``Alias = Base`` at the top level
            return self.resolve_class(mod, mod.aliases[head] + (f".{rest}" if rest else ""), depth + 1)
        for star in mod.star_imports:  # a name brought in by ``from x import *``
            r = self._resolve_qualified(f"{star}.{dotted}", depth + 1)
            if isinstance(r, ClassInfo):
                return r
        if mod.star_imports and not rest and classify_external(dotted).kind in ("module", "field", "thread"):
            # a bare ``Module`` that only a star import can have brought: the library it came from
            # decides what it is (tsai's ``from fastai.torch_core import *`` gives fastai's Module,
            # whose metaclass runs nn.Module.__init__ itself)
            origin = self._star_origin(mod, dotted, set())
            if origin and classify_external(origin).kind != classify_external(dotted).kind:
                return origin
        return dotted

    def fallback_import(self, mod: ModuleInfo, head: str, rest: str = "") -> Optional[str]:
        """The qualified name ``head`` has in ``mod`` when its ``try:`` import fails here and an
        ``except`` handler imports it from the tree instead (``try: from fast_impl import Engine /
        except ImportError: from .engine import Engine`` where no ``fast_impl`` is installed), else None.
        A base the ``try:`` names that the analyzer knows without its source (``torch.nn.Module``:
        library.known_without_source of ``head`` + ``rest``) stays that base: the fallback is a mock
        for machines without the library (autots' ``tools.mocks.Module``), not the code its users run."""
        alt = mod.except_imports.get(head)
        target = mod.imports.get(head)
        if alt is None or target is None or alt == target or self._in_tree(target.split(".")[0]):
            return None
        if top_level_present(target) or not self._in_tree(alt.split(".")[0]):
            return None
        return None if known_without_source(f"{target}.{rest}" if rest else target) else alt

    def _star_origin(self, mod: ModuleInfo, name: str, seen: set) -> Optional[str]:
        """``lib.module.name`` for the module outside the tree that ``mod``'s star imports (the last
        first, as the last binding wins; followed through the tree's own star-importing modules)
        bring ``name`` from, or None."""
        for star in reversed(mod.star_imports):
            if star in seen:
                continue
            seen.add(star)
            m = self.module(star, external=False)
            if m is None:
                return f"{star}.{name}"
            got = self._star_origin(m, name, seen)
            if got:
                return got
        return None

    def _resolve_qualified(self, full: str, depth: int) -> Optional[ClassInfo] | str:
        """``pkg.mod.Cls`` -> its ClassInfo, or the name when it lies outside the tree. Memoised per
        name (a name in progress counts as unresolved): chains of ``from x import *`` re-exports
        (nltk 2.0's packages star-import each other) made the search exponential."""
        memo = self.__dict__.setdefault("_rq_memo", {})
        hit = memo.get(full)
        if hit is not None:
            self.touched |= hit[1]  # the modules it was resolved through: the file's result depends on them
            return hit[0]
        memo[full] = (full, frozenset())
        outer, self.touched = self.touched, set()
        try:
            got = self._resolve_qualified_uncached(full, depth)
        finally:
            inner, self.touched = self.touched, outer | self.touched
        memo[full] = (got, frozenset(inner))
        return got

    def _resolve_qualified_uncached(self, full: str, depth: int) -> Optional[ClassInfo] | str:
        if depth > 8:
            return full
        parts = full.split(".")
        for i in range(len(parts) - 1, 0, -1):
            modname, attr = ".".join(parts[:i]), ".".join(parts[i:])
            if classify_external(full).kind != "unknown" and not self._in_tree(modname):
                return full  # a library base the analyzer knows by kind (nn.Module, Exception, Thread)
            m = self.module(modname)
            if m is None:
                continue
            if attr in m.classes:
                return m.classes[attr]
            head = attr.split(".")[0]
            if head in m.imports or head in m.aliases:
                return self.resolve_class(m, attr, depth + 1)
            for star in (m.star_imports if "." not in attr else ()):  # ``from .modules import *`` re-exports
                # (its top-level names only: ``timit.util.X`` is no star name of ``timit``, and following
                # it made names grow without end through nltk 2.0's implicit relative star imports)
                r = self._resolve_qualified(f"{star}.{attr}", depth + 1)
                if isinstance(r, ClassInfo):
                    return r
            return lazy_class(self, m, attr) or full  # a package's PEP 562 ``__getattr__`` table
        return full

    def _in_tree(self, modname: str) -> bool:
        rel = modname.replace(".", "/")
        return any(r in self.overlay for r in (rel + ".py", rel + "/__init__.py")) or (
            self.root is not None and ((self.root / (rel + ".py")).is_file() or (self.root / rel / "__init__.py").is_file()))

    def resolve_function(self, mod: ModuleInfo, dotted: str) -> Optional[tuple[ModuleInfo, ast.FunctionDef]]:
        """A module-level function as written in ``mod``, if it lies in the analysed tree."""
        if dotted in mod.functions:
            return mod, mod.functions[dotted]
        head, _, rest = dotted.partition(".")
        if head in mod.imports:
            full = mod.imports[head] + (f".{rest}" if rest else "")
            parts = full.split(".")
            for i in range(len(parts) - 1, 0, -1):
                m = self.module(".".join(parts[:i]), external=False)
                if m is not None:  # a function of the tree (its body can be read)
                    fn = m.functions.get(".".join(parts[i:]))
                    return (m, fn) if fn is not None else None
        return None

    # ------------------------------------------------------------------ the class index
    def subclasses(self, ci: ClassInfo) -> list[ClassInfo]:
        """The classes of the whole tree (not only the files being reported) whose direct bases
        include ``ci``: the reverse edges of the class graph. Files are found by a textual scan of
        their class headers, then parsed and resolved; a file that only mentions the name in a
        comment costs one parse."""
        idx = self.__dict__.setdefault("_sub_index", {})
        top = ci.module.name.split(".")[0]
        tokens = idx.get(top)
        if tokens is None:
            tokens = idx[top] = self._header_tokens(top)
        name = ci.qualname.split(".")[-1]
        out: list[ClassInfo] = []
        for rel in sorted(tokens.get(name, ())):
            if rel != ci.module.rel and not self._may_import(rel, name):
                continue
            m = self.module(module_name_for(rel), external=False)
            if m is None:
                continue
            for c in m.classes.values():
                if c.key != ci.key and any(self._is(self._base_of(m, c, b), ci) for b in c.bases):
                    out.append(c)
            for c in local_classes(m):  # a factory function's subclass: see local_subclass
                if self._local_subclass(m, c, ci):
                    out.append(c)
        return out

    def _base_of(self, m: ModuleInfo, c: ClassInfo, base: str):
        """``base`` as ``c``'s class statement means it: a sibling in the enclosing class body first
        (``class utc_timezone(fixed_timezone)`` inside ``DateTimeType``, as classmodel's MRO reads it)."""
        parent = c.qualname.rpartition(".")[0]
        if parent and parent in m.classes:
            nested = m.classes.get(f"{parent}.{base}")
            if nested is not None and nested.key != c.key:
                return nested
        return self.resolve_class(m, base)

    def _local_subclass(self, m: ModuleInfo, c: ClassInfo, ci: ClassInfo) -> bool:
        """``c``, defined in a function of ``m``, completes ``ci`` for the analyzer when every base
        is a class of the tree (not the factory's parameter, ``class Policy(ClipGradients, base)``,
        nor a library the analyzer may not read), it is not named as a stand-in (``FakeHandler``),
        and the tree uses ``ci`` only by subclassing it: a base built or handed on by name is used
        as it stands, whatever a helper's local subclass adds."""
        from .classuses import used_beyond_subclassing
        from .severity import _STAND_IN
        got = [self.resolve_class(m, b) for b in c.bases]
        return any(self._is(r, ci) for r in got) and all(isinstance(r, ClassInfo) for r in got) and \
            not _STAND_IN.match(c.qualname.split(".")[-1]) and not used_beyond_subclassing(self, ci)

    def _may_import(self, rel: str, name: str) -> bool:
        """A file that subclasses ``name`` from another module imports it (the name appears again
        besides the class header) or reaches it as ``module.name``: checked on the text before
        paying for a parse."""
        mod = self._mods.get(module_name_for(rel))
        text = mod.source if mod is not None else self.overlay.get(rel)
        if text is None and self.root is not None:
            try:
                text = (self.root / rel).read_text(encoding="utf-8-sig", errors="replace")
            except OSError:
                return False
        # or imports it under another name (``import Base as _B``, the header naming only ``_B``)
        return text is not None and (text.count(name) >= 2 or f".{name}" in text or
                                     re.search(r"\b%s\s+as\s" % name, text) is not None)

    @staticmethod
    def _is(r, ci: ClassInfo) -> bool:
        return isinstance(r, ClassInfo) and r.key == ci.key

    def _header_tokens(self, top: str) -> dict[str, set[str]]:
        """identifier -> rel paths of files under ``top`` with a class header that names it (the
        tree on disk from the shared class index, with the overlay and in-memory sources on top)."""
        per_rel: dict[str, list[str]] = dict(header_tokens(self.root, top)) if self.root is not None else {}
        for m in self.__dict__.get("_added", {}).values():  # sources given in memory
            if m.name.split(".")[0] == top:
                per_rel[m.rel] = tokens_of(m.source)
        for rel, text in self.overlay.items():
            if module_name_for(rel).split(".")[0] == top:
                per_rel[rel] = tokens_of(text)
        out: dict[str, set[str]] = {}
        for rel, toks in per_rel.items():
            for tok in toks:
                out.setdefault(tok, set()).add(rel)
        return out
