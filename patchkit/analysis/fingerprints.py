"""Which source files are unchanged since their text was hashed, without reading them: an index of
stat fingerprints kept in the cache (git's index and mypy's cache do the same).

A warm run used to read and hash every file it checks and every base module a cached result
depends on (a third of its time on SGLang's ``srt``). With this index it stats them instead, and
reads only files whose fingerprint changed.

A fingerprint is (size, mtime, ctime, inode, device), all in nanoseconds where they are times.
Any write to a file changes its ctime, which no tool can set back, so an edit that keeps the size
and restores the mtime (``cp -p``, ``touch -r``) still reads as changed. The stat is taken
*before* the file is read, so an edit landing between the two leaves a fingerprint older than the
file: the next run reads it again. A fingerprint younger than :data:`RACY_NS` when it is taken
(the time of the stat, not of the recording, which comes after the analysis) is not recorded at
all: a coarse-timestamp filesystem could give a second edit within the same tick the same
fingerprint (git calls these entries "racily clean").

Each entry holds the hash of the text as the analyzer reads every file, checked or a base's module
(``utf-8-sig`` with universal newlines: a leading byte order mark dropped, undecodable bytes
replaced): :func:`read_text`.

The index is one JSON object (path -> [size, mtime_ns, ctime_ns, inode, device, sha]);
it is merged with what is on disk and replaced atomically, so concurrent runs can at worst drop
each other's new entries (read again next time), never corrupt one.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Optional

from ..fsutil import atomic_write
from ..ftypes import PatchkitError

INDEX = "fingerprints.json"
#: a fingerprint whose mtime or ctime is this recent is not trusted (nanoseconds)
RACY_NS = 2_000_000_000
#: past this many entries the oldest half is dropped (files that no longer exist linger otherwise)
MAX_ENTRIES = 200_000


def stamp(st: os.stat_result) -> list:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def text_sha(text: str) -> str:
    """The hash a text is recorded with (of the text as the analyzer read it)."""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def read_text(path: str) -> str:
    """A source file's text as the analyzer reads it (checked files and base modules alike)."""
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        return fh.read()


class Fingerprints:
    """The index of one cache folder. ``sha(path)``: the recorded hash while the file's fingerprint
    is unchanged, else None; ``record(path, st, sha, seen_ns)`` with ``st`` taken before the read;
    ``save()`` writes the entries recorded since loading."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / INDEX
        self.entries = self._load()
        self.new: dict[str, list] = {}

    def _load(self) -> dict:
        try:
            doc = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def sha(self, path: str, st: Optional[os.stat_result] = None) -> Optional[str]:
        e = self.entries.get(os.path.abspath(path))
        if not isinstance(e, list) or len(e) != 6:
            return None
        if st is None:
            try:
                st = os.stat(path)
            except OSError:
                return None
        return e[5] if e[:5] == stamp(st) else None

    def record(self, path: str, st: os.stat_result, sha: str, seen_ns: int) -> None:
        """``st`` taken at ``seen_ns`` (``time.time_ns()`` right after the stat), before the read."""
        if seen_ns - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
            return
        e = stamp(st) + [sha]
        key = os.path.abspath(path)
        if self.entries.get(key) != e:
            self.entries[key] = self.new[key] = e

    def save(self) -> None:
        if not self.new:
            return
        merged = {**self._load(), **self.new}
        if len(merged) > MAX_ENTRIES:
            merged = dict(list(merged.items())[-MAX_ENTRIES // 2:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(merged).encode(), mode=0o600, durable=False)
        except (OSError, PatchkitError):  # atomic_write names an unwritable folder with NotWritable
            pass  # an index that cannot be written only costs the next run reads
        self.new = {}
