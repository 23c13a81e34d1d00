"""pytest plugin: ``pytest --patchkit`` runs every patch against every configured target version,
and ``--patchkit-check PATH`` runs the analyzer, as test items.

Items: ``patchkit/<patch>::anchors[<ver>]``, ``::applies``, ``::idempotent``, ``::reverts``,
``::compiles``, ``::checks``; ``patchkit-check/<file>`` per analysed file and one
``patchkit-check-status`` item so a crash of the tool can never pass silently.
Results are computed once per run (per version, under a file lock, so xdist workers share them)
and cached across runs by content hash + configuration + patchkit version.
Configuration: ``[tool.patchkit]`` in pyproject.toml: ``patches = [...]``, ``versions = [...]``
(release numbers, or "installed").
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Optional

import pytest


def pytest_addoption(parser):
    g = parser.getgroup("patchkit", "patchkit: patches and checks as test items")
    g.addoption("--patchkit", action="store_true", default=False,
                help="run every configured patch against every configured target version")
    g.addoption("--patchkit-versions", default=None,
                help="comma list of target versions (overrides [tool.patchkit] versions)")
    g.addoption("--patchkit-check", action="append", default=[], metavar="PATH",
                help="run the attr-init analyzer over PATH (file or folder); repeatable")
    g.addoption("--patchkit-no-cache", action="store_true", default=False, help="ignore cached results")
    g.addoption("--patchkit-smoke-patch", default=None, metavar="NAME",
                help="the patch the patchkit_server fixture applies (default: the one that declares a smoke spec)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and an importable sglang (skipped otherwise)")
    config.addinivalue_line("markers", "patchkit: an item made by the patchkit plugin (--patchkit, --patchkit-check)")
    paths = config.getoption("--patchkit-check")
    if paths:
        _check_paths_exist(paths)
    if config.getoption("--patchkit") or paths:
        from .config import load_section
        from .ftypes import PatchkitError
        try:  # a broken or misspelled [tool.patchkit] is a usage error, never silently ignored
            load_section(None, Path(config.rootpath))
        except PatchkitError as exc:
            raise pytest.UsageError(str(exc)) from None
    if config.getoption("--patchkit") or paths:
        config.pluginmanager.register(_Collector(config), "patchkit-collector")


def _check_paths_exist(paths) -> None:
    """A mistyped ``--patchkit-check`` path is a usage error (exit 4), never "passed"."""
    from .analysis.runner import expand
    for p in paths:
        if not Path(p).exists():
            raise pytest.UsageError(f"--patchkit-check {p}: no such file or folder")
        if not expand([Path(p)]):
            raise pytest.UsageError(f"--patchkit-check {p}: no Python files there")


class PatchkitFailure(Exception):
    """A finding or a patch failure: reported as its text, without a traceback."""


class _Item(pytest.Item):
    def __init__(self, *, result_fn, **kw):
        super().__init__(**kw)
        self._result_fn = result_fn
        self.add_marker("patchkit")

    def runtest(self):
        ok, text = self._result_fn()
        if ok is None:
            pytest.skip(text)
        if not ok:
            raise PatchkitFailure(text)

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(PatchkitFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        # the third element is pytest's "domain": it must not contain dots before a '[' (pytest
        # would turn 'buggy.py' into 'buggy::py' in verbose output), so it is the short kind name
        return self.path, None, self.name.split("/")[0] if "/" in self.name else self.name


class _Collector:
    def __init__(self, config):
        self.config = config
        self.section = _section(config)
        self._results: dict[tuple, dict] = {}
        self._check: Optional[dict] = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        from . import registry
        new: list[_Item] = []

        def add(nodeid: str, result_fn, path: Optional[Path] = None, name: Optional[str] = None):
            kw = {"path": path} if path is not None else {}
            new.append(_Item.from_parent(session, name=name or nodeid, nodeid=nodeid, result_fn=result_fn, **kw))

        if config.getoption("--patchkit"):
            from .pipeline import STEPS
            names = self.section.get("patches") or list(registry.patches())
            versions = _versions(config, self.section)
            for name in names:
                for ver in versions:
                    for step in STEPS:
                        add(f"patchkit/{name}::{step}[{ver}]", lambda n=name, v=ver, s=step: self.step(n, v, s))
        paths = config.getoption("--patchkit-check")
        if paths:
            from .analysis.runner import expand
            for f in expand([Path(p) for p in paths]):
                # node ID like pytest-mypy's: 'src/mypkg/buggy.py::patchkit-check'
                add(f"{_rel(f, config)}::patchkit-check", lambda f=f: self.check_file(f), Path(f).resolve(),
                    "patchkit-check")
            add("patchkit-check-status", self.check_status)
        items.extend(new)
        if new:  # items made here never passed through a collect report: count them so the
            # header's "collected N items" is the number that runs
            from _pytest.reports import CollectReport
            config.hook.pytest_collectreport(report=CollectReport("patchkit", "passed", None, new))

    # ---------------------------------------------------------------- patches
    def step(self, name: str, version: str, step: str):
        res = self.results(name, version)
        if "skip" in res:
            return None, res["skip"]
        ok, text = res["steps"].get(step, (False, "not reached: an earlier step failed"))
        return ok, text

    def results(self, name: str, version: str) -> dict:
        key = (name, version)
        if key not in self._results:
            self._results[key] = _shared_results(name, version, self.config.getoption("--patchkit-no-cache"))
        return self._results[key]

    # ---------------------------------------------------------------- analyzer
    def _run_check(self) -> dict:
        if self._check is None:
            from .checking import analyse
            from .config import load_settings
            try:  # the registered checks [tool.patchkit] names (default all), as `patchkit check`
                settings = load_settings(None, Path(self.config.rootpath), section=self.section)
                reports = analyse([Path(p) for p in self.config.getoption("--patchkit-check")], settings,
                                  self.section.get("checks"), use_cache=not self.config.getoption("--patchkit-no-cache"))
                self._check = {"reports": {str(Path(r.path).resolve()): r for r in reports}, "error": None}
            except Exception as exc:  # the status item reports it
                self._check = {"reports": {}, "error": f"{type(exc).__name__}: {exc}"}
        return self._check

    def check_file(self, f: Path):
        res = self._run_check()
        r = res["reports"].get(str(Path(f).resolve()))
        if r is None:
            return False, f"{f}: not analysed ({res['error'] or 'unknown reason'})"
        if r.error:
            return False, f"{f}: {r.error}"
        from .api import fail_on_level, failing
        errors = failing(r.findings, fail_on_level(None, self.section))  # the policy of `patchkit check`
        return (not errors), "\n".join(map(str, errors))

    def check_status(self):
        res = self._run_check()
        if res["error"]:
            return False, f"patchkit check crashed: {res['error']}"
        bad = [r for r in res["reports"].values() if r.error]
        if bad:
            return False, "\n".join(f"{r.path}: {r.error}" for r in bad)
        return True, ""


def _rel(f, config) -> str:
    p = Path(f).resolve()
    try:
        return p.relative_to(Path(config.rootpath).resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def _section(config) -> dict:
    from .config import load_section
    try:
        return load_section(None, Path(config.rootpath))
    except Exception:
        return {}


def _versions(config, section) -> list[str]:
    opt = config.getoption("--patchkit-versions")
    if opt:
        return [v.strip() for v in opt.split(",") if v.strip()]
    v = section.get("versions", ["installed"])
    return [v] if isinstance(v, str) else list(v)


def _tool_fingerprint() -> str:
    from . import __version__
    h = hashlib.sha256(__version__.encode())
    root = Path(__file__).resolve().parent
    for base in (root, Path(__import__("patchkit.patches", fromlist=["x"]).__path__[0]),
                 Path(__import__("patchkit.checks", fromlist=["x"]).__path__[0])):
        for p in sorted(base.rglob("*.py")):
            h.update(p.read_bytes())
    return h.hexdigest()


def _shared_results(name: str, version: str, no_cache: bool) -> dict:
    """Compute once per (patch, version, tool, target content); other xdist workers wait on the
    lock and read the file. Cached across runs in the patchkit cache folder."""
    from .api import target_for_version
    from .fsutil import atomic_write, cache_dir, file_lock
    try:
        t = target_for_version("sglang", version)
    except Exception as exc:
        return {"skip": f"target sglang {version} unavailable: {exc}"}
    key_src = f"{name}|{t.version}|{t.root}|{_tool_fingerprint()}|{_target_fingerprint(t)}"
    key = hashlib.sha256(key_src.encode()).hexdigest()
    folder = cache_dir() / "pytest"
    path = folder / f"{key}.json"
    with file_lock(folder / f"{key}.lock", timeout=900):
        if path.exists() and not no_cache:
            doc = json.loads(path.read_text())
            doc["cached"] = True
            return doc
        doc = _compute(name, t)
        atomic_write(path, json.dumps(doc).encode())
    return doc


def _target_fingerprint(t) -> str:
    h = hashlib.sha256()
    for rel in ("sglang/srt/speculative/eagle_worker_v2.py", "sglang/srt/server_args.py"):
        p = t.root / rel
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()


def _compute(name: str, t) -> dict:
    from . import registry
    from .pipeline import Trial
    patch = registry.patch(name)
    if not patch.in_range(t.version):
        return {"skip": f"{name} supports {patch.distribution}{patch.specifier}; target is {t.version}"}
    with Trial(patch, t, parts=("sglang/srt/speculative",), prefix="patchkit-pytest-") as trial:
        steps = trial.run()
    return {"steps": {r.step: (r.ok, r.detail) for r in steps}}


# ---------------------------------------------------------------------- fixtures for users
@pytest.fixture
def patchkit_patched_release(tmp_path):
    """``patchkit_patched_release("0.5.12", "dynamic-spec-disable")`` -> Target: a fetched release
    copied to a temp folder with the patch applied."""
    from . import engine, registry, target as tgt
    from .ftypes import Target
    from .pipeline import scratch_copy

    def make(version: str, patch: str) -> Target:
        rel = tgt.fetch(f"sglang=={version}")
        t = scratch_copy(rel, tmp_path / f"sglang-{version}")
        engine.apply(registry.patch(patch), t)
        return t

    return make


@pytest.fixture
def patchkit_server(tmp_path, request):
    """A launched, patched SGLang server (tiny model) for GPU tests: yields its base URL; the
    patch it applied to the installed SGLang is reverted afterwards. Skips with the reason where
    there is no GPU or no SGLang."""
    import importlib.util
    if shutil.which("nvidia-smi") is None:
        pytest.skip("no NVIDIA GPU on this machine (nvidia-smi not found)")
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("sglang is not importable here")
    from . import registry, target as tgt
    from .pipeline import applied
    from .smoke import tiny
    from .smoke.run import SmokeConfig, free_port, launch_command
    from .smoke.server import Server
    from .smoke.spec import default, spec_of
    name = request.config.getoption("patchkit_smoke_patch", None) or default().patch
    patch = registry.patch(name)
    spec = spec_of(patch)
    if spec is None:
        pytest.skip(f"patch {name} declares no smoke spec")
    t = tgt.installed(patch.distribution)
    with applied(patch, t):  # the installed package as it was found afterwards
        mt, md = tiny.write(tmp_path)
        port = free_port()
        srv = Server(launch_command(SmokeConfig(str(mt), str(md), server_args=tiny.tiny_args(spec), spec=spec), port),
                     tmp_path / "server.log", f"http://127.0.0.1:{port}")
        srv.start()
        try:
            srv.wait_ready(600)
            yield srv.base_url
        finally:
            srv.stop()
