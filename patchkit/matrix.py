"""Dry-run a patch against a range of releases, each fetched into the cache and copied to a scratch folder."""
from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Optional

from packaging.version import InvalidVersion, Version

from . import target as tgt
from .ftypes import AnchorNotFound, CheckFailed, FetchError, Outcome, PatchkitError, Refused, UsageError
from .patchdef import Patch
from .pipeline import Trial


@dataclass
class Row:
    version: str
    #: applies | already upstream | anchors missing | check failed | refused | fetch failed
    verdict: str
    strategy: str = ""
    detail: str = ""
    seconds: float = 0.0


def registry_versions(distribution: str) -> list[str]:
    r = subprocess.run([sys.executable, "-m", "pip", "index", "versions", distribution, "--disable-pip-version-check"],
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.split(":", 1)[1].split(",")]
    raise FetchError(f"cannot list the versions of {distribution} on the package registry")


def expand_versions(distribution: str, spec: str) -> list[str]:
    """``0.5.6..0.5.23`` (final releases in the range, from the registry) or ``0.5.12,0.5.16``."""
    try:
        if ".." in spec:
            lo, hi = (Version(x.strip()) for x in spec.split("..", 1))
            if lo > hi:
                raise UsageError(f"--versions {spec}: the range is reversed; write {hi}..{lo}")
            known = []
            for v in registry_versions(distribution):
                try:
                    pv = Version(v)
                except InvalidVersion:
                    continue
                if lo <= pv <= hi and not pv.is_prerelease and not pv.is_postrelease and not pv.is_devrelease:
                    known.append(pv)
            return [str(v) for v in sorted(known)]
        vs = [x.strip() for x in spec.split(",") if x.strip()]
        for v in vs:
            Version(v)
        return vs
    except InvalidVersion as exc:
        raise UsageError(f"--versions {spec!r}: {exc}") from None


def run_one(patch: Patch, version: str, pip_output=None) -> Row:
    t0 = time.perf_counter()
    try:
        rel = tgt.fetch(f"{patch.distribution}=={version}", pip_output=pip_output)
    except PatchkitError as exc:
        return Row(version, "fetch failed", detail=str(exc))
    # the scratch holds every file the plan reads, not only those it edits
    with Trial(patch, rel, copy_read=True, prefix="patchkit-matrix-") as trial:
        step = trial.plan()
        if step.ok:
            trial.copy()
            step = trial.apply(dry_run=True, run_check=True)
    if not step.ok:
        verdict, detail = _failure(step.error)
        return Row(version, verdict, detail=detail, seconds=time.perf_counter() - t0)
    r = step.result
    verdict = "already upstream" if r.outcome is Outcome.ALREADY_APPLIED else "applies"
    # the scratch holds only the patched files; the plan read the whole release, so its summary is the true one
    detail = trial.strategy.summary if verdict == "applies" else r.reason
    return Row(version, verdict, r.strategy, detail, round(time.perf_counter() - t0, 2))


def _failure(exc: PatchkitError) -> tuple[str, str]:
    """(verdict, detail) of a failed plan or dry run."""
    if isinstance(exc, Refused):
        return "refused", exc.reason
    if isinstance(exc, AnchorNotFound):
        return "anchors missing", str(exc)
    if isinstance(exc, CheckFailed):
        return "check failed", str(exc)
    return "refused", str(exc)  # out of range, drift, and every other error


def run_matrix(patch: Patch, versions: list[str], on_done: Optional[Callable[[Row], None]] = None,
               pip_output=None, jobs: int = 1) -> list[Row]:
    """One Row per version, in the order given. ``jobs`` > 1 runs releases in that many worker
    processes (downloads and the CPU-bound dry runs overlap); ``on_done`` sees rows as they finish."""
    if jobs <= 1 or len(versions) <= 1:
        rows = []
        for v in versions:
            row = run_one(patch, v, pip_output)
            rows.append(row)
            if on_done:
                on_done(row)
        return rows
    from concurrent.futures import ProcessPoolExecutor, as_completed
    done: dict[str, Row] = {}
    with ProcessPoolExecutor(min(jobs, len(versions))) as ex:
        futs = {ex.submit(_run_one_by_name, patch.name, v): v for v in versions}
        for fut in as_completed(futs):
            v = futs[fut]
            try:
                row = fut.result()
            except Exception as exc:  # a worker that died: one row says so, the others stand
                row = Row(v, "fetch failed", detail=f"worker failed: {type(exc).__name__}: {exc}")
            done[v] = row
            if on_done:
                on_done(row)
    return [done[v] for v in versions]


def _run_one_by_name(name: str, version: str) -> Row:
    """Worker-process entry: patches hold closures, so the worker looks the patch up by name."""
    from . import registry
    return run_one(registry.patch(name), version, None)
