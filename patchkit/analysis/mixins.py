"""Mixins that do not say so in their name: a class with no base of its own, never built by itself
anywhere in the tree, and only ever mixed into classes with other bases (reportlab's
``TimeValueAxis`` inside ``XTimeValueAxis(TimeValueAxis, XValueAxis)``; scapy's ``IPTools`` inside
``IP(Packet, IPTools)``). Its reads are its hosts', judged through them with their whole MRO, as
for a class named ``*Mixin``."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import fast_walk, first_param
from .fastre import Bounded, called_at
from .injection import _index_for
from .model import ClassInfo


def implicit_mixin(an, ci: ClassInfo) -> list:
    """The hosts of ``ci`` when it is a mixin by use (else []): no bases (``object`` at most),
    subclassed in the tree only by classes with two or more bases, and never called (``Name(...)``)
    anywhere in the tree. A read of such a class is a bug only where a host lacks the attribute
    (matplotlib's ``_AnnotationBase.get_size``: ``Annotation(Text, ...)`` has it, ``AnnotationBbox
    (Artist, ...)`` does not). Hosts may sit below never-built single-base links, and the links are
    mixins too, when every such host is seen whole (``_seen_whole``)."""
    if "." in ci.qualname:
        return []
    if any(b not in ("object", "builtins.object") for b in ci.bases):
        # a link of a chain (``GenerateV7User(UserGenerator)``): every base is a tree class with
        # one base at most, up to a root with none
        mro = an.mro(ci)
        if any(not isinstance(c, ClassInfo) and getattr(c, "name", "object") != "object" for c in mro) or \
                any(isinstance(c, ClassInfo) and len(c.bases) > 1 for c in mro):
            return []
        return _seen_whole(an, _hosts(an, ci, 0))
    hosts = _hosts(an, ci, 0)
    direct = set(map(id, an._direct_subclasses(ci)))
    return hosts if all(id(h) in direct for h in hosts) else _seen_whole(an, hosts)


def _seen_whole(an, hosts: list) -> list:
    """``hosts`` when the analyzer sees each whole (no base it cannot read, not open), else []: a
    host with an unreadable base excuses any read (tfp's _DeferredTensorSpecBase, mixed with the
    JAX substrate's stub TypeSpecs), which only the old rule (direct hosts) may rely on."""
    return hosts if all(an.facts(h).unknown_base is None and not an.facts(h).open for h in hosts) else []


def _hosts(an, ci: ClassInfo, depth: int) -> list:
    """The classes with two or more bases that ``ci`` reaches through subclasses never built in the
    tree (SCons' ``_UserGenerator`` <- ``_GenerateV7User`` <- ``_GenerateV7DSP(_DSPGenerator,
    _GenerateV7User)``), or [] when some path ends in a class with one base or one that is built."""
    subs = an._direct_subclasses(ci)
    if not subs or depth > 3:
        return []
    out = []
    for s in subs:
        if len(s.bases) >= 2:
            out.append(s)
            continue
        more = _hosts(an, s, depth + 1)
        if not more:
            return []
        out += more
    # last: the search of the whole tree's text for a call is the costly test (SGLang: 1.5 s)
    return [] if built_in_tree(an, ci) else out


def awaits_host(an, ci: ClassInfo, f, assigned: dict) -> str:
    """Why ``ci`` is a mixin by contract ("" when it is not): it is named ``*Behavior`` (or
    ``*Behaviour``, the GUI toolkits' word for a mixin), every class of its MRO is a tree class on
    ``object``, a method of the MRO calls ``self.<m>(...)`` where nothing in the MRO defines or
    assigns ``m`` (no instance of the MRO's own classes can answer that call), and the tree never
    builds it or a single-base subclass of it by name. Such a class is written to be combined with a
    host that supplies those names (kivy's ``TouchRippleBehavior`` calls ``self.bind`` and reads
    ``self.canvas``, both a ``Widget``'s; kivy builds only ``class Button(ButtonBehavior, Label)``),
    like a class named ``*Mixin``; its never-assigned reads are the host's. The name is required: a
    call to a method nothing defines is otherwise a bug (diffusers' ``default_processor_cls``)."""
    if not _behavior_named(an, ci) or \
            f.unknown_base is not None or f.open or f.dynamic or \
            any(getattr(e, "name", "").split(".")[-1] != "object" for e in f.externals):
        return ""
    calls = _undefined_self_calls(f, assigned)
    if not calls or built_in_tree(an, ci) or \
            any(len(d.bases) == 1 and built_in_tree(an, d) for d in an._descendants(ci)):
        return ""
    shown = ", ".join(f"self.{m}()" for m in sorted(calls)[:3])
    return f"a mixin by contract: it calls {shown}, which no class of its MRO defines, and the tree never builds it alone"


_BEHAVIOR_WORDS = frozenset({"behavior", "behaviors", "behaviour", "behaviours"})


def _behavior_named(an, ci: ClassInfo) -> bool:
    """Named ``*Behavior`` / ``*Behaviour``; or the base of such a class defined in the toolkit's
    module for them: the module's stem is, or has the ``_``-separated word, ``behavior(s)`` (or its
    folder is named so), and some subclass in the tree is named ``*Behavior``. kivymd's
    ``M3CommonRipple``, the base of ``M3RectangularRippleBehavior``, lives in
    ``kivymd/uix/behaviors/ripple_behavior.py``. Test modules never count."""
    if ci.qualname.split(".")[-1].endswith(("Behavior", "Behaviour")):
        return True
    parts = ci.module.rel.replace("\\", "/").split("/")
    stem = parts[-1].removesuffix(".py").lower()
    if stem.startswith("test") or not (_BEHAVIOR_WORDS & set(stem.split("_")) or
                                       len(parts) > 1 and parts[-2].lower() in _BEHAVIOR_WORDS):
        return False
    return any(d.qualname.split(".")[-1].endswith(("Behavior", "Behaviour")) for d in an._descendants(ci))


def _undefined_self_calls(f, assigned: dict) -> set:
    """Names ``m`` of ``self.m(...)`` calls (also ``bind = self.m`` ... ``bind(...)``) in the methods
    of ``f``'s classes that no class of the MRO defines (a method, a class attribute, a field, an
    assignment) and ``object`` lacks."""
    known = f.class_level | set(f.provided) | set(f.fields) | set(assigned) | set(f.contracts)
    out: set = set()
    for c in f.classes:
        known |= set(c.methods) | c.class_names
    for c in f.classes:
        for mname, fn in c.methods.items():
            if c.method_kind.get(mname) not in ("method", "property", None):
                continue
            sn = first_param(fn)
            if not sn:
                continue
            bound: dict = {}  # local -> the instance attribute bound to it
            called: set = set()  # locals called
            for n in fast_walk(fn):
                if n.__class__ is ast.Assign and len(n.targets) == 1 and n.targets[0].__class__ is ast.Name:
                    v = n.value
                    if v.__class__ is ast.Attribute and v.value.__class__ is ast.Name and v.value.id == sn:
                        bound[n.targets[0].id] = v.attr
                if n.__class__ is not ast.Call:
                    continue
                func = n.func
                if func.__class__ is ast.Attribute and func.value.__class__ is ast.Name and func.value.id == sn:
                    out.add(func.attr)
                elif func.__class__ is ast.Name:
                    called.add(func.id)
            out |= {bound[x] for x in called if x in bound}
    return {m for m in out if m not in known and not hasattr(object, m)}


def built_in_tree(an, ci: ClassInfo) -> bool:
    """``ci`` is called by its name (``Name(...)``, ``Outer.Name(...)`` for a nested class) in its
    module or anywhere in the analysed tree: some code builds it. False says only that no code in
    view does (a registry, a config file or a user may)."""
    return _built(an.project, ci)


def _built(project, ci: ClassInfo) -> bool:
    name = ci.qualname
    # `Name(` with no space: prose in a docstring says "a Name (even ...)", code does not
    # (?<![\w.])(?<!class )Name\( , searched literal-first
    call = Bounded(rf"{re.escape(name)}\(", before=called_at)
    texts = [ci.module.source, *project.overlay.values()]
    return any(name in text and call.search(text) for text in texts) or \
        any(call.search(text) for _r, text in _index_for(project, ci).naming(name.split(".")[0]))


def _handed_as_value(project, ci: ClassInfo) -> bool:
    """``ci``'s name appears in the tree as a value: in a list, a call's arguments, an assignment
    (``scores = [NormalLogScore, NormalCRPScore]``), not only in its own ``class`` statement, a
    base list, an import or a call that builds it."""
    name = ci.qualname.split(".")[-1]
    return any(value_use(text, name) for text in [ci.module.source, *_index_for(project, ci).texts().values()])


def value_use(text: str, name: str) -> bool:
    """``name`` appears in ``text`` as a value (not in a ``class``, import or comment line, not
    called): ``TABLE = {"repeat": Repeat}``."""
    if name not in text:
        return False
    use = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w(])")
    return any(name in line and not line.lstrip().startswith(("class ", "from ", "import ", "#")) and use.search(line)
               for line in text.splitlines())


def stateless_host(project, facts, attr: str):
    """``path`` of a module where some class assigns ``self.<attr>``, when the class judged (its
    first class) cannot hold state of its own: no ``__init__`` or ``__new__`` in its MRO, no
    assignment on the instance anywhere in it, no field, no library base, and never built by name
    in the tree, yet handed around as a value (``scores = [NormalLogScore]``). Such a class only
    works mixed into a host made at run time (ngboost's ``NormalLogScore``, combined with ``Normal``
    by ``class Manifold(Distribution.implementation(Score), Distribution)``), and the read is the
    host's attribute. None otherwise."""
    from .scan import ensure_scanned
    classes = [c for c in facts.classes if not c.module.external]
    if not classes or facts.fields or facts.open or facts.unknown_base is not None or \
            any(e.name.split(".")[-1] != "object" for e in facts.externals) or \
            any("__init__" in c.methods or "__new__" in c.methods or ensure_scanned(c).assigned_in
                for c in classes) or _built(project, classes[0]) or not _handed_as_value(project, classes[0]):
        return None
    return next(iter(_index_for(project, classes[0]).self_stores(attr)), None)


class ClassConstants(dict):
    """Class attributes bound to a constant (bool, None, int, str) in a class body of the MRO, the
    first binding of the name in MRO order, that no method of the MRO assigns on the instance and
    no code in the tree stores from outside (``WMFSource.decode_video = False`` anywhere makes it a
    setting, not a constant). Checked per name on first use: ``if self.decode_audio:`` in pyglet's
    ``WMFSource.__init__`` always runs its branch."""

    def __init__(self, project, classes: list, linear: Optional[list] = None):
        super().__init__()
        self._project, self._classes, self._checked = project, classes, {}
        self._containers: set = set()
        decided: set = set()
        # a stub method's constant holds only where no library class before it in the MRO (``linear``,
        # when given) may define the method itself (threading.Thread.is_alive before a tree stub)
        shadowed_from = _first_library_index(linear) if linear is not None else None
        for c in classes:
            if c.module.external:
                continue
            stub_ok = shadowed_from is None or _index_of(linear, c) < shadowed_from
            for stmt in c.node.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if \
                    isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names = [stmt.name]
                for n in names:
                    if n in decided:
                        continue
                    decided.add(n)
                    v = getattr(stmt, "value", None)
                    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(v, ast.Constant) \
                            and (v.value is None or isinstance(v.value, (bool, int, str))):
                        dict.__setitem__(self, n, v.value)
                    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                            isinstance(v, (ast.List, ast.Tuple)) and not v.elts:
                        # ``scope_predefined_names = []`` (Cython's Scope): empty unless mutated in place
                        dict.__setitem__(self, n, ())
                        self._containers.add(n)
                    elif isinstance(stmt, ast.FunctionDef):
                        got = _constant_property(stmt)
                        if got is not _NOT_CONSTANT:
                            dict.__setitem__(self, n, got)
                        got = _constant_method(stmt) if stub_ok else _NOT_CONSTANT
                        if got is not _NOT_CONSTANT:  # keyed as the call a test spells: ``m()``
                            dict.__setitem__(self, f"{n}()", got)

    #: a method of the MRO that assigns the name on the instance makes it no constant
    methods_rebind = False

    def _ok(self, name: str) -> bool:
        got = self._checked.get(name)
        if got is None:
            bare = name.removesuffix("()")  # a constant method: no store of the name either
            got = self._checked[name] = dict.__contains__(self, name) and \
                (self.methods_rebind or not any(bare in c.assigned_in for c in self._classes)) and \
                not (self._classes and _index_for(self._project, self._classes[0]).files_storing(bare)) and \
                not (name in self._containers and self._mutated(name))
        return got

    def _mutated(self, name: str) -> bool:
        """An empty class-level list grown in place anywhere in view (``.names.append(x)``, ``+=``)."""
        grow = re.compile(rf"\.\s*{re.escape(name)}\s*(?:\.\s*(?:append|extend|insert|add|update|setdefault)\s*\(|\+=|\[[^\]]*\]\s*=(?!=))")
        texts = [c.module.source for c in self._classes] + \
            list(_index_for(self._project, self._classes[0]).texts().values())
        return any(grow.search(t) for t in texts if t and name in t)

    def __contains__(self, name) -> bool:
        return self._ok(name)

    def __getitem__(self, name):
        if not self._ok(name):
            raise KeyError(name)
        return dict.__getitem__(self, name)


_NOT_CONSTANT = object()


def _constant_property(fn: ast.FunctionDef):
    """The value of a ``@property`` whose whole body returns a constant or an empty tuple/list
    (mxnet's ``BaseRNNCell._gate_names``: ``return ()``), else _NOT_CONSTANT."""
    if len(fn.decorator_list) != 1 or not isinstance(fn.decorator_list[0], ast.Name) or \
            fn.decorator_list[0].id != "property":
        return _NOT_CONSTANT
    body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return _NOT_CONSTANT
    v = body[0].value
    if isinstance(v, ast.Constant) and (v.value is None or isinstance(v.value, (bool, int, str))):
        return v.value
    if isinstance(v, (ast.Tuple, ast.List)) and not v.elts:
        return ()
    return _NOT_CONSTANT


_HARMLESS_BASES = frozenset({"object", "builtins.object", "abc.ABC", "ABC", "typing.Generic", "Generic",
                             "typing.Protocol", "Protocol"})


def _first_library_index(linear: list) -> Optional[int]:
    """Index in the MRO ``linear`` of the first library class that may define methods (not
    ``object``, ``ABC``, ``Generic``, ``Protocol``), else None."""
    for i, k in enumerate(linear):
        if not hasattr(k, "module") and getattr(k, "name", "object") not in _HARMLESS_BASES:
            return i
    return None


def _index_of(linear: list, c) -> int:
    return next((i for i, k in enumerate(linear) if k is c), len(linear))


def _constant_method(fn: ast.FunctionDef):
    """The value of a plain method taking only the instance whose whole body returns a bool or
    None constant (a stub: vllm-omni's vendored ``AttentionAdapterModuleMixin.is_adapter_available``
    returns False, so ``if self.is_adapter_available():`` never runs there), else _NOT_CONSTANT."""
    a = fn.args
    if fn.decorator_list or len(a.args) != 1 or a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return _NOT_CONSTANT
    body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Constant):
        return _NOT_CONSTANT
    v = body[0].value.value
    return v if v is None or isinstance(v, bool) else _NOT_CONSTANT


class ClassDefaults(ClassConstants):
    """Class attributes bound to a constant in a class body of the MRO (the first binding in MRO
    order), methods may rebind them on the instance, but no code in the tree stores them from
    outside. Until construction stores the attribute on a path, the instance reads the class's
    value: pyglet's ``XlibWindow`` declares ``_window = None`` and ``_create`` (run once by
    ``__init__``) creates the window, and its Xdnd atoms, under ``if not self._window:``."""

    methods_rebind = True

