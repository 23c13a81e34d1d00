"""Find a target without importing it: an installed distribution, a folder, or a release
fetched from the package registry into the user cache."""
from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, Optional

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from .fsutil import cache_dir
from .ftypes import FetchError, Target, TargetKind, TargetNotFound, UsageError

#: platforms named to pip so that per-CPython binary wheels download whatever Python runs us
PLATFORMS = ("manylinux_2_34_x86_64", "manylinux_2_31_x86_64", "manylinux_2_28_x86_64",
             "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux1_x86_64", "linux_x86_64", "any")
FETCH_PYTHON = "3.12"


def import_name(distribution: str) -> str:
    return canonicalize_name(distribution).replace("-", "_")


def installed(distribution: str) -> Target:
    """The distribution installed in this environment, located through its metadata."""
    try:
        dist = md.distribution(distribution)
    except md.PackageNotFoundError:
        raise TargetNotFound(f"--target {distribution}: not installed in {sys.prefix}") from None
    pkg = import_name(distribution)
    root = Path(str(dist.locate_file(""))).resolve()
    if not (root / pkg).is_dir():
        spec = importlib.util.find_spec(pkg)  # finds, never imports the package itself
        if spec is None or not spec.submodule_search_locations:
            raise TargetNotFound(f"--target {distribution}: package folder '{pkg}' not found")
        root = Path(list(spec.submodule_search_locations)[0]).resolve().parent
    return Target(distribution, dist.version, root, TargetKind.INSTALLED)


def _version_in_folder(root: Path, distribution: str) -> Optional[str]:
    norm = import_name(distribution)
    for info in root.glob("*.dist-info"):
        name, _, ver = info.name[: -len(".dist-info")].partition("-")
        if import_name(name) == norm and ver:
            return ver
    vfile = root / norm / "version.py"
    if vfile.is_file():
        m = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", vfile.read_text(errors="replace"))
        if m:
            return m.group(1)
    return None


def directory(path: Path, distribution: str, version: Optional[str] = None) -> Target:
    """A folder holding the package: either the folder that contains ``sglang/`` or ``sglang/`` itself."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise TargetNotFound(f"--target-dir {path}: no such folder")
    pkg = import_name(distribution)
    root = path.resolve()
    if not (root / pkg).is_dir() and root.name == pkg:
        root = root.parent
    if not (root / pkg).is_dir():
        raise TargetNotFound(f"--target-dir {path}: holds no '{pkg}/' package folder")
    ver = version or _version_in_folder(root, distribution)
    if ver is None:
        raise TargetNotFound(
            f"--target-dir {path}: cannot tell the {distribution} version (no dist-info, "
            f"no {pkg}/version.py); pass --target-version"
        )
    return Target(distribution, ver, root, TargetKind.DIRECTORY)


def parse_requirement(spec: str) -> tuple[str, str]:
    """``sglang==0.5.12`` -> (``sglang``, ``0.5.12``); anything else is a UsageError."""
    m = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([0-9][A-Za-z0-9.+!-]*)\s*", spec)
    if not m:
        raise UsageError(f"release '{spec}': write it as NAME==VERSION, e.g. sglang==0.5.12")
    try:
        Version(m.group(2))
    except InvalidVersion:
        raise UsageError(f"release '{spec}': '{m.group(2)}' is not a version") from None
    return canonicalize_name(m.group(1)), m.group(2)


def release_dir(distribution: str, version: str) -> Path:
    return cache_dir() / "releases" / f"{import_name(distribution)}-{version}"


def cached_release(distribution: str, version: str) -> Optional[Target]:
    """The unpacked release, or None when it is missing, half-unpacked, or was patched in place
    (a ``.patchkit`` journal folder in it, left by patchkit < 0.2): fetch then unpacks it afresh."""
    d = release_dir(distribution, version)
    if (d / ".complete").is_file() and not (d / ".patchkit").exists():
        return Target(canonicalize_name(distribution), version, d, TargetKind.RELEASE)
    return None


def fetch(spec: str, progress: Optional[Callable[[str], None]] = None,
          pip_output=None) -> Target:
    """Download ``NAME==VERSION`` (no dependencies) into the cache and unpack it once.

    A release already in the cache is returned without any network access. ``pip_output`` is a
    file object that receives pip's own progress bar (the CLI passes stderr).
    """
    dist, version = parse_requirement(spec)
    hit = cached_release(dist, version)
    if hit is not None:
        return hit
    dest = release_dir(dist, version)
    dest.parent.mkdir(parents=True, exist_ok=True)
    wheels = cache_dir() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = _find_wheel(wheels, dist, version)
    if wheel is None:
        if progress:
            progress(f"downloading {dist}=={version} (no dependencies) from the package registry")
        plat = [a for p in PLATFORMS for a in ("--platform", p)]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", FETCH_PYTHON, "--implementation", "cp", *plat,
               "--progress-bar", "on", "--disable-pip-version-check", "-d", str(wheels),
               f"{dist}=={version}"]
        r = subprocess.run(cmd, stdout=pip_output or subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            last = [ln for ln in (r.stderr or "").strip().splitlines() if ln.startswith("ERROR")][-1:]
            raise FetchError(f"{dist}=={version}: pip download failed: {' '.join(last) or r.returncode}")
        wheel = _find_wheel(wheels, dist, version)
        if wheel is None:
            raise FetchError(f"{dist}=={version}: pip reported success but no wheel is in {wheels}")
    if progress:
        progress(f"unpacking {wheel.name}")
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        with zipfile.ZipFile(wheel) as z:
            pkg = import_name(dist) + "/"
            members = [m for m in z.namelist() if m.startswith(pkg) or ".dist-info/" in m]
            z.extractall(tmp, members)
        (tmp / ".complete").write_text(wheel.name + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Target(dist, version, dest, TargetKind.RELEASE)


def _find_wheel(folder: Path, dist: str, version: str) -> Optional[Path]:
    stem = f"{import_name(dist)}-{version}-"
    for w in sorted(folder.glob("*.whl")):
        if w.name.lower().startswith(stem.lower()):
            return w
    return None


def resolve(distribution: Optional[str] = None, target_dir: Optional[Path] = None,
            release: Optional[str] = None, version: Optional[str] = None,
            default_distribution: str = "sglang", fetch_missing: bool = True,
            progress: Optional[Callable[[str], None]] = None, pip_output=None) -> Target:
    """One entry point for the three kinds of target (exactly one of them may be given)."""
    given = [x for x in (distribution, target_dir, release) if x]
    if len(given) > 1:
        raise UsageError("give one of --target, --target-dir, --release")
    if release:
        if fetch_missing:
            return fetch(release, progress, pip_output)
        d, v = parse_requirement(release)
        hit = cached_release(d, v)
        if hit is None:
            raise TargetNotFound(f"--release {release}: not in the cache; run 'patchkit fetch {release}'")
        return hit
    if target_dir:
        return directory(Path(target_dir), distribution or default_distribution, version)
    return installed(distribution or default_distribution)


# ---------------------------------------------------------------------------- the cache itself
#: what lives in the cache folder, by the name ``patchkit cache clean`` takes
CACHE_PARTS = {
    "releases": "unpacked registry releases (read-only targets for --release, matrix, tests)",
    "wheels": "downloaded wheels (a release unpacks from here without the network)",
    "analysis": "analyzer results by content hash",
    "pytest": "pytest plugin results by content hash",
    "smoke-logs": "server logs of `patchkit smoke` runs",
}


def _size(path: Path) -> tuple[int, int]:
    """(bytes, files) under ``path``; symlinks are not followed."""
    total = files = 0
    for dirpath, _dirs, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
                files += 1
            except OSError:
                pass
    return total, files


def cache_info() -> list[dict]:
    """One row per cache part: name, path, bytes, files, and the releases held."""
    root = cache_dir()
    rows = []
    for name, what in CACHE_PARTS.items():
        p = root / name
        size, files = _size(p) if p.is_dir() else (0, 0)
        row = {"part": name, "path": str(p), "bytes": size, "files": files, "what": what}
        if name == "releases" and p.is_dir():
            row["releases"] = sorted((d.name for d in p.iterdir() if (d / ".complete").is_file()),
                                     key=lambda n: _version_key(n))
        rows.append(row)
    return rows


def _version_key(dirname: str):
    _, _, v = dirname.rpartition("-")
    try:
        return (0, Version(v))
    except InvalidVersion:
        return (1, dirname)


def cache_clean(parts: Optional[list[str]] = None) -> int:
    """Remove the named cache parts (all when None); returns the bytes freed."""
    root = cache_dir()
    names = list(CACHE_PARTS) if not parts else parts
    for n in names:
        if n not in CACHE_PARTS:
            import difflib
            near = difflib.get_close_matches(n, list(CACHE_PARTS), n=1)
            raise UsageError(f"cache part '{n}' does not exist" + (f"; did you mean '{near[0]}'?" if near else
                             f"; parts: {', '.join(CACHE_PARTS)}"))
    freed = 0
    for n in names:
        p = root / n
        if p.is_dir():
            freed += _size(p)[0]
            shutil.rmtree(p, ignore_errors=True)
    return freed


def is_shared_release(t: Target) -> bool:
    """True when ``t`` is a release unpacked in the shared cache (never patched in place)."""
    try:
        Path(t.root).resolve().relative_to((cache_dir() / "releases").resolve())
        return True
    except ValueError:
        return False
