"""The journal: what patchkit wrote into a target, with the original bytes kept for revert.

Lives in ``<target root>/.patchkit/``: ``journal.json`` (schema 1) and ``originals/<sha256>``.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .fsutil import atomic_write, sha256_bytes
from .ftypes import JournalError, Target

SCHEMA = 1
STATE_DIR = ".patchkit"
#: ``sha_before`` of a file the patch created (no original to keep; revert removes it)
CREATED = "created"


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

    @classmethod
    def from_dict(cls, d: dict) -> "Entry":
        return cls(**{**d, "anchors": tuple(d.get("anchors", ()))})


@dataclass
class Journal:
    path: Path
    distribution: str
    version: str
    entries: list[Entry] = field(default_factory=list)

    @property
    def state_dir(self) -> Path:
        return self.path.parent

    def original_path(self, sha: str) -> Path:
        return self.state_dir / "originals" / sha

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
        p = self.original_path(sha)
        if not p.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(p, data, 0o644)
        return sha

    def original(self, sha: str) -> bytes:
        p = self.original_path(sha)
        try:
            data = p.read_bytes()
        except OSError:
            raise JournalError(f"{p}: the kept original is missing; cannot revert byte for byte") from None
        if sha256_bytes(data) != sha:
            raise JournalError(f"{p}: the kept original is corrupted (hash mismatch)")
        return data

    def save(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        doc = {"schema": SCHEMA, "distribution": self.distribution, "version": self.version,
               "entries": [asdict(e) for e in self.entries]}
        atomic_write(self.path, (json.dumps(doc, indent=2) + "\n").encode(), 0o644)


def journal_path(target: Target) -> Path:
    return target.root / STATE_DIR / "journal.json"


def load(target: Target, must_exist: bool = False, check_version: bool = True) -> Journal:
    """The target's journal (empty when none). Corrupted or foreign journals raise JournalError."""
    path = journal_path(target)
    if not path.exists():
        if must_exist:
            raise JournalError(f"{path}: no journal; nothing was applied to {target.describe()} by patchkit")
        return Journal(path, target.distribution, target.version)
    try:
        doc = json.loads(path.read_text())
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise ValueError(f"unknown schema {doc.get('schema') if isinstance(doc, dict) else '?'}")
        entries = [Entry.from_dict(e) for e in doc["entries"]]
        j = Journal(path, doc["distribution"], doc["version"], entries)
    except (ValueError, KeyError, TypeError) as exc:
        raise JournalError(f"{path}: corrupted journal ({exc}); restore it or remove it and reinstall the package") from None
    if check_version and (j.version != target.version or j.distribution != target.distribution):
        raise JournalError(
            f"{path}: journal was written for {j.distribution} {j.version} but the target is "
            f"{target.distribution} {target.version} (package reinstalled?); remove {path.parent} "
            f"and apply again"
        )
    return j
