"""Analyse many files: find the import root, cache results by content hash, use the cores.

Each file ends in a FileReport (findings, or the error that stopped it): one bad file never
stops a batch.
"""
from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Iterable, Optional

from .. import __version__
from ..fsutil import atomic_write, cache_dir
from ..ftypes import FileReport, Finding, Severity
from .checker import Analyzer, Settings
from .project import Project

ANALYZER_VERSION = f"{__version__}-a7"


def import_root(path: Path) -> tuple[Path, str]:
    """The folder above the outermost package holding ``path`` and the path relative to it."""
    path = path.resolve()
    d = path.parent
    while (d / "__init__.py").is_file() and d.parent != d:
        d = d.parent
    # namespace packages (no __init__.py, as in SGLang's wheels): the nearest folder above that
    # holds a *.dist-info, a pyproject.toml or is named site-packages marks the root
    up = path.parent
    for _ in range(8):
        if up.parent == up:
            break
        if up.name == "site-packages" or any(up.glob("*.dist-info")) or (up / "pyproject.toml").is_file():
            parts = path.parent.relative_to(up).parts
            if all(p.isidentifier() for p in parts) and len(parts) >= len(path.parent.relative_to(d).parts):
                d = up
            break
        up = up.parent
    return d, path.relative_to(d).as_posix()


def expand(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out += sorted(x for x in p.rglob("*.py") if "/." not in x.as_posix())
        elif p.is_file():
            out.append(p)
    return out


def _key(rel: str, text: str, settings: Settings) -> str:
    h = hashlib.sha256()
    h.update(ANALYZER_VERSION.encode())
    h.update(json.dumps(asdict(settings), sort_keys=True).encode())
    h.update(rel.encode())
    h.update(text.encode("utf-8", "replace"))
    return h.hexdigest()


def _deps_ok(root: Path, deps: dict[str, str]) -> bool:
    for rel, sha in deps.items():
        p = root / rel
        try:
            if hashlib.sha256(p.read_bytes()).hexdigest() != sha:
                return False
        except OSError:
            return False
    return True


_SHAS: dict[tuple, str] = {}


def _sha_of(project: Project, rel: str) -> str:
    key = (id(project), rel)
    if key not in _SHAS:
        _SHAS[key] = hashlib.sha256(project.deps[rel].encode("utf-8", "replace")).hexdigest()
    return _SHAS[key]


def _analyse_chunk(args) -> list[dict]:
    """Analyse a chunk of files. The cyclic GC is paused: a chunk holds hundreds of thousands of
    AST nodes (no cycles worth collecting) and repeated full collections made parsing quadratic."""
    import gc
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _analyse_chunk_inner(args)
    finally:
        if enabled:
            gc.enable()


def _analyse_chunk_inner(args) -> list[dict]:
    files, settings, use_cache = args
    cdir = cache_dir() / "analysis"
    out = []
    projects: dict[Path, Project] = {}
    for path in files:
        path = Path(path)
        root, rel = import_root(path)
        try:
            text = path.read_text(encoding="utf-8-sig", errors="replace")
        except OSError as exc:
            out.append({"path": str(path), "error": f"unreadable: {exc}", "findings": []})
            continue
        key = _key(rel, text, settings)
        cfile = cdir / key[:2] / key
        if use_cache and cfile.is_file():
            try:
                doc = json.loads(cfile.read_text())
                if _deps_ok(root, doc["deps"]):
                    out.append({"path": str(path), "findings": doc["findings"], "cached": True, "error": doc.get("error")})
                    continue
            except (ValueError, KeyError, OSError):
                pass
        project = projects.setdefault(root, Project(root))
        project.touched = set()
        err = None
        findings: list[Finding] = []
        try:
            mod = project.add_source(rel, text)
            project.deps[rel] = text
            findings = Analyzer(project, settings).analyse([mod])
        except SyntaxError as exc:
            err = f"syntax error at line {exc.lineno}: {exc.msg}"
        except RecursionError:
            err = "recursion limit while analysing (very deep code)"
        except Exception as exc:  # the runner never raises: one outcome per file
            err = f"internal error: {type(exc).__name__}: {exc}"
        fds = [dict(f.to_dict(), path=str(path)) for f in findings]
        deps = {r: _sha_of(project, r) for r in project.touched if r != rel and r in project.deps}
        out.append({"path": str(path), "findings": fds, "error": err})
        if use_cache:
            try:
                cfile.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(cfile, json.dumps({"findings": fds, "deps": deps, "error": err}).encode(),
                             mode=0o600, durable=False)  # a cache entry: atomic, no fsync, private
            except OSError:
                pass
    return out


def analyse_paths(paths: Iterable[Path], settings: Settings = Settings(), use_cache: bool = True,
                  jobs: Optional[int] = None) -> list[FileReport]:
    """One FileReport per Python file under ``paths`` (files or folders)."""
    files = [str(p) for p in expand(paths)]
    jobs = jobs or min(os.cpu_count() or 1, 8)
    if len(files) < 64 or jobs == 1:
        raw = _analyse_chunk((files, settings, use_cache))
    else:
        # contiguous chunks: files of one package share the modules their bases live in
        sizes = [os.path.getsize(f) for f in files]
        per = sum(sizes) / jobs
        chunks, cur, acc = [], [], 0
        for f, n in zip(files, sizes):
            cur.append(f)
            acc += n
            if acc >= per and len(chunks) < jobs - 1:
                chunks.append(cur)
                cur, acc = [], 0
        chunks.append(cur)
        with ProcessPoolExecutor(jobs) as ex:
            raw = [r for part in ex.map(_analyse_chunk, [(c, settings, use_cache) for c in chunks]) for r in part]
        order = {f: i for i, f in enumerate(files)}
        raw.sort(key=lambda d: order[d["path"]])
    reports = []
    for d in raw:
        fs = [Finding(f["path"], f["line"], f["col"], f["code"], f["message"], f["class"], f["attribute"],
                      Severity(f["severity"]), f["why"], f["hint"]) for f in d["findings"]]
        reports.append(FileReport(d["path"], fs, d.get("error"), bool(d.get("cached"))))
    return reports
