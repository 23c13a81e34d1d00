"""patchkit as a library: one function per command, each returning a frozen result that carries
its data and ``exit_code``, the code ``patchkit <command>`` exits with (the README's table).

The CLI (cli.py) only parses arguments and formats these results; the pytest plugin calls the
same functions for target resolution and the fail-on policy. Errors are raised as PatchkitError
(one line, ``exit_code`` on the class); nothing here prints: lines meant for a person go through
the callbacks of ``Hooks``.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from .ftypes import CheckFailed, Finding, PatchkitError, PatchResult, Target, UsageError

Say = Callable[[str], None]


@dataclass(frozen=True)
class Hooks:
    """Where a command's lines for a person go (None: nowhere)."""

    #: progress lines (downloads, unpacking); the CLI hides them with -q / --json
    progress: Optional[Say] = None
    #: pip's own download output (a file object), or None to capture it
    pip_output: Any = None
    #: "an interrupted apply/revert was finished or rolled back": the Recovery's one line
    recovered: Optional[Say] = None
    #: the gate's result before a command goes on (``launch``, ``smoke``)
    gate: Optional[Callable[[Any], None]] = None
    #: smoke's plan and per-cell lines
    say: Optional[Say] = None


# ------------------------------------------------------------------------------------- targets
@dataclass(frozen=True)
class TargetSpec:
    """What ``--target`` / ``--target-dir`` / ``--release`` / ``--target-version`` name."""

    distribution: Optional[str] = None
    target_dir: Optional[Path] = None
    release: Optional[str] = None
    target_version: Optional[str] = None


def resolve_target(spec: TargetSpec, hooks: Hooks = Hooks()) -> Target:
    """The target; an interrupted apply/revert found there is finished or rolled back first."""
    from . import target as tgt
    from .journal import recover
    t = tgt.resolve(spec.distribution, spec.target_dir, spec.release, spec.target_version,
                    progress=hooks.progress, pip_output=hooks.pip_output)
    note = recover(t)
    if note and hooks.recovered:
        hooks.recovered(str(note))
    return t


def target_for_version(distribution: str, version: str, hooks: Hooks = Hooks()) -> Target:
    """``installed`` (the installed distribution) or a release number (fetched into the cache)."""
    from . import target as tgt
    if version == "installed":
        return tgt.installed(distribution)
    return tgt.fetch(f"{distribution}=={version}", hooks.progress, pip_output=hooks.pip_output)


def _refuse_shared_release(t: Target, release: Optional[str], command: str, name: str) -> None:
    """apply / revert never write into the shared release cache (matrix, tests and --release read it)."""
    from . import target as tgt
    if release and tgt.is_shared_release(t):
        raise UsageError(f"--release {release} is the shared release cache and is never patched in place; "
                         f"copy it and patch the copy: cp -r {t.root} /tmp/site && "
                         f"patchkit {command} {name} --target-dir /tmp/site")


# ------------------------------------------------------------------------------------- fail-on
def fail_on_level(flag: Optional[str], section: dict) -> str:
    """``--fail-on`` wins, then ``[tool.patchkit] fail-on``, then ``error``."""
    return flag or section.get("fail-on", "error")


def failing(findings: Iterable[Finding], fail_on: Optional[str]) -> list[Finding]:
    """The findings at or above ``fail_on`` (error | warning; None: error): they fail a check."""
    levels = {"error", "warning"} if fail_on == "warning" else {"error"}
    return [f for f in findings if f.severity.value in levels]


# ------------------------------------------------------------------------------------- list, fetch
@dataclass(frozen=True)
class Listing:
    patches: tuple
    checks: tuple
    exit_code: int = 0

    def to_dict(self) -> dict:
        return {"patches": [{"name": p.name, "version": p.version, "distribution": p.distribution,
                             "specifier": str(p.specifier), "description": p.description} for p in self.patches],
                "checks": [{"name": c.name, "description": c.description} for c in self.checks]}


def list_all() -> Listing:
    """Every registered patch (built in and on PATCHKIT_PATCH_PATH) and check."""
    from . import registry
    return Listing(tuple(registry.patches().values()), tuple(registry.checks().values()))


@dataclass(frozen=True)
class Fetched:
    target: Target
    exit_code: int = 0

    def to_dict(self) -> dict:
        return {"distribution": self.target.distribution, "version": self.target.version, "path": str(self.target.root)}


def fetch(spec: str, hooks: Hooks = Hooks()) -> Fetched:
    """``NAME==VERSION`` downloaded (no dependencies) into the cache and unpacked once."""
    from . import target as tgt
    return Fetched(tgt.fetch(spec, hooks.progress, pip_output=hooks.pip_output))


# ------------------------------------------------------------------------------------- apply, revert
def _result_dict(r: PatchResult, outcome: Optional[str] = None) -> dict:
    from .engine import unified_diff
    return {"patch": r.patch, "outcome": outcome or r.outcome.value, "reason": r.reason, "strategy": r.strategy,
            "files": [{"file": c.rel, "changed": c.changed} for c in r.changes], "diff": unified_diff(r.changes)}


@dataclass(frozen=True)
class Applied:
    result: PatchResult
    target: Target
    dry_run: bool
    #: 1 when a dry run has changes pending, else 0
    exit_code: int

    def to_dict(self) -> dict:
        return _result_dict(self.result)


def all_findings(patch, t: Target) -> list[str]:
    """Every finding of a refused patch, one line per (file, line, attribute, code); other reads
    on that line are named by column (the error line names the first and '+N more')."""
    from . import engine
    try:
        _strategy, changes, _state = engine.transform(patch, t)
        found = engine.run_checks(patch, t, changes)
    except Exception:
        return []
    groups: dict[tuple, list] = {}
    for f in found:
        groups.setdefault((f.path, f.line, f.attr, f.code), []).append(f)
    return [str(fs[0]) + (f" (also column{'s' if len(fs) > 2 else ''} {', '.join(str(x.col) for x in fs[1:])})"
                          if len(fs) > 1 else "") for fs in groups.values()]


def apply(name: str, spec: TargetSpec, dry_run: bool = False, run_check: bool = True,
          hooks: Hooks = Hooks()) -> Applied:
    """Patch ``name`` applied to the target (atomically, journalled, idempotent). A refused patch
    raises CheckFailed whose ``details`` list every finding when its line says '+N more'."""
    from . import engine, registry
    p = registry.patch(name)
    t = resolve_target(spec, hooks)
    if not dry_run:
        _refuse_shared_release(t, spec.release, "apply", name)
    try:
        r = engine.apply(p, t, dry_run=dry_run, run_check=run_check)
    except CheckFailed as exc:
        exc.details = tuple(all_findings(p, t)) if "more)" in str(exc) else ()
        raise
    return Applied(r, t, dry_run, 1 if (dry_run and r.pending) else 0)


@dataclass(frozen=True)
class Reverted:
    result: PatchResult
    target: Target
    #: would-revert | nothing-to-revert | reverted (what ``revert`` says)
    outcome: str
    detail: str
    dry_run: bool
    exit_code: int

    def to_dict(self) -> dict:
        return _result_dict(self.result, self.outcome)


def _revert_outcome(r: PatchResult) -> tuple[str, str]:
    v = r.outcome.value
    if v == "would-apply":
        return "would-revert", ""
    if v == "not-applied":
        reason = r.reason
        for prefix in ("not applied (", "not applied"):
            if reason.startswith(prefix):
                reason = reason[len(prefix):].rstrip(")") if prefix.endswith("(") else reason[len(prefix):]
        return "nothing-to-revert", reason.strip(" :")
    return v, "" if r.reason == v else r.reason


def revert(name: str, spec: TargetSpec, force: bool = False, dry_run: bool = False,
           hooks: Hooks = Hooks()) -> Reverted:
    """The files patch ``name`` wrote restored to their original bytes."""
    from . import engine, registry
    p = registry.patch(name)
    t = resolve_target(spec, hooks)
    if not dry_run:
        _refuse_shared_release(t, spec.release, "revert", name)
    r = engine.revert(p, t, force=force, dry_run=dry_run)
    outcome, detail = _revert_outcome(r)
    return Reverted(r, t, outcome, detail, dry_run, 1 if (dry_run and r.pending) else 0)


# ------------------------------------------------------------------------------------- status, diff
@dataclass(frozen=True)
class Status:
    target: Target
    rows: tuple
    #: 0 fine; 1 a patch drifted or a file could not be read; 2 the journal names a file it
    #: cannot reach (an entry outside the target): a bad journal, as a malformed one is
    exit_code: int

    def to_dict(self) -> dict:
        return {"target": self.target.describe(), "patches": [{**r.__dict__, "files": list(r.files)} for r in self.rows]}


def status(spec: TargetSpec, hooks: Hooks = Hooks()) -> Status:
    """Each registered patch on the target: applied / not-applied / drifted / refused / error."""
    from . import engine, journal as jr, registry
    t = resolve_target(spec, hooks)
    rows = tuple(engine.status(registry.patches().values(), t))
    journalled = set(jr.load(t).patches()) if any(r.state == "error" for r in rows) else set()
    if any(r.state == "error" and r.patch in journalled for r in rows):
        code = 2
    else:
        code = 1 if any(r.state in ("drifted", "error") for r in rows) else 0
    return Status(t, rows, code)


@dataclass(frozen=True)
class Diff:
    text: str
    exit_code: int = 0


def diff(name: str, spec: TargetSpec, hooks: Hooks = Hooks()) -> Diff:
    """The unified diff of what applied patch ``name`` changed."""
    from . import engine, registry
    return Diff(engine.diff(registry.patch(name), resolve_target(spec, hooks)))


# ------------------------------------------------------------------------------------- check
@dataclass(frozen=True)
class CheckRequest:
    """The options of ``patchkit check``, by the names of its flags."""

    paths: tuple = ()
    #: the source read from '-' (stdin), or None
    stdin: Optional[str] = None
    stdin_filename: str = "-"
    select: tuple = ()
    ignore: tuple = ()
    exclude: tuple = ()
    strict: bool = False
    show_info: bool = False
    only_errors: bool = False
    fail_on: Optional[str] = None
    exit_zero: bool = False
    baseline_path: Optional[Path] = None
    write_baseline: bool = False
    no_cache: bool = False
    config_path: Optional[Path] = None


@dataclass(frozen=True)
class CheckReport:
    #: the patchkit.checkrun.CheckRun: reports, findings, source lines, counts
    run: Any
    #: the findings to show (``--only-errors`` drops the others)
    shown: tuple
    fail_on: str
    #: findings written to the baseline (``--write-baseline``), else None
    baseline_written: Optional[int]
    #: bit 1: findings at or above fail_on; bit 2: a file could not be analysed
    exit_code: int


def _codes(values) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def check_paths(paths) -> list[Path]:
    """Files and folders as given, or an installed distribution's import package by name."""
    from . import target as tgt
    resolved = []
    for p in paths:
        if Path(p).exists():
            resolved.append(Path(p))
            continue
        try:
            t = tgt.installed(p)
        except PatchkitError:
            raise UsageError(f"{p}: no such file or folder, and no installed distribution of that name") from None
        resolved.append(t.root / tgt.import_name(p))
    return resolved


def check(req: CheckRequest) -> CheckReport:
    """The registered checks (``[tool.patchkit] checks``, default all) over the paths or stdin."""
    from . import baseline as bl, checkrun
    from .config import load_section, load_settings
    if req.stdin is None and "-" in req.paths:
        raise UsageError("'-' (stdin) cannot be mixed with other paths")
    resolved = [] if req.stdin is not None else check_paths(req.paths)
    start = resolved[0] if resolved else Path.cwd()
    sec = load_section(req.config_path, start)
    settings = load_settings(req.config_path, start, strict=req.strict, show_info=req.show_info, section=sec)
    if req.write_baseline and req.baseline_path is None:
        raise UsageError("--write-baseline needs --baseline FILE (where to write it)")
    counter = bl.load(req.baseline_path) if req.baseline_path is not None and not req.write_baseline else None
    run = checkrun.run(resolved, settings, use_cache=not req.no_cache,
                       select=_codes(req.select) or sec.get("select", []), ignore=_codes(req.ignore) or sec.get("ignore", []),
                       exclude=list(req.exclude) or sec.get("exclude", []), stdin=req.stdin,
                       stdin_filename=req.stdin_filename, baseline=counter,
                       baseline_dir=req.baseline_path.parent if req.baseline_path else None, checks=sec.get("checks"))
    fail_on = fail_on_level(req.fail_on, sec)
    errors = 2 if run.errors else 0
    if req.write_baseline:
        try:
            n = bl.write(req.baseline_path, run.findings, run.lines)
        except (OSError, PatchkitError) as exc:
            raise UsageError(f"--baseline {req.baseline_path}: cannot write: {exc}") from None
        return CheckReport(run, tuple(run.findings), fail_on, n, errors)
    shown = tuple(f for f in run.findings if not req.only_errors or f.severity.value == "error")
    code = 0 if req.exit_zero else (1 if failing(run.findings, fail_on) else 0)
    return CheckReport(run, shown, fail_on, None, code | errors)


@dataclass(frozen=True)
class Explained:
    rules: tuple
    exit_code: int = 0

    def to_dict(self) -> list:
        return [{"code": r.code, "name": r.name, "level": r.level, "summary": r.summary, "text": r.text,
                 "example": r.example.strip("\n"), "fix": r.fix} for r in self.rules]


def explain(code: Optional[str] = None) -> Explained:
    """The rule for ``code`` (every rule when None); an unknown code names the nearest."""
    from . import registry, rules
    registry.checks()  # the registered checks' own rules
    return Explained(tuple([rules.rule(code)] if code else rules.RULES.values()))


# ------------------------------------------------------------------------------------- matrix
@dataclass(frozen=True)
class MatrixPlan:
    patch: Any
    versions: tuple
    started: float


def matrix_plan(name: str, versions: str) -> MatrixPlan:
    """Patch ``name`` and the releases ``versions`` names (``A..B`` from the registry, or a list)."""
    from . import registry
    from .matrix import expand_versions
    t0 = time.monotonic()
    p = registry.patch(name)
    vs = expand_versions(p.distribution, versions)
    if not vs:
        raise UsageError(f"--versions {versions}: no {p.distribution} release on the registry in that range")
    return MatrixPlan(p, tuple(vs), t0)


@dataclass(frozen=True)
class MatrixReport:
    patch: Any
    rows: tuple
    seconds: float
    #: the cache the releases were read from
    cache: Path
    #: 1 when a check failed or a fetch failed on some release
    exit_code: int

    def to_dict(self) -> list:
        return [r.__dict__ for r in self.rows]

    def counts(self) -> dict[str, int]:
        """Releases per verdict, in the order the verdicts first come."""
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out


def matrix(plan: MatrixPlan, jobs: int = 1, on_done: Optional[Callable] = None, hooks: Hooks = Hooks()) -> MatrixReport:
    """The patch dry-run against each release of the plan, each in a scratch copy."""
    from .fsutil import cache_dir
    from .matrix import run_matrix
    rows = tuple(run_matrix(plan.patch, list(plan.versions), jobs=jobs, pip_output=hooks.pip_output, on_done=on_done))
    code = 1 if any(r.verdict in ("check failed", "fetch failed") for r in rows) else 0
    return MatrixReport(plan.patch, rows, time.monotonic() - plan.started, cache_dir(), code)


# ------------------------------------------------------------------------------------- cache, new
@dataclass(frozen=True)
class CacheInfo:
    path: Path
    parts: tuple
    bytes: int
    exit_code: int = 0

    def to_dict(self) -> dict:
        return {"path": str(self.path), "bytes": self.bytes, "parts": list(self.parts)}


def cache_info() -> CacheInfo:
    from . import target as tgt
    rows = tuple(tgt.cache_info())
    return CacheInfo(tgt.cache_dir(), rows, sum(r["bytes"] for r in rows))


@dataclass(frozen=True)
class CacheCleaned:
    path: Path
    freed: int
    parts: tuple
    exit_code: int = 0


def cache_clean(parts: Sequence[str] = ()) -> CacheCleaned:
    """The named cache parts removed (every part when none is named)."""
    from . import target as tgt
    return CacheCleaned(tgt.cache_dir(), tgt.cache_clean(list(parts) or None), tuple(parts))


@dataclass(frozen=True)
class Scaffolded:
    spec: Any
    files: tuple
    #: the package's folder is already on PATCHKIT_PATCH_PATH
    on_path: bool
    exit_code: int = 0


def new(spec, description: Optional[str] = None) -> Scaffolded:
    """A new patch package written from ``spec`` (patchkit.scaffold.Spec)."""
    from . import scaffold
    files = tuple(scaffold.write(spec, description))
    path = spec.folder.resolve()
    on_path = str(path) in [str(Path(x).resolve()) for x in os.environ.get("PATCHKIT_PATCH_PATH", "").split(os.pathsep) if x]
    return Scaffolded(spec, files, on_path)


# ------------------------------------------------------------------------------------- gate, launch
@dataclass(frozen=True)
class GateRequest:
    target: TargetSpec = TargetSpec()
    require_signoff: bool = False
    signoff_path: Optional[Path] = None
    tp: Optional[int] = None
    verify_signature: bool = False


@dataclass(frozen=True)
class GateReport:
    #: the patchkit.gate.GateResult: its stages, in order
    result: Any
    exit_code: int


def gate(req: GateRequest, hooks: Hooks = Hooks()) -> GateReport:
    """The pre-launch stages, stopping at the first that does not pass (0 pass, 1 fail, 2 error)."""
    from . import gate as g
    t = resolve_target(req.target, Hooks(recovered=hooks.recovered))
    res = g.run(t, req.require_signoff, req.signoff_path, req.tp, verify_signature=req.verify_signature)
    if hooks.gate:
        hooks.gate(res)
    return GateReport(res, res.exit_code)


def tp_from_command(command: Sequence[str]) -> Optional[int]:
    """The tensor-parallel size a launch command asks for (``--tp-size``, ``--tp``,
    ``--tensor-parallel-size``); 1 for an sglang.launch_server without one; None otherwise."""
    cmd = list(command)
    for i, a in enumerate(cmd):
        for flag in ("--tp-size", "--tp", "--tensor-parallel-size"):
            value = cmd[i + 1] if a == flag and i + 1 < len(cmd) else a.split("=", 1)[1] if a.startswith(flag + "=") else None
            if value is not None:
                try:
                    return int(value)
                except ValueError:
                    raise UsageError(f"{flag} {value!r} in the launch command: not an integer") from None
    return 1 if any("sglang.launch_server" in a for a in cmd) else None


@dataclass(frozen=True)
class Launch:
    gate: Any
    command: tuple
    #: why the sign-off has no passing cell for this command (None: it has, or none was asked for)
    refusal: Optional[str]
    #: 0: exec the command; else the gate's code, or 1 for a refusal
    exit_code: int


def launch(req: GateRequest, command: Sequence[str], hooks: Hooks = Hooks()) -> Launch:
    """The gate for a launch ``command`` (tp read from it unless given); ``exec_launch`` runs it."""
    from dataclasses import replace
    if req.tp is None:
        req = replace(req, tp=tp_from_command(command))
    res = gate(req, hooks).result
    if res.exit_code != 0:
        return Launch(res, tuple(command), None, res.exit_code)
    why = None
    if req.require_signoff:
        from .smoke.command import launch_refusal
        why = launch_refusal(resolve_target(req.target), req.signoff_path, list(command))
    return Launch(res, tuple(command), why, 1 if why else 0)


def exec_launch(launch: Launch) -> None:
    """Replace this process with the launch command (same PID); never returns."""
    try:
        os.execvp(launch.command[0], list(launch.command))
    except OSError as exc:
        raise PatchkitError(f"cannot exec {launch.command[0]}: {exc.strerror}") from None


# ------------------------------------------------------------------------------------- smoke
def needs_gpu(t: Target, server_args: Sequence[str]) -> Optional[str]:
    """Why smoke cannot run here, or None: a real SGLang (it has sglang/srt/entrypoints/) needs an
    NVIDIA GPU unless the server is told to use another device (--server-arg=--device=cpu)."""
    if not (t.root / "sglang" / "srt" / "entrypoints").is_dir():
        return None  # not a real SGLang server (a stand-in): nothing to ask of the machine
    if any(a == "--device" or a.startswith("--device=") for a in server_args):
        return None
    if shutil.which("nvidia-smi") is None:
        return ("smoke: no NVIDIA GPU on this machine (nvidia-smi not found); nothing booted, no sign-off "
                "written. Run it on the GPU host that will serve the model")
    return None


@dataclass(frozen=True)
class SmokeRequest:
    """The options of ``patchkit smoke``, by the names of its flags."""

    target: TargetSpec = TargetSpec()
    model_path: Optional[str] = None
    draft_model_path: Optional[str] = None
    eagle_draft_model_path: Optional[str] = None
    tiny: bool = False
    #: a built-in full-size shape (smoke/models/*.json) run with dummy weights, and its layer count
    model_config: Optional[str] = None
    layers: Optional[int] = None
    tp: int = 1
    threshold: Optional[int] = None
    crossings: Optional[int] = None
    server_args: tuple = ()
    timeout: float = 600.0
    signoff_path: Optional[Path] = None
    log_dir: Optional[Path] = None
    compare_no_spec: bool = False
    no_gate: bool = False
    matrix: Optional[str] = None
    parallel: int = 1
    mem_total: float = 0.8
    cells: tuple = ()
    launch_cell: str = ""
    plan_only: bool = False
    patch_name: Optional[str] = None
    soak_seconds: float = 20.0
    long_tokens: int = 2000
    skip_stages: tuple = ()
    transitions: int = 10
    #: where [tool.patchkit.smoke] is looked for
    start: Path = field(default_factory=Path.cwd)


@dataclass(frozen=True)
class SmokeReport:
    #: the sign-off record written (None: a plan only, or the gate stopped it)
    record: Optional[dict]
    signoff_path: Optional[Path]
    log_dir: Optional[Path]
    #: 0 sign-off passed (or a plan), 1 failed (written anyway), the gate's code when it stopped
    exit_code: int


def smoke(req: SmokeRequest, hooks: Hooks = Hooks()) -> SmokeReport:
    """Boot the patched server, drive it across the threshold, write the sign-off."""
    from . import signoff as so, target as tgt
    from .smoke import command as sc
    t = resolve_target(req.target, hooks)
    section = sc.pyproject_section(req.start)  # a bad [tool.patchkit] is a one-line error here
    sc.model_choice(req.model_path, req.tiny, req.model_config, req.layers)
    if not req.model_path and not req.tiny and not req.model_config and not req.plan_only:
        raise UsageError("--model-path is required (or --tiny / --model-config NAME for a built-in model)")
    if req.model_config:
        from .smoke import fullsize
        fullsize.shape(req.model_config, req.layers)
    why = None if req.plan_only else needs_gpu(t, req.server_args)
    if why:
        raise PatchkitError(why)
    if not req.no_gate and not req.plan_only:
        res = gate(GateRequest(req.target), hooks).result
        if res.exit_code:
            return SmokeReport(None, None, None, res.exit_code)
    spec = sc.pick_spec(t, req.patch_name)
    log_dir = req.log_dir or (tgt.cache_dir() / "smoke-logs" /
                              f"{t.distribution}-{t.version}-{time.strftime('%Y%m%d-%H%M%S')}")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(t.root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    path = req.signoff_path or so.default_path(t)
    say = hooks.say or (lambda s: None)
    if req.matrix or req.cells or req.launch_cell or req.parallel > 1 or req.plan_only or section:
        opts = sc.matrix_options(t, spec, model_path=req.model_path, draft_model_path=req.draft_model_path,
                                 eagle_draft_path=req.eagle_draft_model_path, tiny=req.tiny, tp=req.tp,
                                 threshold=req.threshold, crossings=req.crossings or 10,
                                 server_args=list(req.server_args), timeout=req.timeout, log_dir=log_dir,
                                 parallel=req.parallel, only=tuple(req.cells), matrix=req.matrix,
                                 mem_total=req.mem_total,
                                 launch_cell=req.launch_cell, soak_seconds=req.soak_seconds,
                                 long_tokens=req.long_tokens, transitions=req.transitions,
                                 skip_stages=tuple(req.skip_stages), model_config=req.model_config,
                                 layers=req.layers)
        _plan, rec = sc.plan_and_run(spec, t, opts, path, say, req.plan_only)
        return SmokeReport(rec, path, log_dir, 0 if rec is None or rec["passed"] else 1)
    from .smoke import tiny as tinymod
    from .smoke.run import Smoke, SmokeConfig, merge_args
    model_path, draft_model_path, extra, shape = req.model_path, req.draft_model_path, list(req.server_args), {}
    if req.model_config:
        model_path, models, base, shape = sc.fullsize_models(log_dir, req.model_config, req.layers, req.tp)
        draft_model_path = models["draft"]
        extra = merge_args(base + list(spec.spec_args), extra, spec.bool_options)  # --server-arg wins
    grammar_skip = sc.grammar_probe()
    if req.tiny:
        mt, md = tinymod.write(log_dir / "tiny-model")
        model_path, draft_model_path = str(mt), str(md)
        extra = merge_args(tinymod.tiny_args(spec, grammar_skip), extra, spec.bool_options)
    if not model_path:
        raise UsageError("--model-path is required (or --tiny for the built-in model)")
    cfg = SmokeConfig(model_path, draft_model_path, req.tp, req.threshold if req.threshold is not None else spec.threshold,
                      req.crossings or 20, extra, req.timeout, log_dir=log_dir, compare_no_spec=req.compare_no_spec,
                      spec=spec, shape=shape, grammar_skip=grammar_skip)
    rec = Smoke(cfg, t, say).run()
    so.write(rec, path)
    return SmokeReport(rec, path, log_dir, 0 if rec["passed"] else 1)


@dataclass(frozen=True)
class SmokeMergeReport:
    record: dict
    signoff_path: Path
    #: 0 the merged sign-off passed, 1 it failed (written anyway)
    exit_code: int


def smoke_merge(parts: Sequence[Path], out: Path) -> SmokeMergeReport:
    """One sign-off from matrix records that ran parts of one matrix side by side (one per GPU or
    host): SignoffError (exit 2, nothing written) when they sign off different trees, configurations
    or GPUs, or share a cell. Signed with ``$PATCHKIT_SIGNOFF_KEY`` when it is set; a signed part
    must verify with it."""
    from . import signoff as so
    from .smoke import recordmerge
    key = os.environ.get(so.KEY_ENV) or None
    loaded = []
    for p in parts:
        if not Path(p).is_file():
            raise so.SignoffError(f"{p}: no such sign-off record")
        rec = so.read(Path(p))
        if rec.get("signature") is not None and key:
            why = so.signature_problem(rec, key)
            if why:
                raise so.SignoffError(f"{p}: {why}")
        loaded.append((str(p), rec))
    rec = recordmerge.merge(loaded)
    so.write(rec, Path(out), key)
    return SmokeMergeReport(rec, Path(out), 0 if rec["passed"] else 1)
