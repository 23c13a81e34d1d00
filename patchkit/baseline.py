"""A baseline of accepted findings, so a team can adopt ``check`` on code with existing findings
and fail only on new ones (``check --write-baseline FILE`` / ``check --baseline FILE``).

A finding's fingerprint survives lines moving: it hashes the file (relative to the baseline's
folder), the class, the attribute, the code and the text of the flagged line (whitespace
stripped), never the line number. A baseline is a multiset: two identical reads need two entries.
The same fingerprint is SARIF's ``partialFingerprints`` value.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional

from .ftypes import Finding, UsageError

SCHEMA = 1


def rel_path(path: str, base: Path) -> str:
    """``path`` relative to ``base`` in posix form; the absolute path when it lies elsewhere."""
    if str(path) == "-":
        return "-"
    p = Path(path).resolve()
    try:
        return p.relative_to(Path(base).resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def fingerprint(f: Finding, rel: str, line_text: str) -> str:
    h = hashlib.sha256()
    for part in (rel, f.cls, f.attr, f.code, " ".join(line_text.split())):
        h.update(part.encode("utf-8", "replace"))
        h.update(b"\0")
    return h.hexdigest()[:32]


class Lines:
    """Source lines by file, read once (for fingerprints and snippets)."""

    def __init__(self, overrides: Optional[dict[str, str]] = None):
        self._cache: dict[str, list[str]] = {k: v.splitlines() for k, v in (overrides or {}).items()}

    def get(self, path: str, line: int) -> str:
        if path not in self._cache:
            try:
                self._cache[path] = Path(path).read_text(encoding="utf-8-sig", errors="replace").splitlines()
            except OSError:
                self._cache[path] = []
        lines = self._cache[path]
        return lines[line - 1] if 0 < line <= len(lines) else ""


def entries(findings: Iterable[Finding], base: Path, lines: Lines) -> list[dict]:
    out = []
    for f in findings:
        rel = rel_path(f.path, base)
        out.append({"fingerprint": fingerprint(f, rel, lines.get(f.path, f.line)), "path": rel, "code": f.code,
                    "class": f.cls, "attribute": f.attr, "line": f.line})
    return sorted(out, key=lambda e: (e["path"], e["line"], e["code"], e["attribute"]))


def write(path: Path, findings: Iterable[Finding], lines: Lines) -> int:
    """Write the baseline (atomically); returns the number of entries."""
    from .fsutil import atomic_write
    path = Path(path)
    es = entries(findings, path.parent if str(path.parent) else Path("."), lines)
    doc = {"patchkit-baseline": SCHEMA, "findings": es}
    atomic_write(path, (json.dumps(doc, indent=1) + "\n").encode())
    return len(es)


def load(path: Path) -> Counter:
    """Fingerprints of a baseline file; a UsageError (one line, naming the file) when unreadable."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"--baseline {path}: no such file (create it with --write-baseline)") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"--baseline {path}: not a patchkit baseline ({exc})") from None
    if not isinstance(doc, dict) or doc.get("patchkit-baseline") != SCHEMA or not isinstance(doc.get("findings"), list):
        raise UsageError(f"--baseline {path}: not a patchkit baseline (schema {SCHEMA} expected)")
    try:
        return Counter(e["fingerprint"] for e in doc["findings"])
    except (TypeError, KeyError):
        raise UsageError(f"--baseline {path}: an entry has no fingerprint") from None


def split(findings: list[Finding], baseline: Counter, base: Path, lines: Lines) -> tuple[list[Finding], int]:
    """(findings not in the baseline, how many the baseline covered)."""
    left = Counter(baseline)
    new, known = [], 0
    for f in findings:
        fp = fingerprint(f, rel_path(f.path, base), lines.get(f.path, f.line))
        if left[fp] > 0:
            left[fp] -= 1
            known += 1
        else:
            new.append(f)
    return new, known
