"""The classes of an analysed tree, read from its sources once: the files' texts and trees,
where a class is defined, the classes that list a given class among two or more bases (its
mixin hosts), subclasses built at run time by ``type(name, bases, dict)``, and module-level
``name = Cls(...)`` globals. The injection index (``injection.py``) and the mixin and
other-class rules ask it."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

from .astutil import bfs_walk, dotted
from .fastre import Bounded
from .typefactory import classes_passed, factory_subclasses

MAX_FILES = 30000
#: a class statement whose bases hold a comma (two or more bases; keywords too, the AST decides)
_MULTI_BASE = Bounded(r"class\s+\w+\s*\([^)]*,", line_start=True)
_WORD = re.compile(r"[A-Za-z_]\w*")
#: ASCII bytes that are not word characters become spaces; the others (UTF-8 bytes too) stay
_SPLIT = bytes(b if (b >= 0x80 or chr(b).isalnum() or b == 0x5F) else 0x20 for b in range(256))


def _words(text: str) -> frozenset:
    """The UTF-8 bytes of every run of word characters in ``text`` that ``_WORD`` finds: the
    ASCII runs by one byte-table pass; a run with non-ASCII bytes (a non-word character such as
    an arrow may sit inside it) is split by ``_WORD`` itself."""
    got = set(text.encode("utf-8", "surrogatepass").translate(_SPLIT).split())
    odd = [t for t in got if not t.isascii()]
    for t in odd:
        got.discard(t)
        got.update(w.encode("utf-8", "surrogatepass") for w in _WORD.findall(t.decode("utf-8", "surrogatepass")))
    return frozenset(got)


#: a name :meth:`TreeClasses.naming` can look up (``_WORD`` finds it whole wherever ``\\b`` bounds it)
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
#: a three-argument type() call: ``type(name, (Base,), {...})``, ``type(name, bases, dct)``, ``type(base)(...)``
_TYPE_FACTORY = Bounded(r"type\s*\(\s*(?:[^,()]|\([^()]*\))+,\s*(?:\(|\w+\s*,)|type\s*\(\s*[\w.]+\s*\)\s*\(")


class TreeClasses:
    """Per package folder: its sources (read once, at most MAX_FILES) and class-level facts about them."""

    def __init__(self, root: Optional[Path]):
        self.root = root
        self._texts: Optional[dict[str, str]] = None
        self._globals: dict[str, Optional[str]] = {}
        self._parsed: dict[str, Optional[ast.Module]] = {}
        self._class_files: dict[str, list[str]] = {}
        self._hosts: dict[str, list] = {}
        self._multi: Optional[set[str]] = None
        self._multi_by_file: dict[str, list] = {}
        self._type_built: Optional[dict[str, dict[str, str]]] = None
        self._factories: dict[str, frozenset] = {}
        #: rel -> an already parsed tree of that file, or None (set by the project that uses the index)
        self.trees = None

    def texts(self) -> dict[str, str]:
        if self._texts is None:
            self._texts = {}
            if self.root is not None and self.root.is_dir():
                for i, p in enumerate(sorted(self.root.rglob("*.py"))):
                    if i >= MAX_FILES:
                        break
                    try:
                        self._texts[p.relative_to(self.root).as_posix()] = p.read_text(encoding="utf-8-sig", errors="replace")
                    except OSError:
                        continue
        return self._texts

    def naming(self, word: str) -> list[tuple[str, str]]:
        """(rel, text) of the files of :meth:`texts` where ``word`` occurs as a whole word, in that
        order: a superset of those where ``\\bword\\b`` (or a pattern that puts ``word`` between
        non-word characters) matches, from one tokenising pass over the tree instead of one text
        scan per query. A ``word`` that is not an ASCII-led identifier gets every file."""
        texts = self.texts()
        if not _IDENT.fullmatch(word):
            return list(texts.items())
        words = self.__dict__.get("_words")
        if words is None:
            words = self._words = {rel: _words(text) for rel, text in texts.items()}
        key = word.encode()
        return [(rel, texts[rel]) for rel, got in words.items() if key in got]

    def in_folders(self, folders: set) -> list[tuple[str, str]]:
        """(rel, text) of the files directly in one of ``folders`` ("" is the root), in the order of
        :meth:`texts`; grouped once by folder."""
        by = self.__dict__.get("_by_folder")
        if by is None:
            by = self._by_folder = {}
            for i, (rel, text) in enumerate(self.texts().items()):
                by.setdefault(rel.rsplit("/", 1)[0] if "/" in rel else "", []).append((i, rel, text))
        got = [x for f in folders for x in by.get(f, ())]
        return [(rel, text) for _i, rel, text in (sorted(got, key=lambda x: x[0]) if len(folders) > 1 else got)]

    def parsed(self, rel: str) -> Optional[ast.Module]:
        """The tree of ``rel``: the project's own when it has parsed that module already (after
        name mangling, as the attribute names of the findings are), else parsed here once."""
        if rel not in self._parsed:
            known = self.trees(rel) if self.trees is not None else None
            if known is not None:
                self._parsed[rel] = known
                return known
            try:
                self._parsed[rel] = ast.parse(self.texts()[rel])
            except (SyntaxError, ValueError, RecursionError):
                self._parsed[rel] = None
        return self._parsed[rel]

    def hosts(self, short: str) -> list:
        """(file, line, attributes its body assigns on self, its other bases) for every class
        statement of the tree (nested ones too) that lists the class ``short`` (directly or under
        an import alias) among two or more bases."""
        got = self._hosts.get(short)
        if got is not None:
            return got
        got = self._hosts[short] = []
        # a class that lists ``C`` (or an alias imported as ``C as X``) among its bases has the word
        # ``C`` in its file: only those files with a class statement of two or more bases are parsed
        multi = self._multi_base_files()
        for rel, _text in (self.naming(short) if _IDENT.fullmatch(short) else ()):
            if rel not in multi:
                continue
            for line, names, alias, assigned in self._multi_base_classes(rel):
                if not any(short == n or short in alias.get(n, ()) for n in names):
                    continue
                others = [n for n in names if n and n != short and short not in alias.get(n, ())]
                got.append((rel, line, assigned, others))
        got.sort()
        return got

    def _multi_base_files(self) -> set[str]:
        """The files with a class statement of two or more bases (one regex pass)."""
        if self._multi is None:
            self._multi = {rel for rel, text in self.texts().items() if _MULTI_BASE.search(text)}
        return self._multi

    def _multi_base_classes(self, rel: str) -> list:
        """(line, base short names, the file's import aliases, attributes the body assigns on
        self) of every class statement of two or more bases in the file ``rel``."""
        got = self._multi_by_file.get(rel)
        if got is not None:
            return got
        got = self._multi_by_file[rel] = []
        tree = self.parsed(rel)
        if tree is None:
            return got
        alias: dict[str, set] = {}  # `from .jax.trainer import JAXTrainer as Trainer` (one per backend branch)
        classes = []
        for n in bfs_walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    if a.asname:
                        alias.setdefault(a.asname, set()).add(a.name.split(".")[-1])
            elif isinstance(n, ast.ClassDef) and len(n.bases) >= 2:
                classes.append(n)
        for node in classes:
            names = [(dotted(b) or "").split(".")[-1] for b in node.bases]
            assigned = {t.attr for t in ast.walk(node) if isinstance(t, ast.Attribute)
                        and isinstance(t.ctx, ast.Store) and isinstance(t.value, ast.Name) and t.value.id == "self"}
            got.append((node.lineno, names, alias, assigned))
        return got

    def type_built(self, short: str) -> dict[str, str]:
        """attr -> ``path:line`` of a ``type(name, (..., <short>, ...), {attr: ...})`` call in the
        tree (also ``type(base)(...)``, bases or dict bound to a name first, ``dict(attr=...)``):
        a subclass built at run time with ``attr`` as a class attribute (numba's
        ``make_overload_template``). One pass over the few files whose text has such a call."""
        if self._type_built is None:
            self._type_built = {}
            for rel, text in sorted(self.texts().items()):
                if "type" not in text or not _TYPE_FACTORY.search(text):
                    continue
                tree = self.parsed(rel)
                if tree is None:
                    continue
                bound: dict[str, list] = {}  # every value a name is bound to in the file (several functions)
                for n in bfs_walk(tree):
                    if isinstance(n, ast.Assign):
                        for t in n.targets:
                            if isinstance(t, ast.Name):
                                bound.setdefault(t.id, []).append(n.value)
                    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        # a factory's base as a parameter default: ``formset=BaseFormSet`` (django),
                        # ``base=_OverloadAttributeTemplate`` (numba)
                        a = n.args
                        pos = a.posonlyargs + a.args
                        for arg, d in list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + \
                                [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]:
                            bound.setdefault(arg.arg, []).append(d)

                def values(node):
                    return bound.get(node.id, [node]) if isinstance(node, ast.Name) else [node]
                for call in bfs_walk(tree):
                    if not (isinstance(call, ast.Call) and len(call.args) == 3 and _is_type_call(call.func)):
                        continue
                    keys = set().union(*(_dict_keys(d) for d in values(call.args[2])))
                    for bases in values(call.args[1]):
                        if not isinstance(bases, ast.Tuple):
                            continue
                        for elt in bases.elts:
                            for b in values(elt):
                                name = (dotted(b) or "").split(".")[-1]
                                for key in keys:
                                    self._type_built.setdefault(name, {}).setdefault(key, f"{rel}:{call.lineno}")
                # ``new = type(name, (cls,), {}); new.attr = ...`` in a factory handed ``cls`` (motor)
                for name, key, line in factory_subclasses(tree, lambda f, pos, p, rel=rel: classes_passed(
                        self.texts(), self.parsed, f, pos, p, home=rel)):
                    self._type_built.setdefault(name, {}).setdefault(key, f"{rel}:{line}")
        return self._type_built.get(short, {})

    def class_files(self, name: str) -> list[str]:
        """The files with a ``class <name>`` statement."""
        if name not in self._class_files:
            pat = re.compile(rf"^\s*class\s+{re.escape(name)}\b", re.M)
            self._class_files[name] = [r for r, t in self.naming(name) if pat.search(t)]
        return self._class_files[name]

    def factory_attrs(self, owned: str) -> frozenset:
        """``b`` of every ``self.<owned> = self.<b>(...)`` in the tree: the class attributes an
        owner builds its ``self.<owned>`` through (astropy's ``self.header = self.header_class()``)."""
        got = self._factories.get(owned)
        if got is None:
            pat = re.compile(rf"\bself\.{re.escape(owned)}\s*=\s*self\.(\w+)\(")
            needle = f"self.{owned}"
            got = self._factories[owned] = frozenset(m.group(1) for _r, t in self.naming(owned) if needle in t
                                                     for m in pat.finditer(t))
        return got

    def global_ctor(self, name: str) -> Optional[str]:
        """``Cls`` of a module-level ``name = Cls(...)`` anywhere in the tree (an imported global)."""
        if name not in self._globals:
            pat = re.compile(rf"^{re.escape(name)}\s*(?::[^=\n]+)?=\s*([A-Za-z_][\w.]*)\(", re.M)
            self._globals[name] = next((m.group(1).split(".")[-1] for _r, t in self.naming(name)
                                        for m in [pat.search(t)] if m), None)
        return self._globals[name]


def _is_type_call(func: ast.expr) -> bool:
    """``type`` or ``type(base)`` (the metaclass of a base) as the callee."""
    if isinstance(func, ast.Name):
        return func.id == "type"
    return isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type" and len(func.args) == 1


def _dict_keys(node) -> set[str]:
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {kw.arg for kw in node.keywords if kw.arg}
    return set()
