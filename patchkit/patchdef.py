"""The patch model: a patch names its target distribution and version range, and for the
version it finds, chooses a strategy: a list of edits, each a libcst codemod on one file
with qualified anchors and a detector that says, from the code itself, whether it is applied."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import libcst as cst
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from .ftypes import Anchor, AnchorNotFound


class Refused(Exception):
    """The patch cannot be applied to this target, with a precise reason (not a drift)."""


@dataclass(frozen=True)
class Edit:
    """One codemod on one file."""

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
    #: before/after example pairs shipped with the patch: (name, before_src, after_src)
    examples: tuple = field(default=())
    #: static invariants the gate verifies: (description, fn(reader) -> error or None)
    invariants: tuple = field(default=())
    #: the patch's smoke spec (patchkit.smoke.spec.SmokeSpec); None: a ``smoke_spec`` module next to
    #: the patch's own module, if any, provides ``SPEC`` (see patchkit.smoke.spec.spec_of)
    smoke: Optional[object] = None

    def in_range(self, version: str) -> bool:
        return self.specifier.contains(Version(version), prereleases=True)

    def plan(self, version: str, read: Reader) -> Strategy:
        """The strategy for ``version``; raises Refused or AnchorNotFound with the reason."""
        return self.select(Version(version), read)




def new_file_edit(file: str, text: str, description: str) -> Edit:
    """An edit that creates ``file`` with exactly ``text`` (a module the patch ships as real Python).
    Applied when the file holds ``text``; a file of that name with other content is drift."""
    from .ftypes import Anchor as _Anchor

    def transform(module: cst.Module) -> cst.Module:
        if module.code.strip():
            raise AnchorNotFound(f"{file}: exists with other content; the patch creates this file")
        return cst.parse_module(text)

    def applied(module: cst.Module) -> bool:
        return module.code == text

    return Edit(file, description, (_Anchor(file, "<module>", None, "new file"),), transform, applied, creates=True)


__all__ = ["Anchor", "AnchorNotFound", "Edit", "Patch", "Reader", "Refused", "Strategy", "new_file_edit"]
