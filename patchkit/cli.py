"""The command line: thin over the library. The only module that imports click or rich.

Exit codes: 0 ok / nothing pending; 1 a check failed, findings, drift, pending changes with
--dry-run, refused patch; 2 could not run (bad arguments, missing target, bad journal).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import click
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from . import __version__
from .ftypes import PatchkitError


class _Lazy:
    """Import a module on first use: `patchkit check` and `gate` should not pay for libcst."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        import importlib
        return getattr(importlib.import_module(self._name), attr)


engine = _Lazy("patchkit.engine")
registry = _Lazy("patchkit.registry")
tgt = _Lazy("patchkit.target")

# piped output (CI logs, `| less`) gets a wide table instead of rich's 80-column default
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=None if sys.stderr.isatty() else 160)


def _fail(exc: PatchkitError) -> None:
    err.print(f"[red]error:[/red] {exc}", markup=True)
    sys.exit(exc.exit_code)


def target_options(f):
    f = click.option("--target", "distribution", default=None, help="installed distribution (default: sglang)")(f)
    f = click.option("--target-dir", type=click.Path(path_type=Path), default=None,
                     help="folder holding the package (an unpacked wheel, a PYTHONPATH site folder)")(f)
    f = click.option("--release", default=None, help="a registry release fetched into the cache, e.g. sglang==0.5.12")(f)
    f = click.option("--target-version", default=None, help="version of a --target-dir without metadata")(f)
    return f


def _target(distribution, target_dir, release, target_version, quiet=False):
    return tgt.resolve(distribution, target_dir, release, target_version,
                       progress=None if quiet else (lambda s: err.print(f"[dim]{s}[/dim]")), pip_output=sys.stderr)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="patchkit")
def main() -> None:
    """Carry patches on top of SGLang releases and prove they are safe to launch."""


@main.command("list")
@click.option("--json", "as_json", is_flag=True)
def list_cmd(as_json: bool) -> None:
    """The built-in patches and checks."""
    ps, cs = registry.patches(), registry.checks()
    if as_json:
        click.echo(json.dumps({"patches": [{"name": p.name, "version": p.version, "distribution": p.distribution,
                                            "specifier": str(p.specifier), "description": p.description}
                                           for p in ps.values()],
                               "checks": [{"name": c.name, "description": c.description} for c in cs.values()]}, indent=2))
        return
    t = Table("patch", "version", "target", "description")
    for p in ps.values():
        t.add_row(p.name, p.version, f"{p.distribution}{p.specifier}", p.description)
    out.print(t)
    t = Table("check", "description")
    for c in cs.values():
        t.add_row(c.name, c.description)
    out.print(t)


@main.command()
@click.argument("spec")
@click.option("--json", "as_json", is_flag=True)
def fetch(spec: str, as_json: bool) -> None:
    """Download NAME==VERSION (no dependencies) into the cache and unpack it once."""
    try:
        t = tgt.fetch(spec, lambda s: err.print(f"[dim]{s}[/dim]"), pip_output=sys.stderr)
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"distribution": t.distribution, "version": t.version, "path": str(t.root)}))
    else:
        out.print(f"{t.distribution} {t.version}: {t.root}")


def _result_json(r) -> dict:
    return {"patch": r.patch, "outcome": r.outcome.value, "reason": r.reason, "strategy": r.strategy,
            "files": [{"file": c.rel, "changed": c.changed} for c in r.changes],
            "diff": engine.unified_diff(r.changes)}


@main.command()
@click.argument("name")
@target_options
@click.option("--dry-run", is_flag=True, help="show the diff; exit 1 when changes are pending, 0 when none")
@click.option("--no-check", is_flag=True, help="skip the analyzer on the patched code (not recommended)")
@click.option("--json", "as_json", is_flag=True)
def apply(name, distribution, target_dir, release, target_version, dry_run, no_check, as_json) -> None:
    """Apply patch NAME to the target (atomically, journalled, idempotent)."""
    try:
        p = registry.patch(name)
        t = _target(distribution, target_dir, release, target_version, as_json)
        r = engine.apply(p, t, dry_run=dry_run, run_check=not no_check)
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps(_result_json(r), indent=2))
    else:
        if dry_run and r.pending:
            out.print(Syntax(engine.unified_diff(r.changes), "diff", theme="ansi_dark", background_color="default"))
        out.print(f"{r.patch}: {r.outcome.value} on {t.distribution} {t.version} "
                  f"[{r.strategy}] {r.reason}".rstrip())
    sys.exit(1 if (dry_run and r.pending) else 0)


@main.command()
@click.argument("name")
@target_options
@click.option("--force", is_flag=True, help="restore the original even if the file changed since apply")
@click.option("--dry-run", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
def revert(name, distribution, target_dir, release, target_version, force, dry_run, as_json) -> None:
    """Restore the files patch NAME wrote to their original bytes."""
    try:
        p = registry.patch(name)
        t = _target(distribution, target_dir, release, target_version, as_json)
        r = engine.revert(p, t, force=force, dry_run=dry_run)
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps(_result_json(r), indent=2))
    else:
        out.print(f"{r.patch}: {r.outcome.value} ({r.reason})")
    sys.exit(1 if (dry_run and r.pending) else 0)


@main.command()
@target_options
@click.option("--json", "as_json", is_flag=True)
def status(distribution, target_dir, release, target_version, as_json) -> None:
    """Each patch on the target: applied / not-applied / drifted / refused."""
    try:
        t = _target(distribution, target_dir, release, target_version, as_json)
        rows = engine.status(registry.patches().values(), t)
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"target": t.describe(), "patches": [r.__dict__ for r in rows]}, indent=2, default=list))
    else:
        table = Table("patch", "state", "strategy", "detail", title=t.describe())
        colour = {"applied": "green", "drifted": "red", "refused": "yellow", "error": "red"}
        for r in rows:
            c = colour.get(r.state, "white")
            table.add_row(r.patch, f"[{c}]{r.state}[/{c}]", r.strategy, r.detail)
        out.print(table)
    sys.exit(1 if any(r.state in ("drifted", "error") for r in rows) else 0)


@main.command()
@click.argument("name")
@target_options
def diff(name, distribution, target_dir, release, target_version) -> None:
    """The unified diff of what applied patch NAME changed."""
    try:
        text = engine.diff(registry.patch(name), _target(distribution, target_dir, release, target_version, True))
    except PatchkitError as exc:
        _fail(exc)
    click.echo(text, nl=False)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "rich", "json", "sarif"]), default="text")
@click.option("--strict", is_flag=True, help="unknown bases provide nothing; two-phase initialisation is an error")
@click.option("--show-info", is_flag=True, help="also print info-level findings")
@click.option("--only-errors", is_flag=True, help="print errors only (warnings still count in the summary)")
@click.option("--fail-on", type=click.Choice(["error", "warning"]), default="warning", show_default=True,
              help="lowest severity that makes the exit code 1")
@click.option("--no-cache", is_flag=True)
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help="pyproject.toml with [tool.patchkit] (default: nearest one upward)")
def check(paths, fmt, strict, show_info, only_errors, fail_on, no_cache, config_path) -> None:
    """Run the attribute-initialization analyzer over files, folders or installed distributions."""
    from .analysis.runner import analyse_paths
    from .config import load_settings
    from .report import sarif, to_json
    resolved = []
    for p in paths:
        if Path(p).exists():
            resolved.append(Path(p))
            continue
        try:
            t = tgt.installed(p)
        except PatchkitError as exc:
            _fail(PatchkitError(f"{p}: neither a path nor an installed distribution ({exc})"))
        resolved.append(t.root / tgt.import_name(p))
    settings = load_settings(config_path, Path(paths[0]) if Path(paths[0]).exists() else Path.cwd(),
                             strict=strict, show_info=show_info)
    reports = analyse_paths(resolved, settings, use_cache=not no_cache)
    findings = [f for r in reports for f in r.findings]
    errors = [r for r in reports if r.error]
    if fmt == "json":
        click.echo(json.dumps(to_json(reports), indent=2))
    elif fmt == "sarif":
        click.echo(json.dumps(sarif(reports), indent=2))
    else:
        for f in findings:
            if only_errors and f.severity.value != "error":
                continue
            if fmt == "rich":
                c = {"error": "red", "warning": "yellow", "info": "blue"}[f.severity.value]
                out.print(f"[bold]{f.path}:{f.line}:{f.col}[/bold] [{c}]{f.code}[/{c}] {f.message}"
                          + (f": {f.why}" if f.why else "") + (f" [dim]({f.hint})[/dim]" if f.hint else ""))
            else:
                click.echo(str(f))
        for r in errors:
            err.print(f"{r.path}: {r.error}")
        by = {sev: sum(1 for f in findings if f.severity.value == sev) for sev in ("error", "warning")}
        err.print(f"{len(reports)} file(s), {len(findings)} finding(s) ({by['error']} error(s), "
                  f"{by['warning']} warning(s)), {len(errors)} could not be analysed")
    failing = {"error"} if fail_on == "error" else {"error", "warning"}
    code = (1 if any(f.severity.value in failing for f in findings) else 0) | (2 if errors else 0)
    sys.exit(code)


@main.command()
@click.argument("name")
@click.option("--versions", required=True, help="a range A..B or a comma list, e.g. 0.5.6..0.5.23")
@click.option("--json", "as_json", is_flag=True)
def matrix(name, versions, as_json) -> None:
    """Dry-run patch NAME against every release in a range, each in a scratch copy."""
    from .matrix import expand_versions, run_matrix
    try:
        p = registry.patch(name)
        vs = expand_versions(p.distribution, versions)
    except PatchkitError as exc:
        _fail(exc)
    from rich.progress import Progress
    with Progress(console=err, transient=True) as prog:
        task = prog.add_task("releases", total=len(vs))
        rows = run_matrix(p, vs, on_done=lambda row: prog.update(task, advance=1, description=f"{row.version}: {row.verdict}"),
                          pip_output=sys.stderr)
    if as_json:
        click.echo(json.dumps([r.__dict__ for r in rows], indent=2))
    else:
        t = Table("release", "verdict", "strategy", "detail", title=f"{p.name} {p.version}")
        colour = {"applies": "green", "already upstream": "cyan", "anchors missing": "yellow",
                  "check failed": "red", "refused": "yellow", "fetch failed": "red"}
        for r in rows:
            c = colour.get(r.verdict, "white")
            t.add_row(r.version, f"[{c}]{r.verdict}[/{c}]", r.strategy, r.detail)
        out.print(t)
    sys.exit(1 if any(r.verdict in ("check failed", "fetch failed") for r in rows) else 0)


def gate_options(f):
    f = click.option("--require-signoff", is_flag=True, help="also demand a passing smoke sign-off for these hashes")(f)
    f = click.option("--signoff", "signoff_path", type=click.Path(path_type=Path), default=None)(f)
    f = click.option("--tp", type=int, default=None, help="the launch's tensor-parallel size (checked against the sign-off)")(f)
    return target_options(f)


def _run_gate(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, as_json):
    from . import gate
    t = _target(distribution, target_dir, release, target_version, True)
    res = gate.run(t, require_signoff, signoff_path, tp)
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        for s in res.stages:
            c = {"pass": "green", "fail": "red", "error": "red", "skip": "dim"}[s.verdict]
            err.print(f"[{c}]{s.verdict.upper():5}[/{c}] {s.name:10} {s.detail}")
        st = res.failed_stage
        err.print("[green]gate passed[/green]" if st is None else f"[red]gate failed at stage '{st.name}'[/red]")
    return res


@main.command("gate")
@gate_options
@click.option("--json", "as_json", is_flag=True)
def gate_cmd(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, as_json) -> None:
    """Pre-launch verification; exit 0 pass, 1 a check failed, 2 could not run."""
    try:
        res = _run_gate(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, as_json)
    except PatchkitError as exc:
        _fail(exc)
    sys.exit(res.exit_code)


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@gate_options
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def launch(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, command) -> None:
    """Run the gate, then exec COMMAND (same PID) only if it passes: patchkit launch -- python -m sglang.launch_server ..."""
    try:
        if tp is None:
            tp = _tp_from_command(command)
        res = _run_gate(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, False)
    except PatchkitError as exc:
        _fail(exc)
    if res.exit_code != 0:
        err.print("[red]not launching[/red]")
        sys.exit(res.exit_code)
    if require_signoff:
        from .smoke.command import launch_refusal
        try:
            why = launch_refusal(_target(distribution, target_dir, release, target_version, True), signoff_path,
                                 list(command))
        except PatchkitError as exc:
            _fail(exc)
        if why:
            err.print(f"[red]not launching:[/red] {why}")
            sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(command[0], list(command))
    except OSError as exc:
        _fail(PatchkitError(f"cannot exec {command[0]}: {exc.strerror}"))


def _tp_from_command(command) -> Optional[int]:
    cmd = list(command)
    for i, a in enumerate(cmd):
        for flag in ("--tp-size", "--tp", "--tensor-parallel-size"):
            if a == flag and i + 1 < len(cmd):
                return int(cmd[i + 1])
            if a.startswith(flag + "="):
                return int(a.split("=", 1)[1])
    return 1 if any("sglang.launch_server" in a for a in cmd) else None


@main.command()
@target_options
@click.option("--model-path", default=None)
@click.option("--draft-model-path", default=None)
@click.option("--eagle-draft-model-path", default=None, help="EAGLE (not EAGLE-3) draft for the EAGLE cells")
@click.option("--tiny", is_flag=True, help="built-in tiny Llama + one-layer EAGLE-3 / EAGLE drafts with dummy weights")
@click.option("--tp", type=int, default=1)
@click.option("--threshold", type=int, default=None, help="batch-size threshold (default: the patch's smoke spec)")
@click.option("--crossings", type=int, default=None, help="switches each way (default 20; 10 per matrix cell)")
@click.option("--server-arg", "server_args", multiple=True, help="extra argument for sglang.launch_server (repeatable)")
@click.option("--timeout", type=float, default=600.0)
@click.option("--signoff", "signoff_path", type=click.Path(path_type=Path), default=None)
@click.option("--log-dir", type=click.Path(path_type=Path), default=Path("smoke-logs"))
@click.option("--compare-no-spec", is_flag=True, help="also boot without speculation and compare greedy outputs")
@click.option("--no-gate", is_flag=True, help="skip the static gate first (to prove the smoke test catches a bad patch)")
@click.option("--matrix", "matrix", default=None, metavar="FILE|default",
              help="run a matrix of cells: a TOML/JSON file, or 'default' for the patch's default matrix "
                   "(also when pyproject.toml has [tool.patchkit.smoke])")
@click.option("--parallel", type=int, default=1, show_default=True, help="cells served at once on the GPU")
@click.option("--cell", "cells", multiple=True, help="run only this cell (repeatable); its result replaces the "
                                                     "cell in an existing record")
@click.option("--launch-cell", default="", help="add the cell of this launch command ('python -m sglang.launch_server ...')")
@click.option("--plan", "plan_only", is_flag=True, help="print the matrix plan and exit")
@click.option("--patch", "patch_name", default=None, help="the patch whose smoke spec to use (default: the journalled one)")
@click.option("--soak-seconds", type=float, default=20.0, show_default=True)
@click.option("--long-tokens", type=int, default=2000, show_default=True, help="tokens per resume-equivalence request")
@click.option("--skip-stage", "skip_stages", multiple=True, help="leave a stage out of every cell (recorded; repeatable)")
@click.option("--transitions", type=int, default=10, show_default=True, help="OFF->ON switches a long request lives through")
@click.option("--json", "as_json", is_flag=True)
def smoke(distribution, target_dir, release, target_version, model_path, draft_model_path, eagle_draft_model_path,
          tiny, tp, threshold, crossings, server_args, timeout, signoff_path, log_dir, compare_no_spec, no_gate,
          matrix, parallel, cells, launch_cell, plan_only, patch_name, soak_seconds, long_tokens, skip_stages,
          transitions, as_json) -> None:
    """Boot the patched server on this GPU host, drive it across the threshold, write the sign-off."""
    from . import signoff as so
    from .smoke import command as sc
    try:
        t = _target(distribution, target_dir, release, target_version, as_json)
        if not no_gate and not plan_only:
            res = _run_gate(distribution, target_dir, release, target_version, False, None, None, as_json)
            if res.exit_code:
                sys.exit(res.exit_code)
        spec = sc.pick_spec(t, patch_name)
    except PatchkitError as exc:
        _fail(exc)
    env_path = os.pathsep.join([str(t.root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    os.environ["PYTHONPATH"] = env_path
    path = signoff_path or so.default_path(t)
    say = lambda s: err.print(s, markup=False, style="dim")  # noqa: E731
    use_matrix = bool(matrix or cells or launch_cell or parallel > 1 or plan_only or sc.pyproject_section(Path.cwd()))
    if use_matrix:
        try:
            opts = sc.matrix_options(t, spec, model_path=model_path, draft_model_path=draft_model_path,
                                     eagle_draft_path=eagle_draft_model_path, tiny=tiny, tp=tp, threshold=threshold,
                                     crossings=crossings or 10, server_args=list(server_args), timeout=timeout,
                                     log_dir=log_dir, parallel=parallel, only=tuple(cells), matrix=matrix,
                                     launch_cell=launch_cell, soak_seconds=soak_seconds, long_tokens=long_tokens,
                                     transitions=transitions, skip_stages=tuple(skip_stages))
            _plan, rec = sc.plan_and_run(spec, t, opts, path, say, plan_only)
        except PatchkitError as exc:
            _fail(exc)
        if rec is None:
            sys.exit(0)
    else:
        from .smoke.run import Smoke, SmokeConfig
        from .smoke import tiny as tinymod
        extra = list(server_args)
        if tiny:
            mt, md = tinymod.write(log_dir / "tiny-model")
            model_path, draft_model_path = str(mt), str(md)
            extra = tinymod.tiny_args(spec) + extra
        if not model_path:
            _fail(PatchkitError("--model-path is required (or --tiny for the built-in model)"))
        cfg = SmokeConfig(model_path, draft_model_path, tp, threshold if threshold is not None else spec.threshold,
                          crossings or 20, extra, timeout, log_dir=log_dir, compare_no_spec=compare_no_spec, spec=spec)
        rec = Smoke(cfg, t, say).run()
        so.write(rec, path)
    if as_json:
        click.echo(json.dumps(rec, indent=2))
    else:
        for c in rec.get("cells", []):
            colour = {"pass": "green", "refused": "cyan"}.get(c["verdict"], "red")
            f = c.get("failure") or {}
            err.print(f"[{colour}]{c['verdict'].upper():8}[/{colour}] {c['seconds']:6.0f}s  {c['name']}"
                      + (f"  {f.get('stage')}: {f.get('message')}" if f else ""))
        f = rec["failure"]
        err.print(f"sign-off written to {path}: " + ("[green]PASSED[/green]" if rec["passed"] else
                  f"[red]FAILED[/red] at {f.get('cell', '') + ': ' if f.get('cell') else ''}{f['stage']}: "
                  f"{f['message']} {f.get('location', '')}"))
    sys.exit(0 if rec["passed"] else 1)


if __name__ == "__main__":
    main()
