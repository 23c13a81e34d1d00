"""What the injection index means for findings: an error on an attribute that code elsewhere
sets on an instance (``injection.InjectionIndex``), that ``func(self)`` assigns on the instance it
is handed, that a host class mixing this one in may provide, or that a ``type()``-built subclass
has as a class attribute, becomes a warning naming that place (an ordering question, not a hole)."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .methodduck import method_duck_store
from .initsubclass import init_subclass_stores
from .injection import _index_for
from .mixins import stateless_host
from .astutil import decorator_name, dotted, walk
from .fastre import Bounded, called_at


def escape_assigns(project, ci_classes, attr: str) -> Optional[str]:
    """``func(self)`` in a method of the MRO, where ``func`` (in the tree) assigns ``param.attr``
    on the parameter that receives the instance: ``path:line`` of that store, or None."""
    for c in ci_classes:
        if c.module.external:
            continue
        for rel, stores in _escape_stores(project, c):
            line = stores.get(attr)
            if line is not None:
                return f"{rel}:{line}"
    return None


def _escape_stores(project, c) -> list:
    """[(file, {attr: first line})] of the stores each ``func(self)`` call in a method of ``c``
    makes on the parameter that receives the instance (once per class, whatever the attribute)."""
    memo = project.__dict__.setdefault("_escape_stores", {})
    key = id(c)
    if key in memo and memo[key][0] is c:
        return memo[key][1]
    out = []
    for _mname, fn in c.methods.items():
        args = fn.args.posonlyargs + fn.args.args
        if not args:
            continue
        sn = args[0].arg
        for call in walk(fn):
            if not isinstance(call, ast.Call):
                continue
            pos = [i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == sn]
            if not pos or not dotted(call.func):
                continue
            r = project.resolve_function(c.module, dotted(call.func))
            if r is None:
                continue
            mod, target = r[0], r[1]
            params = [a.arg for a in target.args.posonlyargs + target.args.args]
            recv = {params[i] for i in pos if i < len(params)}
            stores: dict[str, int] = {}
            for n in ast.walk(target):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and \
                        isinstance(n.value, ast.Name) and n.value.id in recv:
                    stores.setdefault(n.attr, n.lineno)
            if stores:
                out.append((getattr(mod, "rel", "?"), stores))
    memo[key] = (c, out)
    return out


def demote_injected(an, facts, findings: list) -> list:
    """Error findings (PK001/PK003) on attributes injected from outside become warnings that
    name the store."""
    from dataclasses import replace
    project = an.project

    from ..ftypes import Severity
    todo = [x for x in findings if x.severity == Severity.ERROR and x.code in ("PK001", "PK002", "PK003") and x.attr]
    if not todo:
        return findings
    classes = [c for c in facts.classes if not c.module.external]
    if not classes:
        return findings
    idx = _index_for(project, classes[0])
    names = {c.qualname.split(".")[-1] for c in facts.classes} | {e.name.split(".")[-1] for e in facts.externals}
    torch_module = any(e.kind == "module" for e in facts.externals)
    decorators = {decorator_name(d).split(".")[-1]
                  for c in classes for fn in c.methods.values() for d in fn.decorator_list}
    memo: dict[str, Optional[str]] = {}
    out = []
    template = init_subclass_stores(classes[0])
    own = frozenset(a for c in classes for a in c.assigned_in)

    subs: list = []  # the tree's subclasses of the judged class, once

    def type_built(attr: str) -> Optional[str]:
        w = next((w for c in classes for w in [idx.type_built(c.qualname.split(".")[-1]).get(attr)] if w), None)
        if w:
            return f"{w} builds a subclass with type() that has it as a class attribute"
        # a subclass of a subclass counts too: strictyaml's generic_load builds
        # type("DynamicStrictYAMLLoader", (StrictYAMLLoader,), {"label": label}) over the loader that
        # mixes StrictYAMLScanner in, and the scanner reads self.label. Not for a class the tree also
        # builds by name, and only where the file of the type() call defines the subclass or imports
        # its name (the index matches bases by their last name: yaml.Loader is not our Loader)
        if not subs:
            subs.append(None if _built_by_name(idx, classes[0]) else an._descendants(classes[0])[:DESCENDANTS])
        for d in subs[0] or ():
            w = idx.type_built(d.qualname.split(".")[-1]).get(attr)
            if w and _names_class(idx, w.rsplit(":", 1)[0], d):
                return f"{w} builds a subclass with type() that has it as a class attribute"
        w = idx.derived_store(attr, names)
        return f"{w} sets it on a class a factory makes from this one (a class attribute of the class used)" if w else None

    for x in findings:
        why = None
        if x in todo and x.attr in template:
            why = f"{classes[0].qualname}.__init_subclass__ sets it on every subclass at class creation (the class itself is a template)"
        elif x in todo and x.code == "PK002":
            why = type_built(x.attr)  # read during construction: only a class attribute of type()-built subclasses helps
        elif x in todo:
            if x.attr not in memo:
                where = escape_assigns(project, classes, x.attr) or idx.injected(x.attr, names, torch_module, decorators, own,
                                                                                   frozenset({classes[0].qualname.split(".")[-1]}),
                                                                                   classes[0].module.rel)
                if not where and x.attr not in own and any(x.attr in c.slots for c in classes):
                    # a slot the class reserves and never fills: the object it is handed to fills it
                    # (imgaug's SweepLine.queue, stored by the EventQueue built with the sweep line)
                    where = idx.outside_store(x.attr)
                if not where and x.code == "PK003":
                    # no code of the tree stores it on self: every store of it is an injection
                    where = idx.unowned_store(x.attr)
                if not where and x.code == "PK003":  # the receiver calls a method only this MRO defines
                    where = method_duck_store(idx, x.attr, classes)
                on_class = None if where or x.code != "PK003" else class_store(idx, x.attr, classes)
                host = None if where or on_class or x.code != "PK003" else host_provides(project, classes[0], x.attr)
                state = None if where or on_class or host or x.code != "PK003" else stateless_host(project, facts, x.attr)
                memo[x.attr] = (f"{where} assigns it on an instance from outside the class (set up after construction?)" if where
                                else f"{on_class} assigns it on the class itself (a class attribute once that code has run)"
                                if on_class
                                else f"{host} mixes {classes[0].qualname} into a host whose other bases may provide it" if host
                                else f"{classes[0].qualname} holds no state of its own and is never built in the tree: "
                                     f"a mixin for a host made at run time ({state} assigns it on its instances)?" if state
                                else type_built(x.attr) if x.code == "PK003" else None)
            why = memo[x.attr]
        if why:
            x = replace(x, severity=Severity.WARNING, why=f"{x.why}; {why}")
        out.append(x)
    return out


def class_store(idx, attr: str, classes) -> Optional[str]:
    """``path:line`` of ``Cls.attr = ...`` (or ``mod.Cls.attr = ...``), ``Cls`` one of ``classes``
    named as such: a class attribute another module sets, as the standard library's ``logging``
    sets ``Logger.manager`` after the class statement (the class's own module's stores are class
    attributes already: model.py)."""
    from .callargs import names_bound_in
    names = {c.qualname.split(".")[-1] for c in classes}
    for rel, line, recv, fn, _cls in idx.outside_stores(attr):
        name = recv.id if isinstance(recv, ast.Name) else \
            recv.attr if isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) else None
        if name in names and name[:1].isupper() and not (isinstance(recv, ast.Name) and name in names_bound_in(fn)):
            return f"{rel}:{line}"  # not ``Solver = object(); Solver._optimize = ...``: a local of that name
    return None


def host_provides(project, ci, attr: str) -> Optional[str]:
    """A class statement anywhere in the tree (a function's body included: ``build_policy``
    factories) lists ``ci`` among two or more bases, and that host may provide ``attr``: its
    body assigns ``self.attr``, or one of its other bases is not a class of the tree (a library
    class, a factory's parameter), or that base's module assigns ``self.attr`` or defines it as a
    method or property. ``path:line`` of
    the host, or None."""
    idx = _index_for(project, ci)
    texts = idx.texts()
    for rel, line, assigned, others in idx.hosts(ci.qualname.split(".")[-1]):
        if attr in assigned:
            return f"{rel}:{line}"
        for other in others:
            where = idx.class_files(other)
            if not where or any(f"self.{attr} =" in texts[r] or f"def {attr}(" in texts[r] for r in where):
                return f"{rel}:{line}"
    return None


#: subclasses of the judged class looked at for ``type()``-built grandchildren
DESCENDANTS = 64


def _built_by_name(idx, ci) -> bool:
    """Some file of the tree calls ``ci``'s name (``Scanner()``), not as its class statement."""
    name = ci.qualname.split(".")[-1]
    memo = idx.__dict__.setdefault("_pk_built_by_name", {})  # once per name and tree
    if (name, ci.module.rel) not in memo:
        call = Bounded(rf"{re.escape(name)}\s*\(", before=called_at)  # (?<!class )(?<![\w.])Name\s*\(
        memo[name, ci.module.rel] = bool(call.search(ci.module.source)) or \
            any(call.search(text) for _r, text in idx.naming(name))
    return memo[name, ci.module.rel]


def _names_class(idx, rel: str, d) -> bool:
    """The file ``rel`` defines class ``d`` or imports its name."""
    if d.module.rel == rel or d.module.rel.endswith("/" + rel):  # the index's paths start inside the package
        return True
    name = d.qualname.split(".")[-1]
    text = idx.texts().get(rel, "")
    return bool(re.search(rf"^\s*from\s+\S+\s+import\s[^#\n]*\b{re.escape(name)}\b", text, re.M) or
                re.search(rf"^\s*from\s+\S+\s+import\s*\([^)]*\b{re.escape(name)}\b", text, re.M))
