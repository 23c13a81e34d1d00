"""Whether Python refuses to build an instance of a class at all: under ``ABCMeta`` (a metaclass
or an ``ABC`` base anywhere in the MRO) a class that leaves an ``@abstractmethod`` unimplemented
raises TypeError when called. What such a class reads is judged in its concrete subclasses;
its own findings would describe an object that cannot exist (tf-models' ``_AsyncTrainer``, whose
subclass ``Trainer`` runs both base initialisers the abstract class itself never chains to)."""
from __future__ import annotations

import re
from typing import Optional

from .classmodel import _unimplemented_abstract
from .model import ClassInfo
from .scan import ensure_scanned


def abc_enforced(classes: list[ClassInfo]) -> bool:
    """Some class of the MRO has ``ABCMeta`` as its metaclass or ``ABC`` as a base."""
    return any(c.abc_meta or any(b.split(".")[-1] == "ABC" for b in c.bases) for c in classes)


def uninstantiable(linear: list, classes: list[ClassInfo]) -> Optional[str]:
    """Why the class whose MRO is ``linear`` cannot be instantiated, or None. Only when every class
    before each unimplemented method's declarer is one the analyzer has read (a library class
    there may implement it)."""
    if not abc_enforced(classes):
        return None
    missing = _unimplemented_abstract(classes)
    for name in sorted(missing):
        declarer = next(c for c in classes if name in c.abstract_methods)
        before = linear[:linear.index(declarer)] if declarer in linear else [None]
        if all(isinstance(k, ClassInfo) for k in before):
            return (f"abstract: {declarer.qualname}.{name} is not implemented, so ABCMeta refuses to "
                    f"instantiate it; its concrete subclasses are judged on their own")
    return None


#: a class named as something to complete: private, or Base / Template / Abstract / Interface in its name
TEMPLATE_NAME = re.compile(r"^_|Base|Template|Abstract|Interface")


def completed_by_subclasses(ci: ClassInfo, attr: str, direct_subclasses, _depth: int = 0) -> bool:
    """``ci`` is named as a template and every subclass of the tree provides ``attr``: a direct
    subclass binds it in its class body (a method too) or its own methods, or each of its own subclasses does.
    What the template reads is theirs to set (ase's ``_MultiFileCacheTemplate.backend``:
    ``MultiFileJSONCache`` and ``MultiFileULMCache`` bind it as a class attribute). A class with
    no subclass in the tree is not one."""
    if _depth == 0 and not TEMPLATE_NAME.search(ci.qualname.split(".")[-1]):
        return False
    subs = direct_subclasses(ci)
    if not subs or _depth > 8:
        return False
    return all(attr in d.class_names or attr in d.methods or attr in ensure_scanned(d).assigned_in or
               completed_by_subclasses(d, attr, direct_subclasses, _depth + 1) for d in subs)
