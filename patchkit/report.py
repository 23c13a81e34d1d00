"""Machine formats for analyzer reports: JSON and SARIF 2.1.0."""
from __future__ import annotations

from . import __version__
from .analysis.messages import CODES
from .ftypes import FileReport

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def to_json(reports: list[FileReport]) -> dict:
    return {"files": len(reports),
            "findings": [f.to_dict() for r in reports for f in r.findings],
            "errors": [{"path": r.path, "error": r.error} for r in reports if r.error]}


def sarif(reports: list[FileReport]) -> dict:
    rules = [{"id": code, "shortDescription": {"text": text.replace("{attr}", "x").replace("{cls}", "C")
                                                .replace("{why}", "...")}} for code, text in CODES.items()]
    results = []
    for r in reports:
        for f in r.findings:
            results.append({
                "ruleId": f.code, "level": _LEVEL[f.severity.value],
                "message": {"text": f"{f.message}" + (f": {f.why}" if f.why else "") + (f" ({f.hint})" if f.hint else "")},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.path},
                                                    "region": {"startLine": f.line, "startColumn": f.col}}}],
            })
    notes = [{"level": "error", "message": {"text": f"{r.path}: {r.error}"}} for r in reports if r.error]
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "patchkit", "version": __version__, "rules": rules}},
                      "results": results,
                      "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}]}]}
