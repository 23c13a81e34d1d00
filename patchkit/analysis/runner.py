"""Analyse many files: cache results by content hash (each file's import root from importroot.py), use the cores.

Each file ends in a FileReport (findings, or the error that stopped it): one bad file never
stops a batch.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import re
import json
import os
import stat
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Iterable, Optional

from .. import __version__
from ..fsutil import atomic_write, cache_dir
from ..ftypes import FileReport, Finding, PatchkitError
from .fingerprints import Fingerprints, read_text, text_sha
from .importroot import import_root
from .settings import Settings

def hashed_sources() -> list[Path]:
    """The analyzer's source files a cache key covers: the rule units and their examples included."""
    return sorted(Path(__file__).parent.rglob("*.py"))


def _source_hash() -> str:
    """A hash of the analyzer's own source: any change to it invalidates cached results (no
    hand-bumped version string to forget)."""
    h = hashlib.sha256(__version__.encode())
    here = Path(__file__).parent
    for p in hashed_sources():
        h.update(p.relative_to(here).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


ANALYZER_VERSION = _source_hash()


def expand(paths: Iterable[Path]) -> list[Path]:
    """The Python files under ``paths`` (files or folders), in path order."""
    return [Path(p) for p in expand_names(paths)]


def expand_names(paths: Iterable[Path]) -> list[str]:
    """:func:`expand` as strings: a warm run on SGLang's 1,500 files spent a tenth of its time making
    and sorting Path objects it turned back into strings."""
    out: list[str] = []
    for p in paths:
        try:
            mode = os.stat(p).st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISDIR(mode):
            # hidden folders below the one named are skipped (.git, .venv, .tox); the path above
            # it may well contain one (~/.cache, ~/.pyenv, a .venv's site-packages)
            found = []
            for d, dirs, files in os.walk(str(Path(p))):  # spelt as a Path spells it (``./pkg`` -> ``pkg``)
                dirs[:] = [x for x in dirs if not x.startswith(".")]
                found += [os.path.join(d, f) for f in files if f.endswith(".py") and not f.startswith(".")]
            out += sorted(found, key=lambda f: f.split(os.sep))  # in path order (parts), as Paths sort
        elif stat.S_ISREG(mode):
            out.append(str(Path(p)))
    return out


@functools.lru_cache(maxsize=64)
def _settings_text(settings: Settings) -> bytes:
    return json.dumps(asdict(settings), sort_keys=True).encode()


def _key(rel: str, sha: str, settings: Settings) -> str:
    """A file's cache key: the analyzer, the settings, its path below the import root and the hash
    of its text (fingerprints.text_sha)."""
    h = hashlib.sha256()
    h.update(ANALYZER_VERSION.encode())
    h.update(_settings_text(settings))
    h.update(rel.encode())
    h.update(sha.encode())
    return h.hexdigest()


def _sha(path: str, fps: Fingerprints) -> str:
    """The hash of ``path``'s text: from the fingerprint index while the file is unchanged, else
    read (and recorded)."""
    st = os.stat(path)
    seen = time.time_ns()
    got = fps.sha(path, st)
    if got is None:
        got = text_sha(read_text(path))
        fps.record(path, st, got, seen)
    return got


def _deps_ok(root: str, deps: dict[str, str], memo: dict, fps: Fingerprints) -> bool:
    """Every module a cached result depends on (a base's file) still has the recorded hash; a file
    the run already hashed is not looked at again."""
    for rel, sha in deps.items():
        p = os.path.join(root, rel)
        now = memo.get(p)
        if now is None:
            try:
                now = memo[p] = _sha(p, fps)
            except OSError:
                return False
        if now != sha:
            return False
    return True


def _lookup(files: list[str], settings: Settings, fps: Fingerprints) -> tuple[list[dict], list[str]]:
    """(results found in the cache, files still to analyse): a warm run never starts a worker, and
    reads no file whose fingerprint is unchanged."""
    packs = _load_packs(cache_dir() / "analysis")
    if not packs:
        return [], files
    memo: dict[str, str] = {}  # absolute path -> sha: a checked file that is also a base's module is hashed once
    keyed = []
    for f in files:
        try:
            root, rel = import_root(f)
            sha = _sha(f, fps)
        except OSError:
            keyed.append((f, None, None))
            continue
        root_s = str(root)
        memo[os.path.join(root_s, rel)] = sha
        keyed.append((f, root_s, _key(rel, sha, settings)))
    hits, misses = [], []
    for f, root_s, key in keyed:
        doc = packs.get(key) if key else None
        try:
            if doc is not None and _deps_ok(root_s, doc["deps"], memo, fps):
                own = doc.get("self")
                hits.append({"path": f, "findings": [dict(x, path=f) if own is None or x["path"] == own else dict(x)
                                                     for x in doc["findings"]],
                             "cached": True, "error": doc.get("error")})
                continue
        except (KeyError, TypeError, AttributeError):
            pass
        misses.append(f)
    return hits, misses


_SHAS: dict[tuple, str] = {}
_HAS_CLASS = re.compile(r"^[ \t]*class\s", re.M)


def _sha_of(project, rel: str) -> str:
    key = (id(project), rel)
    if key not in _SHAS:
        _SHAS[key] = text_sha(project.deps[rel])
    return _SHAS[key]


def _analyse_chunk(args) -> list[dict]:
    """Analyse a chunk of files. The cyclic GC is paused: a chunk holds hundreds of thousands of
    AST nodes (no cycles worth collecting) and repeated full collections made parsing quadratic.
    A worker process (``args[3]``) keeps its trees and freezes them out of the collector's sight
    when it is done: otherwise the first collection after re-enabling scans every node the chunk
    allocated (about a second on SGLang) just to send the results back, in a process about to end."""
    import gc
    enabled = gc.isenabled()
    gc.disable()
    worker = len(args) > 3 and args[3]
    try:
        # a worker serves one run's chunks (its pool lives for one call): the later ones reuse what the
        # first parsed and indexed
        out, projects = _analyse_chunk_inner(args[:3], _KEEP[0] if worker and _KEEP else None)
        if worker:
            if not _KEEP:
                _KEEP.append(projects)
            gc.freeze()
        else:  # in-process (the gate, the pytest plugin): let the chunk's trees go
            from .injection import new_chunk
            new_chunk()
        return out
    finally:
        if enabled:
            gc.enable()


#: a worker's projects, kept from its first chunk to the end of the run (see _analyse_chunk)
_KEEP: list = []
CHUNKS_PER_JOB = 3


def _analyse_chunk_inner(args, projects: Optional[dict] = None) -> tuple[list[dict], dict]:
    """Analyse files (the cache was consulted by the caller) and add the results to the cache.
    ``projects``: those of an earlier chunk of the same run, whose tree-wide indexes stand."""
    files, settings, use_cache = args
    from .checker import Analyzer
    from .injection import new_chunk
    from .project import Project
    if projects is None:
        new_chunk()  # tree-wide indexes are built once per run's worker, never reused from an earlier run
        projects = {}
    cdir = cache_dir() / "analysis"
    out = []
    fresh: dict = {}
    for path in files:
        path = Path(path)
        root, rel = import_root(path)
        try:
            st = os.stat(path)  # before the read: an edit in between leaves a stale stamp, read again next run
            seen = time.time_ns()
            text = read_text(str(path))
        except OSError as exc:
            out.append({"path": str(path), "error": f"unreadable: {exc}", "findings": []})
            continue
        sha = text_sha(text)
        key = _key(rel, sha, settings)
        if not _HAS_CLASS.search(text):  # no class statement: nothing to analyse, but say if it cannot parse
            try:
                ast.parse(text, filename=rel)
                err = None
            except SyntaxError as exc:
                err = f"syntax error at line {exc.lineno}: {exc.msg}"
            except (ValueError, RecursionError) as exc:
                err = f"cannot parse: {exc}"
            out.append({"path": str(path), "findings": [], "error": err, "stamp": (st, sha, seen)})
            fresh[key] = {"findings": [], "deps": {}, "error": err}
            continue
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
        # a finding in a base's module (a read an inherited method makes) keeps its own file
        fds = [dict(f.to_dict(), path=str(path) if f.path == rel else str(root / f.path)) for f in findings]
        deps = {r: _sha_of(project, r) for r in project.touched if r != rel and r in project.deps}
        out.append({"path": str(path), "findings": fds, "error": err, "stamp": (st, sha, seen)})
        if use_cache and not (err or "").startswith("internal error"):
            # an internal error may not recur (a file of the tree removed while the run read it):
            # reported, never replayed from the cache
            fresh[key] = {"findings": fds, "deps": deps, "error": err, "self": str(path)}
    if fresh:
        _write_pack(cdir, fresh)
    return out, projects


#: the cache is a folder of packs (one JSON object key -> result per analysed chunk): one file
#: per worker and run instead of one per source file; the newest packs are kept
MAX_PACKS = 16
MAX_ENTRIES = 50_000


def _load_packs(cdir: Path) -> dict:
    merged: dict = {}
    try:
        packs = sorted((cdir / "packs").glob("*.json"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return merged
    for p in packs[-MAX_PACKS:]:  # newer packs win
        try:
            merged.update(json.loads(p.read_bytes()))
        except (OSError, ValueError):
            continue
    return merged


def _write_pack(cdir: Path, entries: dict) -> None:
    """Write ``entries`` as a new pack; past MAX_PACKS, compact everything into one pack of at
    most MAX_ENTRIES, newest first.
    Concurrent writers can at worst drop entries (recomputed later), never corrupt one."""
    folder = cdir / "packs"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        old = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
        if len(old) >= MAX_PACKS:
            merged = {**_load_packs(cdir), **entries}
            entries = dict(list(merged.items())[-MAX_ENTRIES:])
        name = hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest()[:32] + ".json"
        atomic_write(folder / name, json.dumps(entries).encode(), mode=0o600, durable=False)  # atomic, private
        if len(old) >= MAX_PACKS:
            for p in old:
                if p.name != name:
                    p.unlink(missing_ok=True)
    except (OSError, PatchkitError):  # atomic_write names an unwritable folder with NotWritable
        pass  # a cache that cannot be written only costs the next run time


def analyse_paths(paths: Iterable[Path], settings: Settings = Settings(), use_cache: bool = True,
                  jobs: Optional[int] = None) -> list[FileReport]:
    """One FileReport per Python file under ``paths`` (files or folders)."""
    every = expand_names(paths)
    fps = Fingerprints(cache_dir() / "analysis") if use_cache else None
    hits, files = _lookup(every, settings, fps) if use_cache else ([], every)
    jobs = jobs or min(os.cpu_count() or 1, 8)
    if files:  # the class index of each package, built once here and shared with the workers
        from .classindex import header_tokens
        for root, top in sorted({(r, rel.split("/")[0]) for r, rel in map(import_root, map(Path, files))}):
            header_tokens(root, top)
    if not files:
        raw = []
    elif len(files) < 64 or jobs == 1:
        raw = _analyse_chunk((files, settings, use_cache))
    else:
        # contiguous chunks (files of one package share the modules their bases live in), a few per
        # worker, handed out as workers free up: the cost of a file follows its classes, not its
        # size (SGLang's srt in two halves by size: 9.9 s against 12.4 s of CPU)
        parts = jobs * CHUNKS_PER_JOB
        sizes = [os.path.getsize(f) for f in files]
        per = sum(sizes) / parts
        chunks, cur, acc = [], [], 0
        for f, n in zip(files, sizes):
            cur.append(f)
            acc += n
            if acc >= per and len(chunks) < parts - 1:
                chunks.append(cur)
                cur, acc = [], 0
        chunks.append(cur)
        with ProcessPoolExecutor(jobs) as ex:
            raw = [r for part in ex.map(_analyse_chunk, [(c, settings, use_cache, True) for c in chunks]) for r in part]
    for d in raw:  # what the workers read, fingerprinted before they read it
        st, sha, seen = d.pop("stamp", (None, None, None))
        if fps is not None and st is not None:
            fps.record(d["path"], st, sha, seen)
    if fps is not None:
        fps.save()
    raw += hits
    order = {f: i for i, f in enumerate(every)}
    raw.sort(key=lambda d: order[d["path"]])
    _dedupe(raw)
    reports = []
    for d in raw:
        fs = [Finding.from_dict(_as_given(f, d["path"])) for f in d["findings"]]
        reports.append(FileReport(d["path"], fs, d.get("error"), bool(d.get("cached"))))
    return reports


def _as_given(f: dict, own: str) -> dict:
    """A finding in a base's module (kept absolute in the cache) spelled like the file it was found
    for: relative to the current folder when the user named the files relatively."""
    p = f["path"]
    if os.path.isabs(p) and not os.path.isabs(own):
        try:
            return dict(f, path=os.path.relpath(p))
        except ValueError:  # another drive (Windows)
            return f
    return f


_RANK = {"error": 0, "warning": 1, "info": 2}
_INHERITED = "(inherited by "


def _dedupe(raw: list[dict]) -> None:
    """One finding per (file, line, attribute, code) over the whole run: a base's read that
    several subclasses (each analysed with its own file) inherit is reported once, naming the
    other classes that share it."""
    first: dict[tuple, dict] = {}
    extra: dict[tuple, list] = {}
    for d in raw:
        kept = []
        for f in d["findings"]:
            # one key however the path is spelled: a base's module is absolute in the results of a
            # subclass's file and as given in its own file's
            k = (os.path.abspath(f["path"]), f["line"], f["attribute"], f["code"])
            if k in first:
                old = first[k]
                rank, old_rank = _RANK.get(f.get("severity"), 3), _RANK.get(old.get("severity"), 3)
                if rank < old_rank or (rank == old_rank and _INHERITED in old.get("why", "")
                                       and _INHERITED not in f.get("why", "")):
                    # the most severe class's finding is the one shown (a mixin's warning must not
                    # hide a subclass's error on the same read); at the same severity, the class
                    # whose method holds the read
                    f, _ = dict(old), old.update(f)
                if f["class"] != old["class"] and f["class"] not in extra.setdefault(k, []):
                    extra[k].append(f["class"])
                continue
            first[k] = f
            kept.append(f)
        d["findings"] = kept
    for k, names in extra.items():
        if names:
            more = f", +{len(names) - 3} more" if len(names) > 3 else ""
            first[k]["why"] += f" (also in {', '.join(names[:3])}{more})"
            first[k]["also_in"] = sorted(names)
