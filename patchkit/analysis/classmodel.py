"""The class model (mypy's calculate_mro over the whole build): each class's bases resolved
across the tree and the environment, its C3 MRO, and the facts the judge needs about it (class-
level names, fields, what library bases provide, whether it is open); plus the reverse edges
(subclasses anywhere in the tree)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional

from .library import (EXC_ATTRS, FIELD_BASE_ATTRS, OBJECT_ATTRS, THREAD_ATTRS, TORCH_MODULE_ATTRS, External,
                      classify_external, builtin_passes_on)
from .model import FIELD_DUNDERS, ClassInfo
from .instances import new_assigns, new_copies_dict, runtime_base
from .newcalls import new_call_stores
from .initsubclass import init_subclass_stores
from .keyed import resolve_keyed
from .scan import ensure_scanned
from .classbody import with_metaclass_call
from .listed import listed_names
from .openness import decorator_names, decorator_verdicts, listed_class_names, metaclass_names, open_reason


@dataclass
class ClassFacts:
    linear: list
    classes: list[ClassInfo]
    externals: list[External]
    class_level: set[str] = field(default_factory=set)
    provided: frozenset = frozenset()
    fields: set[str] = field(default_factory=set)
    field_class: bool = False
    unknown_base: Optional[str] = None
    skip: Optional[str] = None
    dynamic: Optional[str] = None
    #: (class, method) of computed stores over a class-level list this MRO cannot read (listed.py):
    #: dynamic through those methods, as ``ClassInfo.dynamic_in`` records the others
    listed_dynamic: list = field(default_factory=list)
    dyn_patterns: list = field(default_factory=list)
    #: why attributes may come from code not in view (openness.py); None: closed
    open: Optional[str] = None
    #: annotation-only attributes of an abstract class in the MRO (a contract its subclasses fulfil)
    contracts: frozenset = frozenset()


class ClassModel:
    """Mixin of Analyzer: bases, MRO, class facts and subclasses (``self.project``,
    ``self._facts``, ``self._subclasses`` come from the Analyzer)."""

    # ------------------------------------------------------------------ MRO
    def resolve_base(self, ci: ClassInfo, base: str):
        parent, _, _ = ci.qualname.rpartition(".")
        head, _, rest = base.partition(".")
        if parent in ci.module.classes and f"{parent}.{head}" in ci.module.classes:
            # a class statement in a class body evaluates its bases in that body: `class Mask: class
            # Mixin: ...; class Sync(Mixin, TestCase)` means Mask.Mixin (only the immediate parent's names)
            nested = ci.module.classes.get(f"{parent}.{base}")
            if nested is not None and nested.key != ci.key:
                return nested
        r = self.project.resolve_class(ci.module, base)
        if isinstance(r, ClassInfo) and r.key == ci.key:
            # `class X(X):` — the base expression runs before the new name is bound: the import
            head = base.split(".")[0]
            if head in ci.module.imports:
                full = ci.module.imports[head] + base[len(head):]
                r = self.project._resolve_qualified(full, 1)
            else:
                r = base
        if isinstance(r, ClassInfo):
            return r
        return classify_external(r or base)

    def direct_bases(self, ci: ClassInfo) -> list:
        return [self.resolve_base(ci, b) for b in ci.bases] or [External("object", "ordinary")]

    def mro(self, ci: ClassInfo, seen: Optional[set] = None) -> list:
        seen = seen or set()
        if ci.key in seen:
            return [ci]
        seen = seen | {ci.key}
        seqs = []
        for b in self.direct_bases(ci):
            # a library class's own MRO is unknown but ends in object, which C3 must not take
            # before it (``class LLM(abc.ABC)`` beside an initless ``class WeightCached:``)
            seqs.append(self.mro(b, seen) if isinstance(b, ClassInfo) else
                        [b] if b.name == "object" else [b, External("object", "ordinary")])
        bases = self.direct_bases(ci)
        return [ci] + _c3(seqs + [bases])

    def facts(self, ci: ClassInfo) -> ClassFacts:
        if ci.key in self._facts:
            return self._facts[ci.key]
        mro = self.mro(ci)
        classes = [ensure_scanned(c) for c in mro if isinstance(c, ClassInfo)]
        if any(c.keyed_stores for c in classes):
            from .injection import _index_for
            resolve_keyed(classes, _index_for(self.project, classes[0]).naming)
        externals = [c for c in mro if isinstance(c, External)]
        f = ClassFacts(mro, classes, externals)
        provided = set(OBJECT_ATTRS)
        for c in classes:
            f.class_level |= c.class_names
            if c.node.decorator_list and not c.module.external:
                f.class_level |= decorator_names(c)
                for _name, keeps, names in decorator_verdicts(c, self.project.resolve_function, self.project.resolve_class):
                    f.class_level |= names
            if c.node.keywords or not c.module.external and (c.node.decorator_list or
                                                              any(with_metaclass_call(b) for b in c.node.bases)):
                f.class_level |= listed_class_names(metaclass_names(c, self.project.resolve_class), classes,
                                                    classes.index(c))[0]
            f.dyn_patterns += c.dyn_patterns
            if c.dynamic and not f.dynamic:
                f.dynamic = f"{c.qualname} {c.dynamic}"
            if c.field_kind and c.field_init:
                f.field_class = True
                f.fields |= c.fields
            if c.field_kind:  # what @dataclass / attrs put on the class (cyclopts' App reads __attrs_attrs__)
                f.class_level |= FIELD_DUNDERS[c.field_kind]
        for c in classes[1:]:  # an ancestor's __init_subclass__ sets class attributes at class creation
            f.class_level |= init_subclass_stores(c)
        f.class_level -= slot_shadowed(classes)
        for c in classes:
            if "__new__" in c.methods:
                provided |= new_assigns(c.methods["__new__"])
                line = new_copies_dict(c.methods["__new__"])
                if line is not None and not f.dynamic:
                    f.dynamic = f"{c.qualname}.__new__ copies another object's attributes (line {line})"
        first_new = next((c.methods["__new__"] for c in classes if "__new__" in c.methods), None)
        if isinstance(first_new, ast.FunctionDef):  # the __new__ the instance runs: what it calls on it
            provided |= new_call_stores(first_new, classes)
        if f.unknown_base is None:
            f.unknown_base = runtime_base(classes, self.project.resolve_class)
        for e in externals:
            if e.kind == "module":
                provided |= TORCH_MODULE_ATTRS
            elif e.kind == "exception":
                provided |= EXC_ATTRS
            elif e.kind == "thread":
                provided |= THREAD_ATTRS
            elif e.kind == "field":
                provided |= FIELD_BASE_ATTRS
                f.field_class = True
                for c in classes:
                    f.fields |= c.fields
            elif e.kind == "closed":
                provided |= e.provides
            elif e.kind == "skip":
                f.skip = f"subclasses {e.name}"
            elif e.kind == "unknown" and f.unknown_base is None:
                f.unknown_base = e.name
        for c in classes:  # setattr(self, key, v) for a key of a class-level list: those names (listed.py)
            for mname, line, holder in c.attr_listed:
                names = listed_names(classes, holder)
                if names is not None:
                    provided |= names
                else:
                    f.listed_dynamic.append((c, mname))
                    if not f.dynamic:
                        f.dynamic = f"{c.qualname} setattr(self, <non-literal>) in {mname} at line {line}"
        f.provided = frozenset(provided)
        f.open = open_reason(classes, self.project.resolve_function, self.project.resolve_class)
        abstract = [c for c in classes if c.abstract or any(b.split(".")[-1] in ("ABC", "Protocol") for b in c.bases)]
        f.contracts = frozenset().union(*(c.annotated_only for c in abstract)) if abstract else frozenset()
        self._facts[ci.key] = f
        return f

    def resolve_method(self, mro: list, name: str, after: Optional[ClassInfo] = None, inclusive: bool = False):
        """(class, fn, kind) of ``name`` along ``mro``, starting after ``after`` (super())."""
        started = after is None
        for i, c in enumerate(mro):
            if not started:
                if c.key == after.key:  # a library class too: super(nn.Module, self)
                    started = True
                    if not inclusive:
                        continue
                else:
                    continue
            if isinstance(c, External):
                if c.kind == "module" and not name.startswith("__") and name not in TORCH_MODULE_ATTRS:
                    continue  # nn.Module has no such method: a later base's runs (nequip's GraphModuleMixin)
                if c.kind == "unknown" and not name.startswith("__") and \
                        any(isinstance(x, ClassInfo) and not x.module.external and name in x.methods for x in mro[i + 1:]):
                    continue  # a helper a mixin of the tree defines further on (nemo's ASRBPEMixin._setup_tokenizer
                    # behind LightningModule): the library class would shadow it only by accident
                if c.kind == "closed" and builtin_passes_on(c.name, name):
                    continue  # ``str`` has no ``__init__`` of its own: ``super().__init__()`` in
                    # ``String(str, Item)`` runs ``Item.__init__`` (tomlkit's ``String``, vendored by pipenv)
                if c.kind in ("unknown", "module", "thread", "exception", "field", "skip", "closed"):
                    return None
                continue
            if name in c.methods:
                return c, c.methods[name], c.method_kind.get(name, "method")
            if name in c.class_names:
                return None
        return None

    def _direct_subclasses(self, ci: ClassInfo) -> list[ClassInfo]:
        """Direct subclasses of ``ci`` anywhere in the tree (the class index), plus those in the
        modules being reported."""
        got = self._subclasses.get(ci.key)
        if got is None:
            got = self._subclasses[ci.key] = [] if ci.module.external else self.project.subclasses(ci)
        return got

    def _descendants(self, ci: ClassInfo) -> list[ClassInfo]:
        """Every subclass of ``ci`` in the tree, once per class; memoised (sqlglot's ``Expression``
        has hundreds, and a list membership test compared whole dataclasses)."""
        memo = self.__dict__.setdefault("_descendants_memo", {})
        got = memo.get(ci.key)
        if got is None:
            got, seen, todo = [], set(), list(self._direct_subclasses(ci))
            while todo:
                c = todo.pop()
                if c.key not in seen:
                    seen.add(c.key)
                    got.append(c)
                    todo += self._direct_subclasses(c)
            memo[ci.key] = got
        return got

    def _cls_by_name(self, ci: ClassInfo, qualname: str) -> ClassInfo:
        return next(c for c in self.facts(ci).classes if c.qualname == qualname)

    def _raising_template(self, ci: ClassInfo) -> bool:
        """``ci`` is a template in practice: a method of its MRO only raises NotImplementedError (no
        class before it implements it) and a subclass in the tree implements it (matplotlib's
        ``Colormap._init``; ``__call__`` reads the ``_lut`` that every subclass's ``_init`` builds).
        A concrete class with an unsupported path that raises is not one: nothing overrides it."""
        f = self.facts(ci)
        hooks: set[str] = set()
        for i, c in enumerate(f.classes):
            for name in c.raising_methods:
                if not any(name in d.methods and name not in d.raising_methods for d in f.classes[:i]):
                    hooks.add(name)
        if not hooks:
            return False
        return any(n in d.methods and n not in d.raising_methods for d in self._descendants(ci) for n in hooks)

    def _descendant_provides(self, ci: ClassInfo, attr: str) -> bool:
        """Some subclass of ``ci`` (anywhere in the tree) assigns ``attr`` or declares it, or
        cannot be fully known (a base outside the tree)."""
        for d in self._descendants(ci):
            df = self.facts(d)
            if df.unknown_base or attr in df.class_level or attr in df.fields or \
                    any(attr in ensure_scanned(k).assigned_in for k in df.classes):
                return True
        return False

    # ------------------------------------------------------------ siblings: what other subclasses of a base do
    def _sibling_assigning(self, owner: ClassInfo, mname: str, ci: ClassInfo, attr: str) -> Optional[str]:
        """Another subclass of ``owner`` (not in ``ci``'s MRO) that assigns ``attr`` itself and
        calls ``self.<mname>()``, while no class of ``ci``'s MRO refers to ``mname``: the base
        method is reached only through that sibling (a wrong-class assignment, where nothing
        calls the method through a sibling, stays an error)."""
        mine = self.facts(ci).classes
        if any(mname in refs for c in mine for m, refs in ensure_scanned(c).self_refs.items() if m != mname):
            return None
        keys = {c.key for c in mine}
        # a base without an initialiser (a mixin) is written for its hosts: a host whose own
        # methods set the attribute as instance state is enough, whoever calls the method on it
        # (diffusers' processors call attn.get_attention_scores(...) on hosts that set attn.scale).
        # Not for a name the hosts define as a method: that is the mixin's contract
        # (DataCollatorMixin.__call__ dispatching to a numpy_call the subclass lacks).
        mixin = "__init__" not in owner.methods
        for d in self._descendants(owner):
            if d.key in keys:
                continue
            ensure_scanned(d)
            if (attr in d.assigned_in or attr in d.class_names) and any(mname in refs for refs in d.self_refs.values()):
                return d.qualname
            if mixin and attr in d.assigned_in and attr not in d.class_names:
                return d.qualname
        return None

    def _sibling_method(self, owner: ClassInfo, ci: ClassInfo, attr: str) -> Optional[str]:
        """A subclass of ``owner`` outside ``ci``'s MRO that defines ``attr`` as a method (``def``)."""
        keys = {c.key for c in self.facts(ci).classes}
        for d in self._descendants(owner):
            if d.key not in keys and attr in d.methods:
                return d.qualname
        return None

    def _only_overridden_callers(self, f: ClassFacts, c: ClassInfo, mname: str) -> Optional[str]:
        """When every caller of ``self.<mname>`` among ``c``'s methods is overridden by a class
        before ``c`` in the MRO (``f.classes``), or is itself such a dead helper: the overridden
        entry points (names), else None. None when nothing in ``c`` calls it."""
        before = f.classes[:f.classes.index(c)] if c in f.classes else []
        refs = ensure_scanned(c).self_refs
        entries: set[str] = set()

        def dead(m: str, seen: frozenset) -> bool:
            callers = [k for k, r in refs.items() if m in r and k != m]
            if not callers or m in seen:
                return bool(callers)
            for k in callers:
                if any(k in b.methods for b in before):
                    entries.add(k)
                elif not dead(k, seen | {m}):
                    return False
            return True
        if dead(mname, frozenset()) and entries:
            return ", ".join(f"{c.qualname.split('.')[-1]}.{m}" for m in sorted(entries)[:3])
        return None

    def _dispatch_guard(self, owner: ClassInfo, ci: ClassInfo, attr: str, conds) -> Optional[str]:
        """The read sits under a test of a class-level selector against a constant (``if self.kind
        == ScorerKind.ENSEMBLE``, or after ``if self.kind != X: return``), and another subclass of
        ``owner`` has the attribute: the base dispatches on the kind, and the attribute belongs to
        the kinds that have it (mlflow's Scorer._create_copy). Why, or None."""
        names = set()
        for c in self.facts(ci).classes:
            names |= set(c.methods) | set(c.class_names) | set(c.assigned_in) | set(c.annotated_only) | set(c.fields)
        keys = {c.key for c in self.facts(ci).classes}
        for key, pol in conds:
            m = _SELECTOR.match(key)
            if not m or m.group(1) not in names or (m.group(2) in ("==", "is", "in")) != bool(pol):
                continue
            for d in self._descendants(owner):
                if d.key not in keys and (attr in ensure_scanned(d).assigned_in or attr in d.class_names
                                          or attr in d.fields or attr in d.annotated_only):
                    return (f"read only when {m.group(1)} {'in' if m.group(2) == 'in' else '=='} {m.group(3)} "
                            f"({owner.qualname} dispatches on it); {d.qualname}, another subclass, has it")
        return None


#: ``kind == ScorerKind.ENSEMBLE`` / ``mode is Mode.X`` / ``key_type != "rsa"``: a selector (``self.``
#: already stripped) against a constant
_SELECTOR = re.compile(r"^([A-Za-z_]\w*) (==|!=|is not|is|in) ((?:[A-Za-z_][\w]*\.)+[A-Za-z_]\w*|'[^']*'|\"[^\"]*\"|-?\d+|"
                       r"\((?:(?:[A-Za-z_][\w]*\.)+[A-Za-z_]\w*(?:, )?)+\))$")


def _c3(seqs: list[list]) -> list:
    out: list = []
    seqs = [list(s) for s in seqs if s]
    keyf = lambda c: c.key  # noqa: E731
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(keyf(head) in [keyf(x) for x in t[1:]] for t in seqs):
                break
        else:  # inconsistent: fall back to depth-first order
            head = seqs[0][0]
        out.append(head)
        seqs = [[x for x in t if keyf(x) != keyf(head)] for t in seqs]
        seqs = [t for t in seqs if t]
    return out


def _unimplemented_abstract(classes: list[ClassInfo]) -> set[str]:
    """Abstract methods of the MRO that no class before their declarer implements."""
    out: set[str] = set()
    for i, c in enumerate(classes):
        for name in c.abstract_methods:
            if not any(name in d.methods and name not in d.abstract_methods for d in classes[:i]):
                out.add(name)
    return out


def _has_explicit_init(ci: ClassInfo) -> bool:
    return "__init__" in ci.methods


def generated_fields(classes: list, fields: frozenset, init) -> frozenset:
    """The fields a generated ``__init__`` (dataclass, attrs ...) has set when construction starts:
    none when the ``__init__`` that runs is an explicit one of a plain class before every field class
    of the MRO and it calls no ``__init__`` at all (``super().__init__``, ``Base.__init__``), so the
    generated one never runs (a subclass of a dataclass with its own ``__init__``); else all of them
    (an explicit ``__init__`` that chains may reach the generated one)."""
    if not fields or init is None:
        return fields
    owner, fn = init[0], init[1]
    if owner.field_kind or owner not in classes:
        return fields
    first_field = next((i for i, c in enumerate(classes) if c.field_kind and c.field_init), None)
    if first_field is None or classes.index(owner) > first_field:
        return fields
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and n.attr == "__init__":
            return fields
    return frozenset()


def slot_shadowed(classes: list) -> set:
    """Slot names whose class-level values the instance does not see: the first class of the MRO that
    defines the name decides. A slot of a subclass hides a base's class attribute (the member
    descriptor comes first); a subclass's class attribute hides a base's slot (bentoml's JSON sets
    ``_mime_type = "application/json"`` over IODescriptor's ``__slots__``)."""
    valued: set = set()
    out: set = set()
    for c in classes:
        out |= c.slots - valued
        valued |= c.class_names
    return out
