"""The pre-launch gate: staged, stopping at the first failing stage and naming it."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from . import checking, engine, journal as jr, registry, signoff
from .fsutil import sha256_file
from .ftypes import PatchkitError, Target, VersionOutOfRange

PASS, FAIL, ERROR, SKIP = "pass", "fail", "error", "skip"


@dataclass
class Stage:
    name: str
    verdict: str
    detail: str
    seconds: float = 0.0


@dataclass
class GateResult:
    stages: list[Stage] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(s.verdict == ERROR for s in self.stages):
            return 2
        if any(s.verdict == FAIL for s in self.stages):
            return 1
        return 0

    @property
    def failed_stage(self) -> Optional[Stage]:
        return next((s for s in self.stages if s.verdict in (FAIL, ERROR)), None)

    def to_dict(self) -> dict:
        return {"exit_code": self.exit_code, "passed": self.exit_code == 0,
                "stages": [s.__dict__ for s in self.stages]}


STAGES = ("range", "hashes", "compile", "lint", "analyzer", "invariants", "signoff")


def run(target: Target, require_signoff: bool = False, signoff_path: Optional[Path] = None,
        tp: Optional[int] = None, verify_signature: bool = False) -> GateResult:
    """Run the stages in order; stop at the first that does not pass. An interrupted apply/revert
    is recovered first (a 'recovery' stage says what was done)."""
    res = GateResult()
    try:
        rec = jr.recover(target)
        if rec:
            res.stages.append(Stage("recovery", PASS, str(rec)))
        j = jr.load(target, must_exist=True)
    except PatchkitError as exc:
        res.stages.append(Stage("journal", ERROR, str(exc)))
        return res
    if not j.entries:
        res.stages.append(Stage("journal", ERROR, f"{j.path}: the journal lists no applied patch"))
        return res
    try:
        patches = [registry.patch(name) for name in j.patches()]
    except PatchkitError as exc:
        res.stages.append(Stage("journal", ERROR, str(exc)))
        return res
    steps = [("range", lambda: _range(patches, target)),
             ("hashes", lambda: _hashes(j, target)),
             ("compile", lambda: _compile(j, target)),
             ("lint", lambda: _lint(j, target)),
             ("analyzer", lambda: _analyzer(j, target, checking.patch_checks(patches))),
             ("invariants", lambda: _invariants(patches, target))]
    if require_signoff or verify_signature:
        steps.append(("signoff", lambda: _signoff(target, signoff_path, tp, verify_signature)))
    for name, fn in steps:
        t0 = time.perf_counter()
        try:
            verdict, detail = fn()
        except PatchkitError as exc:
            verdict, detail = ERROR, str(exc)
        except OSError as exc:
            verdict, detail = ERROR, f"{getattr(exc, 'filename', '') or ''}: {exc.strerror or exc}"
        res.stages.append(Stage(name, verdict, detail, round(time.perf_counter() - t0, 3)))
        if verdict != PASS:
            break
    return res


def _range(patches, target):
    # the anchors were proven when the patch was applied; the hashes stage proves the files have
    # not changed since, so this stage only needs the version range (and stays fast)
    for p in patches:
        try:
            engine.check_range(p, target)
        except VersionOutOfRange as exc:
            return FAIL, str(exc)
    return PASS, f"{len(patches)} patch(es) support {target.distribution} {target.version}"


def _hashes(j, target):
    for e in j.entries:
        p = j.file(e)
        if not p.exists():
            return FAIL, f"{e.file}: patched file is missing"
        now = sha256_file(p)
        if now != e.sha_after:
            if now == e.sha_before:
                return FAIL, f"{e.file}: the file is the unpatched original again (package reinstalled?); re-apply {e.patch}"
            return FAIL, f"{e.file}: changed since patch {e.patch} was applied (sha256 {now[:12]} != {e.sha_after[:12]}; hand edit?)"
    return PASS, f"{len(j.entries)} file(s) match the journal"


def _compile(j, target):
    for rel in {e.file for e in j.entries}:
        exc = engine.syntax_error(rel, engine.decode_source(rel, target.file(rel).read_bytes()))
        if exc is not None:
            return FAIL, f"{rel}:{exc.lineno}: {exc.msg}"
    return PASS, "patched files compile"


def _lint(j, target):
    """What pyflakes finds in each patched file and not in its kept original (undefined names,
    unused imports): a spliced name that no longer resolves in this release."""
    from .lint import new_problems
    found = []
    for e in j.entries:
        before = "" if e.created else j.original(e.sha_before).decode("utf-8", "replace")
        found += new_problems(e.file, before, target.file(e.file).read_bytes().decode("utf-8", "replace"))
    if found:
        return FAIL, f"{found[0]}" + (f" (+{len(found) - 1} more)" if len(found) > 1 else "")
    return PASS, f"no undefined names or unused imports added to {len(j.entries)} file(s)"


def _analyzer(j, target, checks):
    """Judge every class whose MRO contains a patched class (the impact set), in whichever module
    of the target it lives, not only the patched classes themselves, with the patches' checks."""
    from .analysis.impact import impact_set
    from .analysis.project import Project
    patched_classes = set()
    for e in j.entries:
        for anchor in e.anchor_values:
            patched_classes.add((e.file, anchor.cls))
    impacted = set(impact_set(Project(target.root), sorted(patched_classes))) | patched_classes
    rels = sorted({e.file for e in j.entries} | {rel for rel, _cls in impacted})
    reports = checking.analyse([target.file(r) for r in rels], names=checks)  # cached by content hash
    for rep in reports:
        if rep.error:
            return FAIL, f"{rep.path}: could not analyse: {rep.error}"
    root = target.root.resolve()
    findings, relevant = [], []
    for rel, rep in zip(rels, reports):
        for f in rep.findings:
            if f.severity.value != "error":
                continue
            try:  # a read in an inherited method is reported in the base's file
                where = Path(f.path).resolve().relative_to(root).as_posix()
            except ValueError:
                where = rel
            f = replace(f, path=where)
            findings.append(f)
            if (rel, f.cls) in impacted:
                relevant.append((rel, f))
    if relevant:
        # only what the patch introduces counts, not what the release already had (StandaloneWorkerV2
        # reads self.ps / self.tp_rank that only EAGLEWorkerV2.__init__ assigns: an upstream latent bug)
        before = _baseline(j, target, sorted({rel for rel, _f in relevant}), checks)
        relevant = [(rel, f) for rel, f in relevant if (f.cls, f.attr, f.code) not in before]
    relevant = [f for _rel, f in relevant]
    if relevant:
        return FAIL, f"{relevant[0]}" + (f" (+{len(relevant) - 1} more)" if len(relevant) > 1 else "")
    return PASS, (f"no attribute-initialization errors in the {len(impacted)} patched or inheriting class(es) "
                  f"({len(findings)} elsewhere in their files)")


def _baseline(j, target, rels: list[str], checks) -> set:
    """(class, attribute, code) of the errors these files have against the unpatched originals
    of the patched files (kept in the journal); empty when an original is missing."""
    overlay = {}
    for e in j.entries:
        if e.created:  # absent upstream: nothing to compare with
            continue
        if e.file not in overlay:  # the first entry of a file holds the pristine original
            try:
                overlay[e.file] = j.original(e.sha_before).decode("utf-8")
            except (OSError, ValueError, PatchkitError):
                return set()
    out = set()
    for rel in rels:
        text = overlay.get(rel) or target.file(rel).read_text(encoding="utf-8", errors="replace")
        for f in checking.source(rel, text, target.root, overlay, checks):
            if f.severity.value == "error":
                out.add((f.cls, f.attr, f.code))
    return out


def _invariants(patches, target):
    read = engine.reader(target)
    n = 0
    for p in patches:
        for desc, fn in p.invariants:
            err = fn(read)
            n += 1
            if err:
                return FAIL, f"patch {p.name}: {desc}: {err}"
    return PASS, f"{n} invariant(s) hold"


def _signoff(target, path, tp, verify_signature=False):
    path = Path(path) if path else signoff.default_path(target)
    if not path.exists():
        return FAIL, f"{path}: no sign-off on record; run 'patchkit smoke' on a GPU host first"
    try:
        rec = signoff.read(path)
    except OSError as exc:
        return ERROR, f"{path}: unreadable sign-off ({exc.strerror or exc})"
    except PatchkitError as exc:
        return FAIL, f"{path}: malformed sign-off: {exc}"
    why = signoff.mismatch(rec, target, tp, verify_signature=verify_signature)
    if why:
        return FAIL, f"{path}: {why}"
    signed = " (signature verified)" if verify_signature else ""
    shape = signoff.shape_note(rec)
    return PASS, (f"passing sign-off from {rec.get('created')} on {rec.get('environment', {}).get('gpu_model')}, "
                  f"{rec['package']['count']} package files, tp {rec['config'].get('tp')}{signed}"
                  + (f"; {shape}: not a quality check" if shape else ""))
