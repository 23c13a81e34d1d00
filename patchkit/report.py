"""Output formats for ``patchkit check``: text (with source snippets), concise, JSON, SARIF 2.1.0,
and the ``--statistics`` table. Plain strings and dicts: colour is added by console.py.

Text lines read ``path:line:col: severity: CODE message: why (hint)``, the form compilers use, so
editors' problem matchers (VS Code's ``$gcc``, Emacs' compilation mode) pick them up.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable, Optional

from . import __version__
from .analysis.rules import CODES
from .baseline import Lines, fingerprint, rel_path
from .ftypes import FileReport, Finding

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
#: (start, end, kind) spans a renderer may colour; kind is a severity or "code" / "caret" / "dim"
Span = tuple[int, int, str]


def finding_line(f: Finding) -> tuple[str, list[Span]]:
    sev = f.severity.value
    head = f"{f.path}:{f.line}:{f.col}: "
    text = f"{head}{sev}: {f.code} {f.message}" + (f": {f.why}" if f.why else "") + (f" ({f.hint})" if f.hint else "")
    a = len(head)
    return text, [(0, a - 2, "bold"), (a, a + len(sev) + 1, sev), (a + len(sev) + 2, a + len(sev) + 2 + len(f.code), "code")]


def snippet(f: Finding, lines: Lines) -> list[tuple[str, list[Span]]]:
    """The flagged line with a caret under the read (``self.attr`` underlined when it is there)."""
    src = lines.get(f.path, f.line)
    if not src.strip():
        return []
    src = src.rstrip().expandtabs(4)
    num = str(f.line)
    gutter = " " * (len(num) + 2)
    start = max(f.col - 1, 0)
    width = 1
    target = f"self.{f.attr}"
    if f.attr and src[start:start + len(target)] == target:
        width = len(target)
    elif f.attr and target in src:
        start, width = src.index(target), len(target)
    caret = f"{gutter}| " + " " * start + "^" * width  # gutter lines up with " 12 | "
    first = f" {num} | {src}"
    return [(first, [(0, len(num) + 3, "dim")]), (caret, [(0, len(gutter) + 1, "dim"), (len(gutter) + 2, len(caret), f.severity.value)])]


def text_lines(findings: Iterable[Finding], lines: Lines, snippets: bool = True) -> list[tuple[str, list[Span]]]:
    out = []
    for f in findings:
        out.append(finding_line(f))
        if snippets:
            out += snippet(f, lines)
    return out


def statistics(findings: Iterable[Finding]) -> list[str]:
    """``count  CODE  severity  description`` lines, most frequent first (like ``ruff --statistics``)."""
    from .registry import checks
    from .rules import RULES
    checks()  # every check's rules join the table
    by = Counter((f.code, f.severity.value) for f in findings)
    rows = sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return [f"{n:>{width}}  {code}  {sev:<7}  {RULES[code].summary if code in RULES else CODES.get(code, '')}"
            for (code, sev), n in rows]


def summary(run, shown: int) -> str:
    by = Counter(f.severity.value for f in run.findings)
    parts = [f"{len(run.reports)} file(s)", f"{len(run.findings)} finding(s) ({by['error']} error(s), "
             f"{by['warning']} warning(s)" + (f", {by['info']} info" if by["info"] else "") + ")"]
    if shown != len(run.findings):
        parts.append(f"{shown} shown")
    if run.baselined:
        parts.append(f"{run.baselined} in the baseline (not shown)")
    if run.excluded:
        parts.append(f"{run.excluded} file(s) excluded")
    parts.append(f"{len(run.errors)} could not be analysed")
    return ", ".join(parts)


#: shown warnings above which the summary says how to see the errors alone
MANY_WARNINGS = 50


def warnings_hint(run, shown) -> Optional[str]:
    """A line for the end of a long report: the warnings outnumber what fails the run, and the
    options that narrow it (a whole real tree prints thousands of two-phase and mode warnings)."""
    sev = Counter(f.severity.value for f in shown)
    if sev["warning"] <= MANY_WARNINGS:
        return None
    errors = sum(1 for f in run.findings if f.severity.value == "error")
    return (f"hint: {sev['warning']} warnings (set-up order and configuration modes a caller may keep safe); "
            f"--only-errors prints the {errors} error(s) alone, --statistics counts them per code")


def to_json(reports: list[FileReport], findings: Optional[list[Finding]] = None, baselined: int = 0) -> dict:
    fs = findings if findings is not None else [f for r in reports for f in r.findings]
    return {"files": len(reports),
            "findings": [f.to_dict() for f in fs],
            "errors": [{"path": r.path, "error": r.error} for r in reports if r.error],
            "baselined": baselined}


def sarif(reports: list[FileReport], findings: Optional[list[Finding]] = None, lines: Optional[Lines] = None,
          root: Optional[Path] = None) -> dict:
    """A SARIF 2.1.0 log. Paths under ``root`` (default: the current folder) are relative URIs
    against ``uriBaseId`` ``%SRCROOT%``, which GitHub code scanning resolves to the checkout;
    ``partialFingerprints`` carry the baseline fingerprint so findings are tracked across commits."""
    from .registry import checks
    from .rules import RULES
    checks()  # every check's rules join the table
    root = (root or Path.cwd()).resolve()
    lines = lines or Lines()
    fs = findings if findings is not None else [f for r in reports for f in r.findings]
    codes = list(dict.fromkeys(list(RULES) + list(CODES)))
    index = {c: i for i, c in enumerate(codes)}
    rules = []
    for code in codes:
        r = RULES.get(code)
        template = CODES.get(code, r.summary if r else code)
        short = template.replace("{attr}", "x").replace("{cls}", "C").replace("{why}", "...")
        entry = {"id": code, "shortDescription": {"text": short}}
        if r:
            entry.update(name=r.name, fullDescription={"text": f"{r.summary} {r.text}"}, helpUri=r.help_uri,
                         help={"text": r.explain(), "markdown": r.explain()},
                         defaultConfiguration={"level": _LEVEL[r.level]})
        rules.append(entry)
    results = []
    for f in fs:
        rel = rel_path(f.path, root)
        loc = {"uri": rel, "uriBaseId": "%SRCROOT%"} if not rel.startswith("/") else {"uri": Path(rel).as_uri()}
        region = {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)}
        text = lines.get(f.path, f.line)
        if text and f.attr and f"self.{f.attr}" in text:
            region["endColumn"] = region["startColumn"] + len(f"self.{f.attr}")
        res = {"ruleId": f.code, "level": _LEVEL[f.severity.value],
               "message": {"text": f.message + (f": {f.why}" if f.why else "") + (f" ({f.hint})" if f.hint else "")},
               "locations": [{"physicalLocation": {"artifactLocation": loc, "region": region}}],
               "partialFingerprints": {"patchkitFingerprint/v1": fingerprint(f, rel, text)}}
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        results.append(res)
    notes = [{"level": "error", "message": {"text": f"{rel_path(r.path, root)}: {r.error}"}} for r in reports if r.error]
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "patchkit", "version": __version__, "semanticVersion": __version__,
                                          "informationUri": "https://pypi.org/project/patchkit/", "rules": rules}},
                      "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
                      "results": results,
                      "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}]}]}


def render(fmt: str, run, shown: list[Finding], statistics_only: bool = False) -> list[tuple[str, list[Span]]]:
    """The lines ``patchkit check --format fmt`` writes (one JSON/SARIF document is one line)."""
    import json
    if statistics_only:
        return [(ln, []) for ln in statistics(shown)]
    if fmt == "json":
        return [(json.dumps(to_json(run.reports, shown, run.baselined), indent=2), [])]
    if fmt == "sarif":
        return [(json.dumps(sarif(run.reports, shown, run.lines), indent=2), [])]
    return text_lines(shown, run.lines, snippets=fmt in ("text", "rich"))
