"""Whether Python refuses to build an instance of a class at all: under ``ABCMeta`` (a metaclass
or an ``ABC`` base anywhere in the MRO) a class that leaves an ``@abstractmethod`` unimplemented
raises TypeError when called. What such a class reads is judged in its concrete subclasses;
its own findings would describe an object that cannot exist (tf-models' ``_AsyncTrainer``, whose
subclass ``Trainer`` runs both base initialisers the abstract class itself never chains to)."""
from __future__ import annotations

from typing import Optional

from .classmodel import _unimplemented_abstract
from .model import ClassInfo


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
