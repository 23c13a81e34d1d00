"""apply / revert / status / diff: parse, transform, re-parse, compile, check, atomic write, journal.

The engine never prints; every function returns values (PatchResult, StatusRow) or raises a
PatchkitError whose message is one line naming the file, class or anchor.
"""
from __future__ import annotations

import codecs
import datetime as _dt
import difflib
import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional


from . import codemod, journal as jr
from .fsutil import atomic_write, check_writable, file_lock, inside, read_nofollow, remove, sha256_bytes
from .ftypes import (AnchorNotFound, CheckFailed, ConflictError, DriftError, FileChange, FileTooLarge, Finding,
                     JournalError, OutsideTarget, Outcome, PatchkitError, PatchResult, SourceEncodingError, Target,
                     TargetNotFound, TargetSyntaxError, UsageError, VersionOutOfRange)
from .patchdef import Patch, Refused, Strategy


#: environment variable: the largest file (bytes) patchkit reads into libcst; default 2 MiB
MAX_FILE_BYTES_ENV = "PATCHKIT_MAX_FILE_BYTES"
DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def max_file_bytes() -> int:
    """The size limit for files patchkit parses (``$PATCHKIT_MAX_FILE_BYTES``, default 2 MiB)."""
    raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_FILE_BYTES
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n <= 0:
        raise UsageError(f"{MAX_FILE_BYTES_ENV}={raw!r}: must be a positive number of bytes")
    return n


def decode_source(rel: str, data: bytes) -> str:
    """The text of a target source file, which must be plain UTF-8: a byte-order mark, a coding
    cookie other than UTF-8 on non-ASCII bytes, or invalid UTF-8 raise SourceEncodingError."""
    if data.startswith(codecs.BOM_UTF8):
        raise SourceEncodingError(f"{rel}: starts with a UTF-8 byte-order mark; patchkit edits plain UTF-8 "
                                  f"sources only (remove the BOM)")
    if not data.isascii():
        for line in data.split(b"\n", 2)[:2]:
            m = _COOKIE.match(line)
            if m:
                name = m.group(1).decode("ascii", "replace")
                try:
                    canonical = codecs.lookup(name).name
                except LookupError:
                    canonical = name
                if canonical != "utf-8":
                    raise SourceEncodingError(f"{rel}: declares '# coding: {name}' and holds non-ASCII bytes; "
                                              f"patchkit edits UTF-8 sources only (convert the file to UTF-8)")
                break
    try:
        return data.decode("utf-8")  # no newline translation: CRLF files stay CRLF
    except UnicodeDecodeError as exc:
        raise SourceEncodingError(f"{rel}: not valid UTF-8 (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                                  f"patchkit edits UTF-8 sources only") from None


def read_source(target: Target, rel: str) -> Optional[str]:
    """The text of ``rel`` in the target (None when absent), after the containment, size and
    encoding checks, so libcst never sees an oversized or mis-encoded file."""
    p = inside(target.root, rel, "patch file")
    try:
        size = os.stat(p).st_size
    except FileNotFoundError:
        return None
    limit = max_file_bytes()
    if size > limit:
        raise FileTooLarge(f"{rel}: {size} bytes is over the {limit}-byte limit for files patchkit parses "
                           f"(set {MAX_FILE_BYTES_ENV} to raise it)")
    try:
        data = read_nofollow(p)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise AnchorNotFound(f"{rel}: is a folder, not a module") from None
    return decode_source(rel, data)


def reader(target: Target, overlay: Optional[dict[str, str]] = None):
    """A Reader over the target's files (``overlay`` wins, for dry runs of several files)."""

    def read(rel: str) -> Optional[str]:
        if overlay and rel in overlay:
            return overlay[rel]
        return read_source(target, rel)

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
    where state is 'pending', 'applied' (the code already carries every edit), 'partial' (some
    files carry their edits, others none) or raises."""
    check_range(patch, target)
    read = reader(target)
    try:
        strategy = patch.plan(target.version, read)
    except Refused as exc:
        raise Refused(exc.reason, f"patch {patch.name} refused for {target.distribution} {target.version}: "
                                  f"{exc.reason}") from None
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
    state = "applied" if all(applied_flags) else "partial" if any(applied_flags) else "pending"
    return strategy, changes, state


def syntax_error(rel: str, source: str | bytes) -> Optional[SyntaxError]:
    """The SyntaxError CPython's own compiler raises on ``source`` (None: it compiles). The one
    compile check of patchkit: the engine before writing, the gate and the patch pipeline after."""
    try:
        compile(source, rel, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    return None


def _compile_check(rel: str, text: str) -> None:
    exc = syntax_error(rel, text)  # re-parses the result with CPython's parser
    if exc is not None:
        raise CheckFailed(f"{rel}: the patched file does not compile: {exc}")


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
    return file_lock(jr.state_dir(target) / "lock", timeout)


def apply(patch: Patch, target: Target, dry_run: bool = False, lock_timeout: float = 10.0,
          run_check: bool = True) -> PatchResult:
    """Apply ``patch`` to ``target``. Dry runs return the changes without touching the disk.

    Write-ahead: the originals and the intent are durable before the first source write, the
    journal is the commit point; an interrupted operation found first is recovered and reported
    in ``PatchResult.recovered``.
    """
    if not target.root.is_dir():
        raise TargetNotFound(f"{target.root}: target folder is gone")
    if dry_run:
        rec = jr.recover(target, lock_timeout)
        strategy, changes, state = transform(patch, target)
        if state == "applied":
            return PatchResult(patch.name, Outcome.ALREADY_APPLIED, "already applied", strategy.name, tuple(changes),
                               recovered=rec)
        if run_check:
            _raise_lint(patch, changes)
            _raise_findings(patch, run_checks(patch, target, changes))
        return PatchResult(patch.name, Outcome.WOULD_APPLY, strategy.summary, strategy.name, tuple(changes),
                           recovered=rec)
    for rel in _files_of(patch, target):
        check_writable(inside(target.root, rel, "patch file"))
    with _lock(target, lock_timeout):
        rec = jr.recover_locked(target)
        j = jr.load(target)
        strategy, changes, state = transform(patch, target)
        stale = j.for_patch(patch.name)
        if state == "applied":
            return PatchResult(patch.name, Outcome.ALREADY_APPLIED, "already applied", strategy.name, tuple(changes),
                               recovered=rec)
        _drop_stale(patch, j, stale)
        _check_conflicts(patch, j, changes)
        if run_check:
            _raise_lint(patch, changes)
            _raise_findings(patch, run_checks(patch, target, changes))
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        new: list[tuple[jr.Entry, bytes]] = []
        for c in changes:
            if not c.changed:
                continue
            path = inside(target.root, c.rel, "patch file")
            if c.created:
                if os.path.lexists(path):
                    raise DriftError(f"{c.rel}: appeared on disk while patching; try again")
                sha_before = jr.CREATED
            else:
                raw_before = read_nofollow(path)
                if decode_source(c.rel, raw_before) != c.before:
                    raise DriftError(f"{c.rel}: changed on disk while patching; try again")
                sha_before = j.keep_original(raw_before)
            data = c.after.encode("utf-8")
            new.append((jr.Entry(patch.name, patch.version, strategy.name, target.distribution, target.version,
                                 c.rel, sha_before, sha256_bytes(data), tuple(a.key for a in c.anchors), now), data))
        intent = jr.Intent("apply", patch.name, tuple(e for e, _ in new))
        jr.begin(target, intent)
        try:
            for e, data in new:
                atomic_write(j.file(e), data)
            j.entries = j.entries + [e for e, _ in new]
            j.save()  # the commit point
        except BaseException as exc:
            raise _rolled_back(target, j, intent, exc)
        jr.end(target)
    return PatchResult(patch.name, Outcome.APPLIED, strategy.summary, strategy.name, tuple(changes), recovered=rec)


def _rolled_back(target: Target, j: jr.Journal, intent: jr.Intent, exc: BaseException) -> BaseException:
    """Undo an apply that failed before its commit point; the error to raise says what happened."""
    try:
        jr.rollback(target, j, intent)
        jr.end(target)
        note = "rolled back, the target is unchanged"
    except BaseException:  # e.g. the disk is still full: the intent stays, the next command rolls back
        note = "interrupted; the next patchkit command rolls it back from the kept originals"
    if isinstance(exc, PatchkitError):
        return type(exc)(f"{exc}; {note}")
    return exc


def _drop_stale(patch: Patch, j: jr.Journal, stale: list[jr.Entry]) -> None:
    """The journal lists ``patch`` but its files are not patched: drop those entries when every
    file is back to its original bytes (package reinstalled); anything else is drift."""
    for e in stale:
        p = j.file(e)
        cur = sha256_bytes(read_nofollow(p)) if os.path.lexists(p) else None
        if not (cur == e.sha_before or (e.created and cur is None)):
            raise DriftError(f"{e.file}: the journal lists patch {patch.name} but the file is neither what it wrote "
                             f"nor the original; revert --force {patch.name} first")
    if stale:
        j.entries = [x for x in j.entries if x.patch != patch.name]


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
    """Restore every file the patch wrote to its original bytes (byte for byte), write-ahead:
    an interrupted revert is finished by the next command."""
    if dry_run:
        rec = jr.recover(target, lock_timeout)
        return _revert_locked(patch, target, force, True, rec)
    with _lock(target, lock_timeout):
        return _revert_locked(patch, target, force, False, jr.recover_locked(target))


def _revert_locked(patch: Patch, target: Target, force: bool, dry_run: bool, rec) -> PatchResult:
    j = jr.load(target)
    entries = j.for_patch(patch.name)
    if not entries:
        _refuse_unjournalled(patch, target)
        return PatchResult(patch.name, Outcome.NOT_APPLIED, "not applied (no journal entry)", recovered=rec)
    changes = []
    for e in entries:
        later = [x for x in j.for_file(e.file) if j.entries.index(x) > j.entries.index(e)]
        if later:
            raise ConflictError(f"{e.file}: patch {later[-1].patch} was applied after {patch.name}; revert it first")
        path = j.file(e)
        if not path.exists():
            if e.created:
                continue
            raise TargetNotFound(f"{path}: patched file is gone")
        current = read_nofollow(path)
        if sha256_bytes(current) != e.sha_after and not force:
            raise DriftError(f"{e.file}: changed since patch {patch.name} was applied "
                             f"(sha256 {sha256_bytes(current)[:12]} != {e.sha_after[:12]}); "
                             f"revert --force restores the original anyway")
        original = b"" if e.created else j.original(e.sha_before)
        changes.append(FileChange(e.file, current.decode("utf-8", "replace"), original.decode("utf-8", "replace")))
        if not dry_run:
            check_writable(path)
    if dry_run:
        return PatchResult(patch.name, Outcome.WOULD_APPLY, "would revert", entries[0].strategy, tuple(changes),
                           recovered=rec)
    jr.begin(target, jr.Intent("revert", patch.name, tuple(entries)))
    try:
        for e in entries:
            if e.created:
                remove(j.file(e))
            else:
                atomic_write(j.file(e), j.original(e.sha_before))
        j.entries = [x for x in j.entries if x.patch != patch.name]
        j.save()
    except PatchkitError as exc:
        raise type(exc)(f"{exc}; the revert is recorded and the next patchkit command finishes it") from None
    jr.end(target)
    return PatchResult(patch.name, Outcome.REVERTED, "restored the original bytes", entries[0].strategy,
                       tuple(changes), recovered=rec)


def _refuse_unjournalled(patch: Patch, target: Target) -> None:
    """No journal entry: fine when the code does not carry the patch; otherwise say so (exit 1)
    instead of 'not applied'."""
    try:
        _, _, state = transform(patch, target)
    except DriftError as exc:  # one file carries part of the patch: not 'not applied' either
        raise DriftError(f"patch {patch.name}: the code carries part of it but the journal has no entry ({exc}); "
                         f"reinstall the package to get the originals back") from None
    except PatchkitError:
        return
    if state in ("applied", "partial"):
        raise DriftError(f"patch {patch.name}: the code carries it ({state}) but the journal has no entry "
                         f"(applied by hand or by an old patchkit); reinstall the package to get the originals back")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@dataclass(frozen=True)
class StatusRow:
    patch: str
    #: applied | not-applied | drifted | refused | applied-unjournalled | partial | recovered | error
    state: str
    detail: str
    strategy: str = ""
    files: tuple[str, ...] = ()


def status(patches: Iterable[Patch], target: Target) -> list[StatusRow]:
    """One row per patch for this target (first a 'recovered' row when an interrupted operation
    was finished or rolled back). Reads without the lock; when an apply/revert ran meanwhile
    (intent or journal changed), reads again."""
    patches = list(patches)
    rec = None
    for _ in range(5):
        rec = jr.recover(target) or rec  # an unreadable journal raises (JournalError, exit 2)
        before = jr.snapshot(target)
        rows = _status_rows(patches, target, rec)
        if jr.snapshot(target) == before and not before[0]:
            break
    return rows


def _status_rows(patches: list[Patch], target: Target, rec) -> list[StatusRow]:
    rows: list[StatusRow] = []
    j = jr.load(target)
    if rec:
        rows.append(StatusRow("(journal)", "recovered", str(rec)))
    for p in patches:
        if p.distribution != target.distribution:
            continue
        entries = j.for_patch(p.name)
        if entries:
            drifted = []
            for e in entries:
                try:
                    path = j.file(e)
                    cur = sha256_bytes(read_nofollow(path)) if path.exists() else "missing"
                except OutsideTarget as exc:
                    rows.append(StatusRow(p.name, "error", str(exc)))
                    break
                if cur != e.sha_after:
                    drifted.append(e.file)
            else:
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
        except (VersionOutOfRange, AnchorNotFound, DriftError, CheckFailed) as exc:
            rows.append(StatusRow(p.name, "refused", str(exc)))
            continue
        except (SourceEncodingError, FileTooLarge, TargetSyntaxError, OutsideTarget) as exc:
            rows.append(StatusRow(p.name, "error", str(exc)))
            continue
        if state == "applied":
            rows.append(StatusRow(p.name, "applied-unjournalled",
                                  "the code carries the patch but the journal does not (applied by hand or upstream)",
                                  strategy.name, strategy.files))
        elif state == "partial":
            done = [c.rel for c in changes if not c.changed]
            todo = [c.rel for c in changes if c.changed]
            rows.append(StatusRow(p.name, "partial",
                                  f"not journalled: {', '.join(done)} carry the patch, {', '.join(todo)} do not "
                                  f"(apply finishes it)", strategy.name, strategy.files))
        else:
            rows.append(StatusRow(p.name, "not-applied", strategy.summary, strategy.name, strategy.files))
    return rows


def diff(patch: Patch, target: Target) -> str:
    """The unified diff of what an applied patch changed (original -> current file)."""
    jr.recover(target)
    j = jr.load(target)
    entries = j.for_patch(patch.name)
    if not entries:
        raise JournalError(f"patch {patch.name} is not applied to {target.describe()}; use apply --dry-run for a preview")
    changes = []
    for e in entries:
        p = j.file(e)
        now = read_nofollow(p).decode("utf-8", "replace") if p.exists() else ""
        before = "" if e.created else j.original(e.sha_before).decode("utf-8", "replace")
        changes.append(FileChange(e.file, before, now))
    return unified_diff(changes)
