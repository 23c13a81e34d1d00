"""Try one patch on one tree: a scratch copy of the target, then plan, apply, compile, checks,
idempotence (applying again changes nothing) and revert (the tree is back byte for byte), each
step a typed ``StepResult``. ``matrix``, the pytest plugin and the tests go through here; the
target itself is only read.
"""
from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

from . import engine
from .ftypes import FileChange, Outcome, PatchkitError, PatchResult, Target, TargetKind
from .patchdef import Patch, Strategy

#: the steps of a full trial, in order
STEPS = ("anchors", "applies", "compiles", "checks", "idempotent", "reverts")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.so")


@dataclass(frozen=True)
class StepResult:
    """What one step of a trial found. ``ok`` False: ``detail`` says why (one line per problem)."""

    #: one of STEPS
    step: str
    ok: bool
    detail: str = ""
    #: the error that ended the step, when one did (its class says what kind of failure)
    error: Optional[PatchkitError] = None
    #: the engine's result, for the apply steps
    result: Optional[PatchResult] = None


def scratch_copy(source: Target, dest: Path, parts: Optional[Iterable[str]] = None,
                 dist_info: bool = False) -> Target:
    """A writable DIRECTORY target at ``dest`` holding ``parts`` of ``source`` (relative paths;
    folders are copied without ``__pycache__`` and ``*.so``; parts ``source`` lacks are skipped).
    ``parts`` None copies the whole tree; ``dist_info`` adds the ``*.dist-info`` folders, from
    which the version is read."""
    dest = Path(dest)
    if parts is None:
        shutil.copytree(source.root, dest, ignore=_IGNORE, dirs_exist_ok=True)
    else:
        for part in dict.fromkeys(parts):
            src, dst = source.root / part, dest / part
            if src.is_dir():
                shutil.copytree(src, dst, ignore=_IGNORE, dirs_exist_ok=True)
            elif src.is_file():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
        if dist_info:
            for info in source.root.glob("*.dist-info"):
                shutil.copytree(info, dest / info.name, dirs_exist_ok=True)
    dest.mkdir(parents=True, exist_ok=True)
    return Target(source.distribution, source.version, dest, TargetKind.DIRECTORY)


class Trial:
    """``patch`` tried on a scratch copy of ``target``; use as a context manager (the scratch
    folder is a temporary folder, removed on exit, unless ``workdir`` names one).

    The scratch holds ``parts`` and every file the strategy edits; with ``copy_read`` also every
    file the plan read (a dry run then sees what the plan saw). Each step method returns a
    StepResult; ``run()`` runs them all in order and stops after a failed plan or apply.
    """

    def __init__(self, patch: Patch, target: Target, parts: Iterable[str] = (), copy_read: bool = False,
                 workdir: Optional[Path] = None, prefix: str = "patchkit-trial-"):
        self.patch, self.target = patch, target
        self.parts, self.copy_read = tuple(parts), copy_read
        self._workdir, self._prefix = workdir, prefix
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        #: set by plan()
        self.strategy: Optional[Strategy] = None
        #: set by copy(): the scratch target
        self.scratch: Optional[Target] = None
        self._read: list[str] = []
        self._originals: dict[str, Optional[bytes]] = {}

    def __enter__(self) -> "Trial":
        if self._workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix=self._prefix)
            self._workdir = Path(self._tmp.name)
        return self

    def __exit__(self, *exc) -> bool:
        if self._tmp is not None:
            self._tmp.cleanup()
        return False

    # ------------------------------------------------------------------ steps
    def plan(self) -> StepResult:
        """``anchors``: the strategy for the target's version, read from the target itself."""
        read = engine.reader(self.target)

        def recording(rel: str):
            self._read.append(rel)
            return read(rel)

        try:
            self.strategy = self.patch.plan(self.target.version, recording)
        except PatchkitError as exc:
            return StepResult("anchors", False, str(exc), exc)
        return StepResult("anchors", True, self.strategy.name)

    def copy(self) -> Target:
        """The scratch copy (after ``plan``); remembers the original bytes of the edited files."""
        assert self.strategy is not None and self._workdir is not None, "plan() first, inside 'with'"
        parts = self.parts + (tuple(self._read) if self.copy_read else ()) + self.strategy.files
        self.scratch = scratch_copy(self.target, self._workdir, parts)
        self._originals = self._snapshot()
        return self.scratch

    def apply(self, dry_run: bool = False, run_check: bool = False) -> StepResult:
        """``applies``: the engine's apply on the scratch copy."""
        try:
            r = engine.apply(self.patch, self._scratch(), dry_run=dry_run, run_check=run_check)
        except PatchkitError as exc:
            return StepResult("applies", False, str(exc), exc)
        return StepResult("applies", True, "", result=r)

    def compiles(self) -> StepResult:
        """``compiles``: every edited file compiles (CPython's own compiler)."""
        bad = []
        for rel in self._files():
            exc = engine.syntax_error(rel, self._scratch().file(rel).read_bytes())
            if exc is not None:
                bad.append(f"{rel}:{exc.lineno}: {exc.msg}")
        return StepResult("compiles", not bad, "\n".join(bad))

    def checks(self) -> StepResult:
        """``checks``: the patch's registered checks find nothing the patch introduced."""
        scratch = self._scratch()
        changes = [FileChange(rel, (self._originals[rel] or b"").decode(), scratch.file(rel).read_bytes().decode(),
                              created=self._originals[rel] is None)
                   for rel in self._files()]
        findings = engine.run_checks(self.patch, scratch, changes)
        return StepResult("checks", not findings, "\n".join(map(str, findings)))

    def idempotent(self) -> StepResult:
        """``idempotent``: a second apply is 'already applied' and leaves every byte as it was."""
        after = self._snapshot()
        try:
            r = engine.apply(self.patch, self._scratch(), run_check=False)
        except PatchkitError as exc:  # e.g. a detector that misses its own edit: the journal sees drift
            return StepResult("idempotent", False, f"second apply: {exc}", exc)
        same = self._snapshot() == after
        return StepResult("idempotent", r.outcome is Outcome.ALREADY_APPLIED and same,
                          f"second apply: {r.outcome.value}; files unchanged: {same}", result=r)

    def reverts(self) -> StepResult:
        """``reverts``: revert puts back every edited file byte for byte (created files: gone)."""
        try:
            r = engine.revert(self.patch, self._scratch())
        except PatchkitError as exc:
            return StepResult("reverts", False, f"revert: {exc}", exc)
        restored = self._snapshot()
        diff = [rel for rel in self._files() if restored[rel] != self._originals[rel]]
        return StepResult("reverts", not diff, f"not byte-identical after revert: {diff}" if diff else "", result=r)

    def run(self) -> list[StepResult]:
        """Every step in STEPS order; stops after a failed ``anchors`` or ``applies``."""
        out = [self.plan()]
        if not out[-1].ok:
            return out
        self.copy()
        out.append(self.apply())
        if not out[-1].ok:
            return out
        out += [self.compiles(), self.checks(), self.idempotent(), self.reverts()]
        return out

    # ------------------------------------------------------------------ helpers
    def _scratch(self) -> Target:
        assert self.scratch is not None, "copy() first"
        return self.scratch

    def _files(self) -> tuple[str, ...]:
        assert self.strategy is not None
        return self.strategy.files

    def _snapshot(self) -> dict[str, Optional[bytes]]:
        """The bytes of every edited file in the scratch (None: absent, a file the patch creates)."""
        s = self._scratch()
        return {rel: s.file(rel).read_bytes() if s.file(rel).exists() else None for rel in self._files()}


@contextmanager
def applied(patch: Patch, target: Target) -> Iterator[PatchResult]:
    """``patch`` applied to ``target`` (in place) for the duration of the block, then reverted
    when this block applied it: a target that already carried the patch is left as it was found.
    For tests and fixtures that must run the real, installed package patched."""
    r = engine.apply(patch, target)
    try:
        yield r
    finally:
        if r.outcome is Outcome.APPLIED:
            engine.revert(patch, target)
