"""``patchkit check`` without the command line: which files, which codes, which findings are new.

Consumes the analyzer through ``patchkit.analysis.runner.analyse_paths`` and returns one
``CheckRun`` value; cli.py prints it. Nothing here prints or exits.
"""
from __future__ import annotations

import fnmatch
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional, Sequence

from .baseline import Lines
from .ftypes import FileReport, Finding, UsageError


@dataclass
class CheckRun:
    reports: list[FileReport]
    #: findings after de-duplication, --select/--ignore and the baseline (all severities)
    findings: list[Finding]
    lines: Lines
    #: files dropped by --exclude
    excluded: int = 0
    #: findings the baseline covered (not in ``findings``)
    baselined: int = 0
    #: how many duplicate findings were merged
    merged: int = 0
    errors: list[FileReport] = field(default_factory=list)


def excluded(path: Path, patterns: Sequence[str], base: Path) -> bool:
    """True when ``path`` matches a glob: against its path relative to ``base``, its name, or any of
    its folders (``--exclude tests`` drops ``tests/a.py``; ``--exclude '*_pb2.py'`` drops generated code)."""
    if not patterns:
        return False
    p = Path(path)
    try:
        rel = p.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        rel = p.as_posix()
    parts = rel.split("/")
    for pat in patterns:
        pat = pat.rstrip("/")
        if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(p.name, pat) or rel.startswith(pat + "/"):
            return True
        if any(fnmatch.fnmatch(part, pat) for part in parts[:-1]):
            return True
    return False


def collect(paths: Sequence[Path], exclude: Sequence[str], base: Path) -> tuple[list[Path], int]:
    """(Python files under ``paths`` not excluded, how many were excluded). A UsageError when the
    paths hold no Python file at all: a mistyped path must not check nothing and pass."""
    from .analysis.runner import expand
    files, dropped = [], 0
    for p in paths:
        found = expand([p])
        if not found:
            what = "is not a Python file" if Path(p).is_file() else "holds no Python files"
            raise UsageError(f"{p}: {what}; nothing to check")
        for f in found:
            if excluded(f, exclude, base):
                dropped += 1
            else:
                files.append(f)
    return files, dropped


def _dedupe(findings: list[Finding]) -> tuple[list[Finding], int]:
    """One finding per (file, line, attribute, code): the first column wins."""
    seen: dict[tuple, Finding] = {}
    for f in sorted(findings, key=lambda f: (f.path, f.line, f.attr, f.code, f.col)):
        seen.setdefault((f.path, f.line, f.attr, f.code), f)
    kept = set(map(id, seen.values()))
    out = [f for f in findings if id(f) in kept]
    return out, len(findings) - len(out)


_NUL_HINT = re.compile(r"null byte|line None", re.I)


def describe_error(path: str, error: str, text: Optional[str] = None) -> str:
    """The runner's error text, made precise where Python's own message is not: a null byte gets
    its line and column instead of ``line None``."""
    if not _NUL_HINT.search(error or ""):
        return error
    try:
        data = text.encode("utf-8", "replace") if text is not None else Path(path).read_bytes()
    except OSError:
        return error
    i = data.find(b"\0")
    if i < 0:
        return error
    line = data.count(b"\n", 0, i) + 1
    col = i - (data.rfind(b"\n", 0, i) + 1) + 1
    return f"cannot parse: a null byte (\\x00) at line {line}, column {col}; is this a binary or corrupted file?"


def run(paths: Sequence[Path], settings, *, use_cache: bool = True, select: Sequence[str] = (),
        ignore: Sequence[str] = (), exclude: Sequence[str] = (), stdin: Optional[str] = None,
        stdin_filename: str = "-", baseline=None, baseline_dir: Optional[Path] = None,
        base: Optional[Path] = None, checks: Optional[Sequence[str]] = None) -> CheckRun:
    """Analyse ``paths`` (or ``stdin`` text, shown as ``stdin_filename``) and filter the findings.

    ``select`` / ``ignore`` are code prefixes (``PK00``, ``PK003``, ``ALL``); ``baseline`` is a
    Counter of fingerprints from ``patchkit.baseline.load`` (paths relative to ``baseline_dir``);
    ``checks`` names the registered checks to run (None: all of them).
    """
    from . import baseline as bl, rules
    from .checking import analyse, chosen
    base = base or Path.cwd()
    chosen(checks)  # unknown names fail first; the chosen checks' own codes join rules.RULES
    wanted = rules.matching(select, "--select") if select else set(rules.RULES)
    wanted -= rules.matching(ignore, "--ignore") if ignore else set()
    overrides = {}
    if stdin is not None:
        with tempfile.TemporaryDirectory(prefix="patchkit-stdin-") as tmp:
            name = Path(stdin_filename).name if stdin_filename != "-" else "stdin.py"
            f = Path(tmp) / (name if name.endswith(".py") else name + ".py")
            f.write_text(stdin, encoding="utf-8", errors="surrogateescape")
            raw = analyse([f], settings, checks, use_cache=False)
        reports = [FileReport(stdin_filename, [replace(x, path=stdin_filename) for x in r.findings], r.error)
                   for r in raw]
        overrides[stdin_filename] = stdin
        dropped = 0
    else:
        files, dropped = collect(paths, exclude, base)
        reports = analyse(files, settings, checks, use_cache=use_cache) if files else []
    lines = Lines(overrides)
    for r in reports:
        if r.error:
            r.error = describe_error(r.path, r.error, overrides.get(r.path))
    findings = [f for r in reports for f in r.findings if f.code in wanted]
    findings, merged = _dedupe(findings)
    known = 0
    if baseline is not None:
        findings, known = bl.split(findings, baseline, baseline_dir or base, lines)
    return CheckRun(reports, findings, lines, dropped, known, merged, [r for r in reports if r.error])

