"""Run a given patchkit checkout's `check` (or pyrefly) as a subprocess and return its findings.

Shared by analyzer_recall.py and analyzer_precision.py: `--patchkit-path DIR` puts DIR first on
PYTHONPATH so the same bench can score /work/main, a helper's worktree, or an installed copy.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env(patchkit_path, extra=None):
    env = {**os.environ, **(extra or {})}
    if patchkit_path:
        env["PYTHONPATH"] = os.pathsep.join([str(Path(patchkit_path).resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def patchkit_commit(patchkit_path) -> str:
    """The measured commit: `git rev-parse` of the checkout, or the COMMIT file of an exported
    snapshot (`git archive <commit>`, so a worktree that keeps changing is measured at one commit)."""
    path = Path(patchkit_path or ROOT)
    if (path / "COMMIT").is_file():
        return (path / "COMMIT").read_text().strip()
    r = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def analyzer_key(patchkit_path) -> str:
    """The measured commit and a hash of what decides the findings (the analyzer's modules and the
    built-in checks): results memoised under it stay right while a working tree changes."""
    import hashlib
    path = Path(patchkit_path or ROOT).resolve()
    h = hashlib.sha256()
    for sub in ("patchkit/analysis", "checks", "patchkit/checks_api.py", "patchkit/ftypes.py"):
        p = path / sub
        for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            if f.is_file():
                h.update(f.relative_to(path).as_posix().encode())
                h.update(f.read_bytes())
    return f"{patchkit_commit(path)}-{h.hexdigest()[:12]}"


def patchkit_module_file(patchkit_path) -> str:
    r = subprocess.run([sys.executable, "-c", "import patchkit; print(patchkit.__file__)"],
                       capture_output=True, text=True, env=_env(patchkit_path), cwd="/")
    return r.stdout.strip()


def run_patchkit(target, patchkit_path=None, args=("--strict",), cwd=None, cache_dir=None, site=None):
    """Findings (list of dicts from --format json) of `patchkit check TARGET ARGS`; raises on a crash.
    SITE: a folder of third-party sources (e.g. torch's .py/.pyi) appended to PYTHONPATH, so library
    bases can be read by path."""
    extra = {"PATCHKIT_CACHE_DIR": str(cache_dir)} if cache_dir else {}
    cmd = [sys.executable, "-m", "patchkit", "check", str(target), "--format", "json", *args]
    env = _env(patchkit_path, extra)
    if site:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(site)) if p)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd or target)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = {}
    # exit bit 2 with a findings document: a file could not be parsed (kedro's cookiecutter
    # templates hold `{{ ... }}`), the rest was analysed; anything else is a crash or a usage error
    if r.returncode not in (0, 1) and not (r.returncode in (2, 3) and "findings" in doc and "error" not in doc):
        raise RuntimeError(f"patchkit check {target} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    return doc["findings"]




def run_pyrefly(target, site=None):
    """pyrefly's errors on TARGET as dicts {path, line, kind, message}; None when pyrefly is missing.

    The tree is copied to a fresh temporary folder first: pyrefly looks upward for a project root
    (our pyproject.toml) and would otherwise name the corpus modules `bench.analyzer_corpus...`."""
    import shutil
    import tempfile
    exe = shutil.which("pyrefly")
    if not exe:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        shutil.copytree(target, root)
        cmd = [exe, "check", ".", "--preset", "default", "--output-format", "json"]
        if site:
            cmd += ["--site-package-path", str(site)]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
        try:
            data = json.loads(r.stdout)
        except json.JSONDecodeError as e:
            raise RuntimeError(f"pyrefly on {target}: unreadable output ({e}): {r.stderr.strip()[-300:]}")
        out = []
        for e in data.get("errors", []):
            path = e.get("path", "")
            if os.path.isabs(path):
                path = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
            out.append({"path": path, "line": e.get("line", 0), "kind": e.get("name", ""),
                        "message": e.get("description", "") or e.get("concise_description", "")})
        return out


def snapshot(checkout) -> Path:
    """A copy of ``checkout``'s package, checks and patches, named by its analyzer key, to run the
    analyzer from while the working tree keeps changing (a bench that runs for an hour measures
    one state of the code, the one its results are filed under)."""
    import shutil
    import tempfile
    checkout = Path(checkout).resolve()
    key = analyzer_key(checkout)
    dest = Path(tempfile.gettempdir()) / f"patchkit-wt-{key}"
    if not (dest / "patchkit").is_dir():
        part = dest.with_name(dest.name + ".part")
        shutil.rmtree(part, ignore_errors=True)
        shutil.copytree(checkout / "patchkit", part / "patchkit", ignore=shutil.ignore_patterns("__pycache__"))
        installed_layout(checkout, part)
        (part / "COMMIT").write_text(key + "\n")
        part.rename(dest)
    return dest


def installed_layout(checkout: Path, dest: Path) -> None:
    """Copy ``checks/``, ``patches/`` and ``fixtures/`` to where an install puts them
    (``patchkit.checks`` …, pyproject's package-dir): a tree on PYTHONPATH then imports as the
    installed package does, whether the environment holds an editable install or a plain one."""
    import shutil
    for sub in ("checks", "patches", "fixtures"):
        if (checkout / sub).is_dir() and not (dest / "patchkit" / sub).exists():
            shutil.copytree(checkout / sub, dest / "patchkit" / sub, ignore=shutil.ignore_patterns("__pycache__"))
