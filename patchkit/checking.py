"""The one way to run checks: every consumer (``patchkit check``, ``--patchkit-check``, the gate's
analyzer stage, ``apply``'s check of the patched code) picks checks from the registry here.

Which checks run: a patch's ``Patch.checks`` (the gate, ``apply``), else the project's
``[tool.patchkit] checks`` (``check``, the pytest plugin), else every registered check.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

from .analysis.settings import Settings
from .ftypes import FileReport, Finding, UsageError


def chosen(names: Optional[Iterable[str]] = None) -> list:
    """The registered checks named (all of them when ``names`` is None), in the order named;
    an unknown name is a UsageError naming the nearest one."""
    from . import registry
    known = registry.checks()
    if names is None:
        return list(known.values())
    out = []
    for n in dict.fromkeys(names):
        if n not in known:
            import difflib
            near = difflib.get_close_matches(n, list(known), n=1)
            raise UsageError(f"no check named '{n}'" + (f"; did you mean '{near[0]}'?" if near else
                                                        f"; known: {', '.join(known) or 'none'}"))
        out.append(known[n])
    return out


def patch_checks(patches: Iterable) -> list[str]:
    """The checks the patches name, each once, in order."""
    return list(dict.fromkeys(n for p in patches for n in p.checks))


def analyse(paths: Sequence[Path], settings: Settings = Settings(), names: Optional[Iterable[str]] = None,
            use_cache: bool = True) -> list[FileReport]:
    """One FileReport per Python file under ``paths`` with the findings of every chosen check."""
    from .analysis.runner import expand
    files = expand(paths)
    merged: dict[str, FileReport] = {}
    for check in chosen(names):
        reports = check.files(files, settings, use_cache) if check.files else [_one(check, f) for f in files]
        for r in reports:
            if r.path not in merged:
                merged[r.path] = r
                continue
            m = merged[r.path]
            m.findings = m.findings + r.findings
            m.error = m.error or r.error
    return list(merged.values())


def _one(check, f: Path) -> FileReport:
    try:
        text = f.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return FileReport(str(f), error=f"cannot read: {exc}")
    try:
        return FileReport(str(f), list(check.run(str(f), text, f.parent, {})))
    except SyntaxError as exc:
        return FileReport(str(f), error=f"syntax error: {exc.msg} (line {exc.lineno})")


def source(rel: str, text: str, root: Optional[Path], overlay: Mapping[str, str],
           names: Optional[Iterable[str]] = None) -> list[Finding]:
    """The findings of every chosen check on one module's text (``overlay``: other files as text)."""
    return [f for check in chosen(names) for f in check.run(rel, text, root, overlay)]
