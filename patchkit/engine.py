"""apply / revert / status / diff: parse, transform, re-parse, compile, check, atomic write, journal.

The engine never prints; every function returns values (PatchResult, StatusRow) or raises a
PatchkitError whose message is one line naming the file, class or anchor.
"""
from __future__ import annotations

import datetime as _dt
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional


from . import codemod, journal as jr
from .fsutil import atomic_write, check_writable, file_lock, sha256_bytes
from .ftypes import (AnchorNotFound, CheckFailed, ConflictError, DriftError, FileChange, Finding,
                     JournalError, Outcome, PatchResult, Target, TargetNotFound, VersionOutOfRange)
from .patchdef import Patch, Refused, Strategy


def reader(target: Target, overlay: Optional[dict[str, str]] = None):
    """A Reader over the target's files (``overlay`` wins, for dry runs of several files)."""

    def read(rel: str) -> Optional[str]:
        if overlay and rel in overlay:
            return overlay[rel]
        p = target.file(rel)
        try:
            return p.read_bytes().decode("utf-8")  # no newline translation: CRLF files stay CRLF
        except FileNotFoundError:
            return None

    return read


def check_range(patch: Patch, target: Target) -> None:
    if target.distribution != patch.distribution:
        raise VersionOutOfRange(
            f"patch {patch.name} targets {patch.distribution}, not {target.distribution}")
    if not patch.in_range(target.version):
        raise VersionOutOfRange(
            f"patch {patch.name} supports {patch.distribution}{patch.specifier}; "
            f"the target is {target.version} ({target.root})")


def transform(patch: Patch, target: Target) -> tuple[Strategy, list[FileChange], str]:
    """Compute the patched text of every file, without writing. Returns (strategy, changes, state)
    where state is 'pending', 'applied' (the code already carries every edit) or raises."""
    check_range(patch, target)
    read = reader(target)
    try:
        strategy = patch.plan(target.version, read)
    except Refused as exc:
        raise VersionOutOfRange(f"patch {patch.name} refused for {target.distribution} {target.version}: {exc}") from None
    changes: list[FileChange] = []
    applied_flags: list[bool] = []
    for rel in strategy.files:
        before = read(rel)
        edits = [e for e in strategy.edits if e.file == rel]
        creates = any(e.creates for e in edits)
        if before is None:
            if not creates:
                raise AnchorNotFound(f"{rel}: file not found in {target.root} (upstream moved it?)")
            module = codemod.parse(rel, "")
            for e in edits:
                module = e.transform(module)
            _compile_check(rel, module.code)
            applied_flags.append(False)
            changes.append(FileChange(rel, "", module.code, tuple(a for e in edits for a in e.anchors), created=True))
            continue
        module = codemod.parse(rel, before)
        flags = [e.is_applied(module) for e in edits]
        applied_flags.extend(flags)
        if all(flags):
            changes.append(FileChange(rel, before, before, tuple(a for e in edits for a in e.anchors)))
            continue
        if any(flags):
            done = [e.description for e, f in zip(edits, flags) if f]
            raise DriftError(f"{rel}: patch {patch.name} is partially present ({'; '.join(done)}); "
                             f"revert or restore the file before applying")
        for e in edits:
            module = e.transform(module)
        after = module.code
        _compile_check(rel, after)
        changes.append(FileChange(rel, before, after, tuple(a for e in edits for a in e.anchors)))
    state = "applied" if all(applied_flags) else "pending"
    return strategy, changes, state


def _compile_check(rel: str, text: str) -> None:
    try:
        compile(text, rel, "exec", dont_inherit=True)  # re-parses the result with CPython's parser
    except SyntaxError as exc:
        raise CheckFailed(f"{rel}: the patched file does not compile: {exc}") from None


def lint_changes(changes: Iterable[FileChange]) -> list:
    """pyflakes problems (undefined names, unused imports) the patch adds to each changed file."""
    from .lint import new_problems
    out: list = []
    for c in changes:
        if c.changed:
            out += new_problems(c.rel, c.before, c.after)
    return out


def _raise_lint(patch: Patch, changes: Iterable[FileChange]) -> None:
    found = lint_changes(changes)
    if found:
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        raise CheckFailed(f"patch {patch.name}: the patched code gains {found[0]}{more}; nothing written")


def run_checks(patch: Patch, target: Target, changes: Iterable[FileChange]) -> list[Finding]:
    """Findings that the patch introduces (present after, absent before) in the edited files."""
    from . import registry
    known = registry.checks()
    overlay = {c.rel: c.after for c in changes}
    new: list[Finding] = []
    for name in patch.checks:
        check = known[name]
        for c in changes:
            if not c.changed:
                continue
            before = {(f.code, f.cls, f.attr) for f in check.run(c.rel, c.before, target.root, {})}
            for f in check.run(c.rel, c.after, target.root, overlay):
                if (f.code, f.cls, f.attr) not in before and f.severity.value == "error":
                    new.append(f)
    return new


def unified_diff(changes: Iterable[FileChange]) -> str:
    out = []
    for c in changes:
        if c.changed:
            out.extend(difflib.unified_diff(c.before.splitlines(True), c.after.splitlines(True),
                                            f"a/{c.rel}", f"b/{c.rel}"))
    return "".join(out)


def _lock(target: Target, timeout: float):
    return file_lock(target.root / jr.STATE_DIR / "lock", timeout)


def apply(patch: Patch, target: Target, dry_run: bool = False, lock_timeout: float = 10.0,
          run_check: bool = True) -> PatchResult:
    """Apply ``patch`` to ``target``. Dry runs return the changes without touching the disk."""
    if not target.root.is_dir():
        raise TargetNotFound(f"{target.root}: target folder is gone")
    if dry_run:
        strategy, changes, state = transform(patch, target)
        if state == "applied":
            return PatchResult(patch.name, Outcome.ALREADY_APPLIED, "already applied", strategy.name, tuple(changes))
        if run_check:
            _raise_lint(patch, changes)
            _raise_findings(patch, run_checks(patch, target, changes))
        return PatchResult(patch.name, Outcome.WOULD_APPLY, strategy.summary, strategy.name, tuple(changes))
    for rel in _files_of(patch, target):
        check_writable(target.file(rel))
    (target.root / jr.STATE_DIR).mkdir(exist_ok=True)
    with _lock(target, lock_timeout):
        j = jr.load(target)
        strategy, changes, state = transform(patch, target)
        if state == "applied":
            return PatchResult(patch.name, Outcome.ALREADY_APPLIED, "already applied", strategy.name, tuple(changes))
        _check_conflicts(patch, j, changes)
        if run_check:
            _raise_lint(patch, changes)
            _raise_findings(patch, run_checks(patch, target, changes))
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        written: list[tuple[Path, bytes]] = []
        try:
            for c in changes:
                if not c.changed:
                    continue
                path = target.file(c.rel)
                if c.created:
                    if path.exists():
                        raise DriftError(f"{c.rel}: appeared on disk while patching; try again")
                    raw_before, sha_before = None, jr.CREATED
                else:
                    raw_before = path.read_bytes()
                    if raw_before.decode("utf-8") != c.before:
                        raise DriftError(f"{c.rel}: changed on disk while patching; try again")
                    sha_before = j.keep_original(raw_before)
                data = c.after.encode("utf-8")
                j.entries.append(jr.Entry(patch.name, patch.version, strategy.name, target.distribution,
                                          target.version, c.rel, sha_before, sha256_bytes(data),
                                          tuple(a.key for a in c.anchors), now))
                atomic_write(path, data)
                written.append((path, raw_before))
            j.save()
        except BaseException:
            for path, raw in reversed(written):  # leave nothing half-patched across files
                if raw is None:
                    path.unlink(missing_ok=True)
                else:
                    atomic_write(path, raw)
            raise
    return PatchResult(patch.name, Outcome.APPLIED, strategy.summary, strategy.name, tuple(changes))


def _files_of(patch: Patch, target: Target) -> tuple[str, ...]:
    try:
        return patch.plan(target.version, reader(target)).files
    except Exception:
        return ()


def _raise_findings(patch: Patch, findings: list[Finding]) -> None:
    if findings:
        first = findings[0]
        more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
        raise CheckFailed(f"patch {patch.name}: check failed on the patched code, nothing written: {first}{more}")


def _check_conflicts(patch: Patch, j: jr.Journal, changes: list[FileChange]) -> None:
    mine = {a.key for c in changes for a in c.anchors}
    for e in j.entries:
        if e.patch == patch.name:
            continue
        clash = mine.intersection(e.anchors)
        if clash:
            raise ConflictError(f"patch {patch.name} and applied patch {e.patch} both edit "
                                f"{sorted(clash)[0]}; revert {e.patch} first or merge the patches")


def revert(patch: Patch, target: Target, force: bool = False, dry_run: bool = False,
           lock_timeout: float = 10.0) -> PatchResult:
    """Restore every file the patch wrote to its original bytes (byte for byte)."""
    with _lock(target, lock_timeout) if not dry_run else _null():
        j = jr.load(target)
        entries = j.for_patch(patch.name)
        if not entries:
            return PatchResult(patch.name, Outcome.NOT_APPLIED, "not applied (no journal entry)")
        changes = []
        for e in entries:
            later = [x for x in j.for_file(e.file) if j.entries.index(x) > j.entries.index(e)]
            if later:
                raise ConflictError(f"{e.file}: patch {later[-1].patch} was applied after {patch.name}; revert it first")
            path = target.file(e.file)
            if not path.exists():
                raise TargetNotFound(f"{path}: patched file is gone")
            current = path.read_bytes()
            if sha256_bytes(current) != e.sha_after and not force:
                raise DriftError(f"{e.file}: changed since patch {patch.name} was applied "
                                 f"(sha256 {sha256_bytes(current)[:12]} != {e.sha_after[:12]}); "
                                 f"revert --force restores the original anyway")
            original = b"" if e.created else j.original(e.sha_before)
            changes.append(FileChange(e.file, current.decode("utf-8", "replace"), original.decode("utf-8", "replace")))
            if not dry_run:
                check_writable(path)
        if dry_run:
            return PatchResult(patch.name, Outcome.WOULD_APPLY, "would revert", entries[0].strategy, tuple(changes))
        for e in entries:
            if e.created:
                target.file(e.file).unlink(missing_ok=True)
            else:
                atomic_write(target.file(e.file), j.original(e.sha_before))
        j.entries = [x for x in j.entries if x.patch != patch.name]
        j.save()
    return PatchResult(patch.name, Outcome.REVERTED, "restored the original bytes", entries[0].strategy, tuple(changes))


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@dataclass(frozen=True)
class StatusRow:
    patch: str
    #: applied | not-applied | drifted | refused | applied-unjournalled | error
    state: str
    detail: str
    strategy: str = ""
    files: tuple[str, ...] = ()


def status(patches: Iterable[Patch], target: Target) -> list[StatusRow]:
    """One row per patch for this target."""
    try:
        j: Optional[jr.Journal] = jr.load(target)
    except JournalError as exc:
        return [StatusRow("(journal)", "error", str(exc))]
    rows = []
    for p in patches:
        if p.distribution != target.distribution:
            continue
        entries = j.for_patch(p.name) if j else []
        if entries:
            drifted = []
            for e in entries:
                path = target.file(e.file)
                cur = sha256_bytes(path.read_bytes()) if path.exists() else "missing"
                if cur != e.sha_after:
                    drifted.append(e.file)
            files = tuple(e.file for e in entries)
            if drifted:
                rows.append(StatusRow(p.name, "drifted", f"changed since apply: {', '.join(drifted)}",
                                      entries[0].strategy, files))
            else:
                rows.append(StatusRow(p.name, "applied", f"{len(entries)} file(s) as written at {entries[0].time}",
                                      entries[0].strategy, files))
            continue
        try:
            strategy, changes, state = transform(p, target)
        except (VersionOutOfRange,) as exc:
            rows.append(StatusRow(p.name, "refused", str(exc)))
            continue
        except (AnchorNotFound, DriftError, CheckFailed) as exc:
            rows.append(StatusRow(p.name, "refused", str(exc)))
            continue
        if state == "applied":
            rows.append(StatusRow(p.name, "applied-unjournalled",
                                  "the code carries the patch but the journal does not (applied by hand or upstream)",
                                  strategy.name, strategy.files))
        else:
            rows.append(StatusRow(p.name, "not-applied", strategy.summary, strategy.name, strategy.files))
    return rows


def diff(patch: Patch, target: Target) -> str:
    """The unified diff of what an applied patch changed (original -> current file)."""
    j = jr.load(target)
    entries = j.for_patch(patch.name)
    if not entries:
        raise JournalError(f"patch {patch.name} is not applied to {target.describe()}; use apply --dry-run for a preview")
    changes = [FileChange(e.file, "" if e.created else j.original(e.sha_before).decode(),
                          target.file(e.file).read_bytes().decode()) for e in entries]
    return unified_diff(changes)
