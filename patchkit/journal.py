"""The journal: what patchkit wrote into a target, with the original bytes kept for revert, and the
write-ahead intent that makes apply and revert crash-safe.

Lives in ``<target root>/.patchkit/`` (a real folder, never a symlink):

* ``journal.json`` (schema 1): the committed entries, validated on every load;
* ``originals/<sha256>``: the bytes of every file before a patch wrote it;
* ``intent.json``: present only while an apply or revert is in flight.

Protocol (every step durable: file fsync, then folder fsync):

* apply: keep the originals -> write the intent (the new entries) -> write the source files ->
  write the journal with the entries (the commit point) -> remove the intent;
* revert: write the intent (the entries to remove) -> restore the files from the originals ->
  write the journal without them -> remove the intent.

Any command that finds an intent (``recover``) first, under the lock, rolls an uncommitted apply
back from the kept originals, finishes a committed apply (drops the intent), or finishes a revert;
it is idempotent, so a kill during recovery is recovered the same way. It returns a ``Recovery``
value (the engine never prints).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from .fsutil import (TMP_SUFFIX, atomic_write, check_rel, file_lock, inside, read_nofollow, real_dir, remove,
                     sha256_bytes)
from .ftypes import Anchor, JournalError, OutsideTarget, Recovery, RecoveryError, Target

SCHEMA = 1
STATE_DIR = ".patchkit"
INTENT = "intent.json"
#: ``sha_before`` of a file the patch created (no original to keep; revert removes it)
CREATED = "created"
_SHA = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Entry:
    patch: str
    patch_version: str
    strategy: str
    distribution: str
    target_version: str
    file: str
    sha_before: str
    sha_after: str
    anchors: tuple[str, ...]
    time: str

    @property
    def created(self) -> bool:
        return self.sha_before == CREATED

    @property
    def anchor_values(self) -> tuple[Anchor, ...]:
        """The anchors (file, class, method) this entry's edits touched, as values."""
        return tuple(Anchor.from_key(k) for k in self.anchors)

    @classmethod
    def from_dict(cls, d: dict) -> "Entry":
        return cls(**{**d, "anchors": tuple(d.get("anchors", ()))})


_ENTRY_FIELDS = ("patch", "patch_version", "strategy", "distribution", "target_version", "file",
                 "sha_before", "sha_after", "anchors", "time")


def validate_entry(d: object) -> Entry:
    """An Entry from a journal/intent record, or ValueError saying which field is wrong."""
    if not isinstance(d, dict):
        raise ValueError(f"must be an object, got {type(d).__name__}")
    missing = [k for k in _ENTRY_FIELDS if k not in d]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    extra = sorted(set(d) - set(_ENTRY_FIELDS))
    if extra:
        raise ValueError(f"unknown field(s) {', '.join(extra)}")
    for k in ("patch", "patch_version", "strategy", "distribution", "target_version", "time"):
        if not isinstance(d[k], str) or (k == "patch" and not d[k]):
            raise ValueError(f"'{k}' must be a string, got {d[k]!r}")
    why = check_rel(d["file"])
    if why:
        raise ValueError(f"'file' {why}")
    if not isinstance(d["sha_before"], str) or not (d["sha_before"] == CREATED or _SHA.fullmatch(d["sha_before"])):
        raise ValueError(f"'sha_before' must be a sha256 or '{CREATED}', got {d['sha_before']!r}")
    if not isinstance(d["sha_after"], str) or not _SHA.fullmatch(d["sha_after"]):
        raise ValueError(f"'sha_after' must be a sha256, got {d['sha_after']!r}")
    if not isinstance(d["anchors"], list) or not all(isinstance(a, str) for a in d["anchors"]):
        raise ValueError(f"'anchors' must be a list of strings, got {d['anchors']!r}")
    return Entry.from_dict(d)


def _entries(doc: dict, where: str) -> list[Entry]:
    if not isinstance(doc.get("entries"), list):
        raise ValueError(f"'entries' must be a list, got {doc.get('entries')!r}")
    out = []
    for i, raw in enumerate(doc["entries"]):
        try:
            out.append(validate_entry(raw))
        except ValueError as exc:
            name = raw.get("patch") if isinstance(raw, dict) and isinstance(raw.get("patch"), str) else "?"
            raise ValueError(f"{where} entry {i} (patch {name}): {exc}") from None
    return out


@dataclass
class Journal:
    path: Path
    distribution: str
    version: str
    entries: list[Entry] = field(default_factory=list)

    @property
    def state_dir(self) -> Path:
        return self.path.parent

    @property
    def root(self) -> Path:
        return self.state_dir.parent

    def original_path(self, sha: str) -> Path:
        if not _SHA.fullmatch(sha):
            raise JournalError(f"{self.path}: {sha!r} is not a sha256; no original to read")
        return self.state_dir / "originals" / sha

    def file(self, e: Entry) -> Path:
        """The target file of an entry, proven to stay inside the target root."""
        return inside(self.root, e.file, f"journal entry of {e.patch}:")

    def for_patch(self, patch: str) -> list[Entry]:
        return [e for e in self.entries if e.patch == patch]

    def for_file(self, rel: str) -> list[Entry]:
        return [e for e in self.entries if e.file == rel]

    def patches(self) -> list[str]:
        seen: list[str] = []
        for e in self.entries:
            if e.patch not in seen:
                seen.append(e.patch)
        return seen

    def keep_original(self, data: bytes) -> str:
        sha = sha256_bytes(data)
        real_dir(self.state_dir, create=True)
        real_dir(self.state_dir / "originals", create=True)
        p = self.original_path(sha)
        try:
            if sha256_bytes(read_nofollow(p)) == sha:
                return sha
        except FileNotFoundError:
            pass
        atomic_write(p, data, 0o644)
        return sha

    def original(self, sha: str) -> bytes:
        p = self.original_path(sha)
        real_dir(self.state_dir / "originals")
        try:
            data = read_nofollow(p)
        except OSError:
            raise JournalError(f"{p}: the kept original is missing; cannot revert byte for byte") from None
        if sha256_bytes(data) != sha:
            raise JournalError(f"{p}: the kept original is corrupted (hash mismatch)")
        return data

    def save(self) -> None:
        real_dir(self.state_dir, create=True)
        doc = {"schema": SCHEMA, "distribution": self.distribution, "version": self.version,
               "entries": [asdict(e) for e in self.entries]}
        atomic_write(self.path, (json.dumps(doc, indent=2) + "\n").encode(), 0o644)


def state_dir(target: Target) -> Path:
    return target.root / STATE_DIR


def journal_path(target: Target) -> Path:
    return state_dir(target) / "journal.json"


def _read_json(path: Path) -> Optional[object]:
    try:
        raw = read_nofollow(path)
    except FileNotFoundError:
        return None
    except OutsideTarget:
        raise
    except OSError as exc:
        raise JournalError(f"{path}: unreadable ({exc.strerror or exc})") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise JournalError(f"{path}: corrupted journal ({exc}); restore it or remove it and reinstall the package") from None


def load(target: Target, must_exist: bool = False, check_version: bool = True) -> Journal:
    """The target's journal (empty when none). Corrupted, malformed (schema) or foreign journals
    raise JournalError naming the entry and field; a symlinked state folder or journal raises
    OutsideTarget."""
    path = journal_path(target)
    if not real_dir(path.parent):
        doc = None
    else:
        doc = _read_json(path)
    if doc is None:
        if must_exist:
            raise JournalError(f"{path}: no journal; nothing was applied to {target.describe()} by patchkit")
        return Journal(path, target.distribution, target.version)
    try:
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or isinstance(doc.get("schema"), bool):
            raise ValueError(f"unknown schema {doc.get('schema') if isinstance(doc, dict) else type(doc).__name__}")
        for k in ("distribution", "version"):
            if not isinstance(doc.get(k), str):
                raise ValueError(f"'{k}' must be a string, got {doc.get(k)!r}")
        j = Journal(path, doc["distribution"], doc["version"], _entries(doc, "journal"))
    except ValueError as exc:
        raise JournalError(f"{path}: corrupted journal ({exc}); restore it or remove it and reinstall the package") from None
    if check_version and (j.version != target.version or j.distribution != target.distribution):
        raise JournalError(
            f"{path}: journal was written for {j.distribution} {j.version} but the target is "
            f"{target.distribution} {target.version} (package reinstalled?); remove {path.parent} "
            f"and apply again"
        )
    return j


# ---------------------------------------------------------------------------- write-ahead intent
@dataclass(frozen=True)
class Intent:
    """An apply or revert in flight: the entries it adds (apply) or removes (revert)."""

    op: str
    patch: str
    entries: tuple[Entry, ...]


def intent_path(target: Target) -> Path:
    return state_dir(target) / INTENT


def begin(target: Target, intent: Intent) -> None:
    """Durably record ``intent`` before the first source write."""
    real_dir(state_dir(target), create=True)
    doc = {"schema": SCHEMA, "op": intent.op, "patch": intent.patch, "entries": [asdict(e) for e in intent.entries]}
    atomic_write(intent_path(target), (json.dumps(doc, indent=2) + "\n").encode(), 0o644)


def end(target: Target) -> None:
    """The operation is committed: drop the intent (durably)."""
    remove(intent_path(target))


def read_intent(target: Target) -> Optional[Intent]:
    path = intent_path(target)
    doc = _read_json(path)
    if doc is None:
        return None
    try:
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise ValueError("unknown schema")
        if doc.get("op") not in ("apply", "revert") or not isinstance(doc.get("patch"), str):
            raise ValueError(f"'op' must be apply or revert and 'patch' a string, got {doc.get('op')!r}, {doc.get('patch')!r}")
        return Intent(doc["op"], doc["patch"], tuple(_entries(doc, "intent")))
    except ValueError as exc:
        raise RecoveryError(f"{path}: malformed intent ({exc}); an interrupted operation cannot be recovered "
                            f"automatically: restore the files from {path.parent / 'originals'} and remove it") from None


def _temps(folder: Path) -> list[Path]:
    try:
        return [folder / n for n in os.listdir(folder) if n.endswith(TMP_SUFFIX)]
    except OSError:
        return []


def pending(target: Target) -> bool:
    """True when an interrupted operation (an intent or a leftover temp file) awaits recovery."""
    sd = state_dir(target)
    if not real_dir(sd):
        return False
    return os.path.lexists(sd / INTENT) or bool(_temps(sd) or _temps(sd / "originals"))


def snapshot(target: Target) -> tuple:
    """(intent present, journal identity): equal before and after a lock-free read means no
    apply/revert ran in between."""
    def ident(p: Path):
        try:
            st = os.lstat(p)
            return (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            return None
    return (os.path.lexists(intent_path(target)), ident(journal_path(target)))


def recover(target: Target, lock_timeout: float = 10.0) -> Optional[Recovery]:
    """Finish or roll back an interrupted apply/revert (taking the lock only when one is pending)."""
    if not pending(target):
        return None
    with file_lock(state_dir(target) / "lock", lock_timeout):
        return recover_locked(target)


def recover_locked(target: Target) -> Optional[Recovery]:
    """``recover`` for a caller that already holds the target's lock."""
    sd = state_dir(target)
    if not real_dir(sd):
        return None
    for tmp in _temps(sd) + _temps(sd / "originals"):
        remove(tmp, durable=False)
    intent = read_intent(target)
    if intent is None:
        return None
    j = load(target)
    for e in intent.entries:  # a kill between a temp file and its rename leaves the temp behind
        p = j.file(e)
        for tmp in _temps(p.parent):
            if tmp.name.startswith(f".{p.name}."):
                remove(tmp, durable=False)
    if intent.op == "apply":
        committed = all(e in j.entries for e in intent.entries)
        files = () if committed else rollback(target, j, intent)
        action = "finished" if committed else "rolled back"
    else:
        files = _finish_revert(j, intent)
        action = "finished"
    end(target)
    return Recovery(intent.op, intent.patch, action, files)


def _current(p: Path) -> Optional[str]:
    try:
        return sha256_bytes(read_nofollow(p))
    except FileNotFoundError:
        return None


def rollback(target: Target, j: Journal, intent: Intent) -> tuple[str, ...]:
    """Put every file of an uncommitted apply back to its original bytes (or remove a created
    one); a file that is neither the original nor what the apply wrote is left alone and raises."""
    restored = []
    for e in reversed(intent.entries):
        p = j.file(e)
        cur = _current(p)
        if e.created:
            if cur is None:
                continue
            if cur != e.sha_after:
                raise RecoveryError(f"{e.file}: changed by hand after an interrupted apply of {e.patch} created it; "
                                    f"remove it, then remove {intent_path(target)}")
            remove(p)
        else:
            if cur == e.sha_before:
                continue
            if cur != e.sha_after:
                raise RecoveryError(f"{e.file}: neither the original nor what the interrupted apply of {e.patch} wrote "
                                    f"(sha256 {str(cur)[:12]}); restore it from {j.original_path(e.sha_before)}, "
                                    f"then remove {intent_path(target)}")
            atomic_write(p, j.original(e.sha_before))
        restored.append(e.file)
    return tuple(reversed(restored))


def _finish_revert(j: Journal, intent: Intent) -> tuple[str, ...]:
    done = []
    for e in intent.entries:
        p = j.file(e)
        cur = _current(p)
        if e.created:
            if cur is not None:
                remove(p)
        elif cur != e.sha_before:
            atomic_write(p, j.original(e.sha_before))
        done.append(e.file)
    gone = set(intent.entries)
    if any(e in gone for e in j.entries):
        j.entries = [e for e in j.entries if e not in gone]
        j.save()
    return tuple(done)
