"""The patch model: a patch names its target distribution and version range, and for the
version it finds, chooses a strategy: a list of edits, each a libcst codemod on one file
with qualified anchors and a detector that says, from the code itself, whether it is applied."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping, Optional

import libcst as cst
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from .ftypes import Anchor, AnchorNotFound, Refused


@dataclass(frozen=True)
class Edit:
    """One codemod on one file. ``id`` names it stably within its patch (tests, fixtures and
    mutants pick edits by id, never by their description)."""

    #: file relative to the target root
    file: str
    #: what the edit does, one line
    description: str
    #: qualified anchors the edit touches (conflict detection, error messages)
    anchors: tuple[Anchor, ...]
    #: module -> patched module; raises AnchorNotFound when upstream drifted
    transform: Callable[[cst.Module], cst.Module]
    #: module -> True when this edit is already present in the code
    is_applied: Callable[[cst.Module], bool]
    #: the edit creates ``file`` (absent upstream): ``transform`` receives an empty module, the
    #: journal records the file as created and revert removes it
    creates: bool = False
    #: stable name of the edit within its patch, e.g. ``on-init:EAGLEWorkerV2.__init__``; when not
    #: given, derived from ``description`` (lower case, runs of other characters as ``-``)
    id: str = ""

    def __post_init__(self):
        if not self.id:
            object.__setattr__(self, "id", re.sub(r"[^a-z0-9]+", "-", self.description.lower()).strip("-"))


@dataclass(frozen=True)
class Strategy:
    name: str
    edits: tuple[Edit, ...]
    #: one line: which code path the patched worker takes above/below the threshold
    summary: str = ""

    @property
    def files(self) -> tuple[str, ...]:
        out: list[str] = []
        for e in self.edits:
            if e.file not in out:
                out.append(e.file)
        return tuple(out)

    def edit(self, edit_id: str) -> Edit:
        """The edit named ``edit_id``; KeyError naming the known ids otherwise."""
        for e in self.edits:
            if e.id == edit_id:
                return e
        raise KeyError(f"strategy {self.name} has no edit {edit_id!r}; ids: {', '.join(e.id for e in self.edits)}")


@dataclass(frozen=True)
class Example:
    """A before/after example a patch ships (LibCST ``CodemodTest`` style): copying
    ``examples/<stem>_before.py`` to each target file and applying the patch picks ``strategy``
    and yields ``examples/<stem>_after.py``; applying again changes nothing."""

    #: the strategy the patch must pick on these files
    strategy: str
    #: target file (relative to the target root) -> example stem in the patch's ``examples/`` folder
    files: Mapping[str, str]

    def __post_init__(self):
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))

    # unpacks as ``(strategy, files)``, like the tuples it replaced: tests that patches scaffolded
    # before it existed (``parametrize("strategy,files", PATCH.examples)``) keep working
    def __iter__(self):
        return iter((self.strategy, self.files))

    def __len__(self) -> int:
        return 2


#: reads a file of the target (relative path) and returns its text, or None if missing
Reader = Callable[[str], Optional[str]]


@dataclass(frozen=True)
class Patch:
    """A named patch. ``select`` picks the strategy for a version, reading the target's code."""

    name: str
    version: str
    description: str
    distribution: str
    specifier: SpecifierSet
    select: Callable[[Version, Reader], Strategy]
    #: names of checks run on every patched module before it is written
    checks: tuple[str, ...] = ("attr-init",)
    #: before/after examples shipped with the patch (``Example``; a plain ``(strategy, {file: stem})``
    #: pair is turned into one)
    examples: tuple[Example, ...] = field(default=())
    #: static invariants the gate verifies: (description, fn(reader) -> error or None)
    invariants: tuple = field(default=())
    #: the patch's smoke spec (patchkit.smoke.spec.SmokeSpec); None: a ``smoke_spec`` module next to
    #: the patch's own module, if any, provides ``SPEC`` (see patchkit.smoke.spec.spec_of)
    smoke: Optional[object] = None

    def __post_init__(self):
        object.__setattr__(self, "examples", tuple(e if isinstance(e, Example) else Example(*e) for e in self.examples))

    def in_range(self, version: str) -> bool:
        return self.specifier.contains(Version(version), prereleases=True)

    def plan(self, version: str, read: Reader) -> Strategy:
        """The strategy for ``version``; raises Refused or AnchorNotFound with the reason."""
        return self.select(Version(version), read)


def new_file_edit(file: str, text: str, description: str, id: str = "") -> Edit:
    """An edit that creates ``file`` with exactly ``text`` (a module the patch ships as real Python).
    Applied when the file holds ``text``; a file of that name with other content is drift."""
    def transform(module: cst.Module) -> cst.Module:
        if module.code.strip():
            raise AnchorNotFound(f"{file}: exists with other content; the patch creates this file")
        return cst.parse_module(text)

    def applied(module: cst.Module) -> bool:
        return module.code == text

    return Edit(file, description, (Anchor(file, "<module>", None, "new file"),), transform, applied, creates=True,
                id=id or f"create:{file}")


__all__ = ["Anchor", "AnchorNotFound", "Edit", "Example", "Patch", "Reader", "Refused", "Strategy", "new_file_edit"]
