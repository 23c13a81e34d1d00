"""The field bug's other class: which class outside a class's hierarchy assigns an attribute the
class reads but never assigns (the assignment landed in another class's ``__init__``), in the read's
module or in a module beside it, and whether that makes the read the field bug's shape (PK003's
hint and severity; ``rules/pk003_never_assigned.py``)."""
from __future__ import annotations


def constructs(an, ci) -> bool:
    """A class of ``ci``'s MRO in the tree has an ``__init__`` (or generated fields)."""
    f = an.facts(ci)
    return bool(f.field_class) or any("__init__" in c.methods for c in f.classes if not c.module.external)


def unrelated_assigner(an, ci, attr: str, owner=None) -> bool:
    """A class of the read's module that shares no class of the tree with ``ci``'s hierarchy
    assigns ``attr`` (the field bug: ``EagleDraftWorker``, under another base, got
    ``EAGLEWorkerV2``'s assignment). A sibling under a common base of the tree is the same
    family: seaborn's ``JointGrid`` beside ``Grid``, both under ``_BaseGrid``."""
    from .scan import ensure_scanned
    related = {c.key for c in an.facts(ci).classes} | {d.key for d in an._descendants(ci)}
    for base in an.facts(ci).classes[1:]:
        if not base.module.external:
            related |= {d.key for d in an._descendants(base)}
    mods = [ci.module] + ([owner.module] if owner is not None and owner.module is not ci.module else [])
    return any(other.key not in related and ensure_scanned(other).assigned_in.get(attr)
               for m in mods for other in m.classes.values())


def field_bug_shape(an, ci, attr: str, owner=None) -> bool:
    """The read's class builds instances (``constructs``) and an unrelated class of the module got
    the assignment (``unrelated_assigner``): the field bug, whatever ``ci``'s subclasses do. Not for
    a template: ``ci`` has no initialiser of its own (written or generated), and the tree uses it
    only by subclassing it (classuses.py: uproot's ``Directory``, "an abstract superclass" whose
    ``RootDirectory`` and ``SubDirectory`` set ``_freesegments``, beside an unrelated
    ``TListOfStreamers`` that sets its own). EAGLEWorkerV2 has its own ``__init__``."""
    if not (constructs(an, ci) and unrelated_assigner(an, ci, attr, owner)):
        return False
    from .classuses import used_beyond_subclassing
    own_init = "__init__" in ci.methods or (ci.field_kind is not None and ci.field_init is not False)
    return own_init or used_beyond_subclassing(an.project, ci)


def other_class_hint(an, ci, attr: str, owner=None) -> str:
    """``assigned in Other.m at line N, a different class`` for the first class of the read's
    modules outside ``ci``'s MRO that assigns ``attr``; "" when none does."""
    from .scan import ensure_scanned
    mine = {c.key for c in an.facts(ci).classes}
    mods = [ci.module] + ([owner.module] if owner is not None and owner.module is not ci.module else [])
    for other in (c for m in mods for c in m.classes.values()):
        if other.key in mine:
            continue
        locs = ensure_scanned(other).assigned_in.get(attr)
        if locs:
            m, line = locs[0]
            return f"assigned in {other.qualname}.{m} at line {line}, a different class"
    return ""


def sibling_module_hint(an, ci, attr: str, owner=None) -> str:
    """The field bug split over two modules: ``assigned in Other.m (path:N), a different class`` for
    a class of a module beside the read's (the same package folder) that assigns ``attr``. Words
    only: it never changes a finding's severity (a mixin's read is not the field bug because some
    class next door happens to assign the name)."""
    mine = {c.key for c in an.facts(ci).classes}
    mods = [ci.module] + ([owner.module] if owner is not None and owner.module is not ci.module else [])
    for other, m, line in _package_assigners(an, ci, attr, mods):
        if other.key not in mine:
            return f"assigned in {other.qualname}.{m} ({other.module.rel}:{line}), a different class"
    return ""


def _package_assigners(an, ci, attr: str, mods):
    """(class, method, line) of ``self.<attr> = ...`` in classes of the modules beside ``mods``
    (the same package folder): the files' text is searched first, and only a file that stores
    the name is parsed."""
    import re
    from .injection import _index_for
    from .scan import ensure_scanned
    folders = {m.rel.rsplit("/", 1)[0] if "/" in m.rel else "" for m in mods}
    seen = {m.rel for m in mods}
    idx = _index_for(an.project, ci)
    if idx.root is None:
        return
    prefix = idx.root.relative_to(an.project.root).as_posix() if idx.root != an.project.root else ""
    store = re.compile(rf"\bself\.{re.escape(attr)}[ \t]*(?::[^=\n]+)?=(?!=)")
    found = 0
    # the folders as the index spells them (relative to its own root)
    local = set(folders) if not prefix else \
        {f[len(prefix) + 1:] if f.startswith(prefix + "/") else "" if f == prefix else None for f in folders} - {None}
    for rel_in_index, text in idx.in_folders(local):
        rel = f"{prefix}/{rel_in_index}" if prefix else rel_in_index
        if rel in seen or attr not in text or not store.search(text):
            continue
        found += 1
        if found > 5:
            return
        name = rel[:-3].replace("/", ".")
        name = name[:-len(".__init__")] if name.endswith(".__init__") else name
        mod = an.project.module(name, external=False)
        if mod is None:
            continue
        for other in mod.classes.values():
            locs = ensure_scanned(other).assigned_in.get(attr)
            if locs:
                yield other, locs[0][0], locs[0][1]
