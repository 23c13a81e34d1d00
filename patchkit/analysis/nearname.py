"""A read that misspells a name the class itself defines.

A base the analyzer cannot read (or code the instance escapes to) may give an instance any name,
so a read no code in view assigns is normally left alone there. A name the class's own code spells
almost the same way is another matter: keras 3.2.1's ``RandomBrightness`` defines
``_VALUE_RANGE_VALIDATION_ERROR`` and reads ``self.value_range_VALIDATION_ERROR`` (its base lies in
tensorflow, not installed); no library base provides a near-twin of a subclass's own name.

Near means: the same letters up to case and underscores, where the read is in a style of its own
(lower and upper case words in one name; not *only* underscores around the name: ``self.name`` over
``self._name`` is how a library base's property reads its private field, and ``self.iter`` next to
``__iter__`` is a base's method; never a dunder; not ``metainfo`` next to a ``METAINFO`` constant or
``getAnnIds`` next to a ``get_ann_ids`` alias, not ``setup`` next to ``set_up``: libraries spell
one name in two styles), or,
in names of 8 or more characters, two adjacent letters swapped, or one letter missing or extra
inside the name (not at either end: ``tokenize``/``tokenizer``, ``layer``/``layers`` are different
names). Never a difference in a digit (``conv1``/``conv2``), never one substituted letter
(``model_dir``/``model_dim``).
"""
from __future__ import annotations

from typing import Iterable, Optional

MIN_EDIT_LEN = 8


def _norm(name: str) -> str:
    return name.replace("_", "").casefold()


def _style(name: str) -> str:
    """"upper" (``METAINFO``), "lower" (``meta_info``), "camel" (``getAnnIds``) or "mixed"."""
    letters = [c for c in name if c.isalpha()]
    if all(c.isupper() for c in letters):
        return "upper"
    if all(c.islower() for c in letters):
        return "lower"
    if "_" not in name.strip("_"):
        return "camel"
    return "mixed"


def _one_inside(short: str, long: str) -> bool:
    """``long`` is ``short`` with one letter added strictly inside (not first, not last; a doubled
    end letter counts as added at the end)."""
    if long[1:] == short or long[:-1] == short:
        return False
    for i in range(1, len(long) - 1):
        if long[:i] + long[i + 1:] == short:
            return long[i].isalpha()
    return False


def _swapped(a: str, b: str) -> bool:
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and \
        a[diff[1]] == b[diff[0]] and a[diff[0]].isalpha() and a[diff[1]].isalpha()


def near(attr: str, other: str) -> bool:
    """``attr`` is a misspelling of ``other`` (see the module's doc)."""
    if attr.strip("_") == other.strip("_") or other.startswith("__") and other.endswith("__"):
        return False  # `name` over `_name`, `iter` next to `__iter__`: the library's API
    if any(c.isdigit() for c in attr) != any(c.isdigit() for c in other) or \
            [c for c in attr if c.isdigit()] != [c for c in other if c.isdigit()]:
        return False
    if _norm(attr) == _norm(other) and _norm(attr):
        # a library spells one name in two styles on purpose: mmengine's ``METAINFO`` constant and
        # ``metainfo`` property, pycocotools' ``getAnnIds`` with mmdet's ``get_ann_ids`` alias, and
        # words run together or apart (``setup`` / ``set_up``, ``metadata`` / ``meta_data``) are
        # both common API names. A read in a style of its own (``value_range_VALIDATION_ERROR``:
        # lower and upper case words in one name) is a slip of the hand
        return _style(attr) == "mixed"
    if min(len(attr), len(other)) < MIN_EDIT_LEN:
        return False
    if len(attr) == len(other):
        return _swapped(attr, other)
    if abs(len(attr) - len(other)) == 1:
        short, long = sorted((attr, other), key=len)
        return _one_inside(short, long)
    return False


def misspelling(attr: str, known: Iterable[str]) -> Optional[str]:
    """The first name of ``known`` (sorted) that ``attr`` misspells, or None."""
    return _Candidates(known).first_near(attr)


class _Candidates:
    """``known`` by length and by letters (``_norm``): a misspelling is one letter longer, shorter
    or as long, or the same letters in another style, so only those names need ``near``."""

    def __init__(self, known: Iterable[str]):
        self.by_len: dict[int, list] = {}
        self.by_norm: dict[str, list] = {}
        for k in set(known):
            self.by_len.setdefault(len(k), []).append(k)
            self.by_norm.setdefault(_norm(k), []).append(k)

    def first_near(self, attr: str) -> Optional[str]:
        n = len(attr)
        cands = set(self.by_norm.get(_norm(attr), ()))
        for m in (n - 1, n, n + 1):
            cands.update(self.by_len.get(m, ()))
        return next((k for k in sorted(cands) if near(attr, k)), None)


def known_names(t) -> set:
    """The names the analysed code of ``t``'s class (a Trace) defines: attributes its methods
    assign, class-level names and fields of the classes in view. Computed once per trace (every
    never-assigned read of a class with an unreadable base asks)."""
    got = t.__dict__.get("_pk_known_names")
    if got is None:
        f = t.facts
        got = set(t.assigned_anywhere) | set(f.class_level) | set(f.fields)
        for c in f.classes:
            if not c.module.external:
                got |= set(c.methods)
        got = t.__dict__["_pk_known_names"] = frozenset(got)
    return got


def misspelled(t, attr: str) -> Optional[str]:
    """``attr`` (assigned nowhere in view) misspells a name ``t``'s class defines: that name."""
    if attr in t.assigned_anywhere:
        return None
    idx = t.__dict__.get("_pk_known_index")
    if idx is None:  # once per trace, like known_names
        idx = t.__dict__["_pk_known_index"] = _Candidates(known_names(t))
    return idx.first_near(attr)
