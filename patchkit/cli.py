"""The command line: thin over the library. The only module besides console.py that imports
click or rich.

Exit codes (every command; the README has the table): 0 ok / nothing pending; 1 a check failed,
findings, drift, pending changes with --dry-run, refused patch; 2 could not run (bad arguments, a
configuration error, a missing target, a bad journal, no GPU for ``smoke``). ``check`` combines
bit 1 (findings) and bit 2 (files it could not analyse). With ``--json`` (or ``check --format
json|sarif``) an error is also written to stdout as ``{"error": {...}}``.
"""
from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Optional

import click
from rich.table import Table
from rich.text import Text

from . import __version__, api
from .console import UI, styled_line
from .ftypes import PatchkitError, UsageError


def _fail(exc: PatchkitError, lines: tuple[str, ...] = ()) -> None:
    """Print the one-line error (and any detail lines) on stderr, as JSON on stdout under --json,
    and exit with the error's code."""
    UI.err.print(Text.assemble(("error:", "bold red"), " ", str(exc)))
    for ln in lines:
        UI.err.print(Text("  " + ln))
    if UI.json:
        click.echo(json.dumps({"error": {"type": type(exc).__name__, "message": str(exc),
                                         "exit_code": exc.exit_code, "details": list(lines)}}, indent=2))
    sys.exit(exc.exit_code)



def ui_options(f):
    """-q / -v / --color on a command (they also work before the command: `patchkit -q check ...`);
    a PatchkitError the command raises ends it with the one-line error and its exit code."""
    @functools.wraps(f)
    def wrapper(*args, quiet: int = 0, verbose: int = 0, color: Optional[str] = None, **kw):
        g = (click.get_current_context().find_root().obj or {})
        UI.configure(color or g.get("color") or "auto", g.get("verbosity", 0) + verbose - quiet)
        UI.json = bool(kw.get("as_json")) or kw.get("fmt") in ("json", "sarif")
        try:
            return f(*args, **kw)
        except PatchkitError as exc:
            _fail(exc, getattr(exc, "details", ()))
    for opt in _ui_params():
        wrapper = opt(wrapper)
    return wrapper


def _ui_params():
    return (click.option("--color", type=click.Choice(["auto", "always", "never"]), default=None,
                         help="colour output: auto (a terminal, unless NO_COLOR), always, never"),
            click.option("-v", "--verbose", count=True, help="more output (pip's own download output, timings)"),
            click.option("-q", "--quiet", count=True, help="results and errors only (no progress, no summary)"))



def target_options(f):
    """--target / --target-dir / --release / --target-version, handed to the command as ``target``."""
    @functools.wraps(f)
    def wrapper(*args, distribution=None, target_dir=None, release=None, target_version=None, **kw):
        return f(*args, target=api.TargetSpec(distribution, target_dir, release, target_version), **kw)
    wrapper = click.option("--target", "distribution", default=None, help="installed distribution (default: sglang)")(wrapper)
    wrapper = click.option("--target-dir", type=click.Path(path_type=Path), default=None,
                           help="folder holding the package (an unpacked wheel, a PYTHONPATH site folder)")(wrapper)
    wrapper = click.option("--release", default=None, help="a registry release fetched into the cache, e.g. sglang==0.5.12")(wrapper)
    wrapper = click.option("--target-version", default=None, help="version of a --target-dir without metadata")(wrapper)
    return wrapper


def _table(headers: tuple, rows, title: Optional[str] = None) -> None:
    t = Table(*headers, title=title)
    for row in rows:
        t.add_row(*row)
    UI.out.print(t)


def _hooks(quiet: bool = False, **kw) -> api.Hooks:
    """Progress on stderr (hidden when ``quiet``); a recovered operation is always said."""
    return api.Hooks(progress=None if quiet else UI.info, pip_output=UI.pip_output(),
                     recovered=lambda note: UI.err.print(Text(f"recovered: {note}")), **kw)


def _wants_json(argv: list[str]) -> bool:
    pairs = zip(argv, argv[1:] + [""])
    return "--json" in argv or any(a in ("--format=json", "--format=sarif") or (a == "--format" and b in ("json", "sarif"))
                                   for a, b in pairs)


class _Main(click.Group):
    """click's own usage errors (a missing argument, a bad choice) also reach stdout as JSON under --json."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        try:
            rv = super().main(argv, prog_name, complete_var, False, **extra)
        except click.ClickException as exc:
            if _wants_json(argv):
                click.echo(json.dumps({"error": {"type": "UsageError", "message": exc.format_message(),
                                                 "exit_code": exc.exit_code, "details": []}}, indent=2))
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="patchkit")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
              help="colour output: auto (a terminal, unless NO_COLOR), always, never")
@click.option("-v", "--verbose", count=True, help="more output (pip's own download output, timings)")
@click.option("-q", "--quiet", count=True, help="results and errors only (no progress, no summary)")
@click.pass_context
def main(ctx, color, verbose, quiet) -> None:
    """Carry patches on top of SGLang releases and prove they are safe to launch.

    The cache (releases, wheels, analyzer results) lives in $PATCHKIT_CACHE_DIR, else
    $XDG_CACHE_HOME/patchkit, else ~/.cache/patchkit; `patchkit cache info` shows its size.
    """
    ctx.obj = {"color": color, "verbosity": verbose - quiet}
    UI.configure(color, verbose - quiet)



@main.command("list")
@ui_options
@click.option("--json", "as_json", is_flag=True)
def list_cmd(as_json: bool) -> None:
    """The patches (built-in and on PATCHKIT_PATCH_PATH) and checks."""
    res = api.list_all()
    if as_json:
        return click.echo(json.dumps(res.to_dict(), indent=2))
    _table(("patch", "version", "target", "description"),
           [(p.name, p.version, f"{p.distribution}{p.specifier}", p.description) for p in res.patches])
    _table(("check", "description"), [(c.name, c.description) for c in res.checks])


@main.command()
@ui_options
@click.argument("spec")
@click.option("--json", "as_json", is_flag=True)
def fetch(spec: str, as_json: bool) -> None:
    """Download NAME==VERSION (no dependencies) into the cache and unpack it once."""
    res = api.fetch(spec, _hooks())
    t = res.target
    if as_json:
        click.echo(json.dumps(res.to_dict()))
    else:
        UI.out.print(f"{t.distribution} {t.version}: {t.root}")


def _show_diff(res) -> None:
    if res.dry_run and res.result.pending:
        from .engine import unified_diff
        from rich.syntax import Syntax  # pygments: ~90 ms to import, only a diff needs it
        UI.out.print(Syntax(unified_diff(res.result.changes), "diff", theme="ansi_dark", background_color="default"))


@main.command()
@ui_options
@click.argument("name")
@target_options
@click.option("--dry-run", is_flag=True, help="show the diff; exit 1 when changes are pending, 0 when none")
@click.option("--no-check", is_flag=True, help="skip the analyzer on the patched code (not recommended)")
@click.option("--json", "as_json", is_flag=True)
def apply(name, target, dry_run, no_check, as_json) -> None:
    """Apply patch NAME to the target (atomically, journalled, idempotent).

    A refused patch prints the one-line error and then every finding, one per line."""
    res = api.apply(name, target, dry_run=dry_run, run_check=not no_check, hooks=_hooks(as_json or UI.quiet))
    r, t = res.result, res.target
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        _show_diff(res)
        UI.out.print(Text(f"{r.patch}: {r.outcome.value} on {t.distribution} {t.version} "
                          f"[{r.strategy}] {r.reason}".rstrip()))
    sys.exit(res.exit_code)


@main.command()
@ui_options
@click.argument("name")
@target_options
@click.option("--force", is_flag=True, help="restore the original even if the file changed since apply")
@click.option("--dry-run", is_flag=True, help="show what would be restored; exit 1 when something would be")
@click.option("--json", "as_json", is_flag=True)
def revert(name, target, force, dry_run, as_json) -> None:
    """Restore the files patch NAME wrote to their original bytes."""
    res = api.revert(name, target, force=force, dry_run=dry_run, hooks=_hooks(as_json or UI.quiet))
    t = res.target
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        _show_diff(res)
        UI.out.print(Text(f"{res.result.patch}: {res.outcome} on {t.distribution} {t.version}"
                          + (f" ({res.detail})" if res.detail else "")))
    sys.exit(res.exit_code)


@main.command()
@ui_options
@target_options
@click.option("--json", "as_json", is_flag=True)
def status(target, as_json) -> None:
    """Each patch on the target: applied / not-applied / drifted / refused."""
    res = api.status(target, _hooks(as_json or UI.quiet))
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        colour = {"applied": "green", "drifted": "red", "refused": "yellow", "error": "red"}
        _table(("patch", "state", "strategy", "detail"), [(r.patch, Text(r.state, style=colour.get(r.state, "")),
                                                          r.strategy, r.detail) for r in res.rows], res.target.describe())
    sys.exit(res.exit_code)


@main.command()
@ui_options
@click.argument("name")
@target_options
def diff(name, target) -> None:
    """The unified diff of what applied patch NAME changed."""
    click.echo(api.diff(name, target, _hooks(True)).text, nl=False)


# ------------------------------------------------------------------------------------------ check
@main.command()
@ui_options
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "concise", "rich", "json", "sarif"]), default="text",
              show_default=True, help="text: one line per finding plus the source line with a caret; concise: "
              "one line per finding; rich: text (kept for compatibility); json; sarif (SARIF 2.1.0)")
@click.option("--select", multiple=True, help="only these codes or prefixes (comma list, repeatable): PK001,PK00")
@click.option("--ignore", multiple=True, help="drop these codes or prefixes (comma list, repeatable)")
@click.option("--exclude", multiple=True, help="skip files matching a glob (a path, a name or a folder; repeatable)")
@click.option("--strict", is_flag=True, help="unknown bases provide nothing; two-phase initialisation is an error")
@click.option("--show-info", is_flag=True, help="also print info-level findings")
@click.option("--only-errors", is_flag=True, help="print errors only, in every format (warnings still count "
              "in the summary and for --fail-on warning)")
@click.option("--fail-on", type=click.Choice(["error", "warning"]), default=None,
              help="lowest severity that makes the exit code 1 (default: error; [tool.patchkit] fail-on)")
@click.option("--exit-zero", is_flag=True, help="exit 0 even with findings (2 still means a file could not be analysed)")
@click.option("--statistics", is_flag=True, help="print a count per code instead of the findings")
@click.option("--output-file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="write the report to this file instead of stdout (no colour)")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="report only findings not in this baseline file")
@click.option("--write-baseline", is_flag=True, help="write every current finding to the --baseline file and exit 0")
@click.option("--stdin-filename", default="-", help="the name to report for source read from '-' (stdin)")
@click.option("--no-cache", is_flag=True)
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help="pyproject.toml with [tool.patchkit] (default: nearest one upward)")
def check(fmt, statistics, output_file, **options) -> None:
    """Run the attribute-initialization analyzer over files, folders, installed distributions or '-' (stdin).

    Exit: 0 no finding at or above --fail-on; 1 findings; 2 could not run (bad arguments, a config
    error, no Python files); bit 2 is added when a file could not be analysed."""
    from . import report
    stdin = sys.stdin.read() if list(options["paths"]) == ["-"] else None
    res = api.check(api.CheckRequest(stdin=stdin, **options))
    run, shown = res.run, list(res.shown)
    if res.baseline_written is not None:
        UI.info(f"wrote {res.baseline_written} finding(s) to the baseline {options['baseline_path']}")
        sys.exit(res.exit_code)
    lines = report.render(fmt, run, shown, statistics)
    if output_file is not None:
        try:
            output_file.write_text("".join(ln + "\n" for ln, _ in lines))
        except OSError as exc:
            _fail(UsageError(f"--output-file {output_file}: cannot write: {exc.strerror}"))
    elif fmt in ("json", "sarif") and not statistics:
        click.echo(lines[0][0])
    elif UI.out.color_system is None:  # no colour to add: one write, not a rich render per line
        UI.out.file.write("".join(ln + "\n" for ln, _ in lines))
        UI.out.file.flush()
    else:
        for ln, spans in lines:
            UI.out.print(styled_line(ln, spans))
    if fmt not in ("json", "sarif") or output_file is not None:
        for r in run.errors:
            UI.err.print(Text.assemble((f"{r.path}: ", "bold"), ("error: ", "bold red"), f"PK900 could not analyse: {r.error}"))
        if not UI.quiet:
            UI.err.print(Text(report.summary(run, len(shown)), style="dim"))
            hint = report.warnings_hint(run, shown) if not statistics else None
            if hint:
                UI.err.print(Text(hint, style="dim"))
    sys.exit(res.exit_code)


@main.command()
@ui_options
@click.argument("code", required=False)
@click.option("--json", "as_json", is_flag=True)
def explain(code, as_json) -> None:
    """What analyzer code CODE finds, an example, and how to fix it (no CODE: list them)."""
    res = api.explain(code)
    picked = res.rules
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    elif code:
        click.echo(picked[0].explain(), nl=False)
    else:
        _table(("code", "name", "severity", "summary"), [(r.code, r.name, r.level, r.summary) for r in picked])


# ------------------------------------------------------------------------------------------ matrix
@main.command()
@ui_options
@click.argument("name")
@click.option("--versions", required=True, help="a range A..B (low..high) or a comma list, e.g. 0.5.6..0.5.23")
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="releases processed at once (worker processes)")
@click.option("--json", "as_json", is_flag=True)
def matrix(name, versions, jobs, as_json) -> None:
    """Dry-run patch NAME against every release in a range, each in a scratch copy (the cache is never patched)."""
    plan = api.matrix_plan(name, versions)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    show = not UI.quiet and not as_json
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=UI.err, transient=True, disable=not show) as prog:
        task = prog.add_task(f"{plan.patch.name}: fetching and dry-running {len(plan.versions)} releases",
                             total=len(plan.versions))
        res = api.matrix(plan, jobs, lambda row: prog.update(task, advance=1, description=f"{row.version}: {row.verdict}"),
                         _hooks())
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        colour = {"applies": "green", "already upstream": "cyan", "anchors missing": "yellow",
                  "check failed": "red", "refused": "yellow", "fetch failed": "red"}
        _table(("release", "verdict", "strategy", "detail"), [(r.version, Text(r.verdict, style=colour.get(r.verdict, "")),
               r.strategy, r.detail) for r in res.rows], f"{res.patch.name} {res.patch.version}")
        UI.info(f"{len(res.rows)} releases in {res.seconds:.1f} s: "
                + ", ".join(f"{n} {v}" for v, n in res.counts().items()) + f"; cache: {res.cache}")
    sys.exit(res.exit_code)


# ------------------------------------------------------------------------------------------ cache
def _human(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


@main.group()
def cache() -> None:
    """The patchkit cache: $PATCHKIT_CACHE_DIR, else $XDG_CACHE_HOME/patchkit, else ~/.cache/patchkit."""


@cache.command("info")
@ui_options
@click.option("--json", "as_json", is_flag=True)
def cache_info(as_json) -> None:
    """Where the cache is and what each part of it holds (sizes)."""
    res = api.cache_info()
    rows = res.parts
    if as_json:
        return click.echo(json.dumps(res.to_dict(), indent=2))
    t = Table("part", "size", "files", "what", title=f"patchkit cache: {res.path}")
    for r in rows:
        what = r["what"]
        if r.get("releases"):
            what += f": {len(r['releases'])} ({r['releases'][0]} … {r['releases'][-1]})"
        t.add_row(r["part"], _human(r["bytes"]), str(r["files"]), what)
    t.add_row("total", _human(res.bytes), str(sum(r["files"] for r in rows)), "")
    UI.out.print(t)


@cache.command("clean")
@ui_options
@click.argument("parts", nargs=-1)
def cache_clean(parts) -> None:
    """Remove cache PARTS (releases, wheels, analysis, pytest, smoke-logs; none named: all of them)."""
    res = api.cache_clean(parts)
    UI.out.print(f"freed {_human(res.freed)} in {res.path}" + (f" ({', '.join(parts)})" if parts else ""))


# ------------------------------------------------------------------------------------------ new
@main.command("new")
@ui_options
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="where the package goes (default: the first PATCHKIT_PATCH_PATH entry, else ./patchkit-patches)")
@click.option("--file", "rel", default="sglang/srt/server_args.py", show_default=True,
              help="the module the patch edits, relative to the target root")
@click.option("--class", "cls", default="ServerArgs", show_default=True)
@click.option("--method", default="__post_init__", show_default=True)
@click.option("--target", "distribution", default="sglang", show_default=True)
@click.option("--versions", "specifier", default=">=0.5.6", show_default=True, help="the releases the patch supports")
@click.option("--description", default=None)
def new(name, folder, rel, cls, method, distribution, specifier, description) -> None:
    """Write a new patch package NAME: a libcst codemod, its before/after example and its tests."""
    from . import scaffold
    res = api.new(scaffold.Spec(name, folder or scaffold.default_folder(), distribution, specifier, rel, cls, method),
                  description)
    for f in res.files:
        UI.out.print(f"wrote {f}")
    if not UI.quiet:
        if not res.on_path:
            UI.err.print(f"next: export PATCHKIT_PATCH_PATH={res.spec.folder.resolve()}")
        UI.err.print(f"then: python3 -m pytest {res.spec.folder / res.spec.package} && "
                     f"patchkit apply {name} --target-dir /tmp/site --dry-run")


# ------------------------------------------------------------------------------------------ gate
def gate_options(f):
    f = click.option("--require-signoff", is_flag=True, help="also demand a passing smoke sign-off for these hashes")(f)
    f = click.option("--signoff", "signoff_path", type=click.Path(path_type=Path), default=None)(f)
    f = click.option("--tp", type=int, default=None, help="the launch's tensor-parallel size (checked against the sign-off)")(f)
    f = click.option("--verify-signature", is_flag=True,
                     help="demand a sign-off signed with the key in $PATCHKIT_SIGNOFF_KEY (implies --require-signoff)")(f)
    return target_options(f)


def _show_gate(res, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
        return
    for s in res.stages:
        c = {"pass": "green", "fail": "red", "error": "red", "skip": "dim"}[s.verdict]
        if UI.quiet and s.verdict in ("pass", "skip"):
            continue
        UI.err.print(Text.assemble((f"{s.verdict.upper():5}", c), f" {s.name:10} {s.detail}"))
    st = res.failed_stage
    UI.err.print(Text("gate passed", style="green") if st is None else
                 Text(f"gate failed at stage '{st.name}'", style="red"))


@main.command("gate")
@ui_options
@gate_options
@click.option("--json", "as_json", is_flag=True)
def gate_cmd(target, require_signoff, signoff_path, tp, verify_signature, as_json) -> None:
    """Pre-launch verification; exit 0 pass, 1 a check failed, 2 could not run."""
    res = api.gate(api.GateRequest(target, require_signoff, signoff_path, tp, verify_signature),
                   _hooks(True, gate=lambda r: _show_gate(r, as_json)))
    sys.exit(res.exit_code)


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@ui_options
@gate_options
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def launch(target, require_signoff, signoff_path, tp, verify_signature, command) -> None:
    """Run the gate, then exec COMMAND (same PID) only if it passes: patchkit launch -- python -m sglang.launch_server ..."""
    res = api.launch(api.GateRequest(target, require_signoff, signoff_path, tp, verify_signature), command,
                     _hooks(True, gate=lambda r: _show_gate(r, False)))
    if res.gate.exit_code != 0:
        UI.err.print(Text("not launching", style="red"))
    elif res.refusal:
        UI.err.print(Text.assemble(("not launching: ", "red"), res.refusal))
    if res.exit_code:
        sys.exit(res.exit_code)
    sys.stdout.flush()
    sys.stderr.flush()
    api.exec_launch(res)


# ------------------------------------------------------------------------------------------ smoke
@main.command()
@ui_options
@target_options
@click.option("--model-path", default=None)
@click.option("--draft-model-path", default=None)
@click.option("--eagle-draft-model-path", default=None, help="EAGLE (not EAGLE-3) draft for the EAGLE cells")
@click.option("--tiny", is_flag=True, help="built-in tiny Llama + one-layer EAGLE-3 / EAGLE drafts with dummy weights")
@click.option("--model-config", default=None, metavar="NAME",
              help="a built-in full-size shape with dummy weights (llama3-70b, qwen3-30b-a3b) and its EAGLE-3 draft")
@click.option("--layers", type=int, default=None, help="with --model-config: this many decoder layers (recorded)")
@click.option("--tp", type=int, default=1)
@click.option("--threshold", type=int, default=None, help="batch-size threshold (default: the patch's smoke spec)")
@click.option("--crossings", type=int, default=None, help="switches each way (default 20; 10 per matrix cell)")
@click.option("--server-arg", "server_args", multiple=True,
              help="extra argument for sglang.launch_server (repeatable); it replaces a built-in option of the "
                   "same name, e.g. --server-arg=--attention-backend=flashinfer")
@click.option("--timeout", type=float, default=600.0)
@click.option("--signoff", "signoff_path", type=click.Path(path_type=Path), default=None)
@click.option("--log-dir", type=click.Path(path_type=Path), default=None,
              help="server logs (default: <cache>/smoke-logs/<distribution>-<version>-<time>)")
@click.option("--compare-no-spec", is_flag=True, help="also boot without speculation and compare greedy outputs")
@click.option("--no-gate", is_flag=True, help="skip the static gate first (to prove the smoke test catches a bad patch)")
@click.option("--matrix", "matrix", default=None, metavar="FILE|default",
              help="run a matrix of cells: a TOML/JSON file, or 'default' for the patch's default matrix "
                   "(also when pyproject.toml has [tool.patchkit.smoke])")
@click.option("--parallel", type=int, default=1, show_default=True, help="cells served at once on the GPU")
@click.option("--mem-total", type=click.FloatRange(0.05, 0.95), default=0.8, show_default=True,
              help="GPU memory fraction a matrix's servers share (each gets it / --parallel as --mem-fraction-static)")
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
def smoke(as_json, **options) -> None:
    """Boot the patched server on this GPU host, drive it across the threshold, write the sign-off.

    Exit 0 sign-off passed, 1 failed (written anyway), 2 could not run (no GPU, no target, bad
    arguments: nothing booted, nothing written)."""
    req = api.SmokeRequest(**options)
    say = None if UI.quiet else (lambda s: UI.err.print(Text(s, style="dim")))
    res = api.smoke(req, _hooks(as_json or UI.quiet, gate=lambda r: _show_gate(r, as_json), say=say))
    rec = res.record
    if rec is None:
        sys.exit(res.exit_code)
    if as_json:
        click.echo(json.dumps(rec, indent=2))
    else:
        for c in rec.get("cells", []):
            colour = {"pass": "green", "refused": "cyan"}.get(c["verdict"], "red")
            f = c.get("failure") or {}
            UI.err.print(Text.assemble((f"{c['verdict'].upper():8}", colour), f" {c['seconds']:6.0f}s  {c['name']}",
                                       f"  {f.get('stage')}: {f.get('message')}" if f else ""))
        f = rec["failure"]
        UI.err.print(Text.assemble(f"sign-off written to {res.signoff_path}: ", ("PASSED", "green") if rec["passed"] else
                                   ("FAILED", "red"), "" if rec["passed"] else
                                   f" at {f.get('cell', '') + ': ' if f.get('cell') else ''}{f['stage']}: "
                                   f"{f['message']} {f.get('location', '')}"))
        UI.err.print(Text(f"server logs: {res.log_dir}", style="dim"))
    sys.exit(res.exit_code)


@main.command("smoke-merge")
@click.argument("parts", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--signoff", "out", type=click.Path(path_type=Path), required=True, help="where the merged record goes")
@ui_options
def smoke_merge(parts, out) -> None:
    """Merge matrix sign-offs that ran parts of one matrix side by side (one per GPU or host).

    Exit 0 the merged sign-off passed, 1 it failed (written anyway), 2 the parts sign off different
    files, configurations or GPUs, or share a cell (nothing written)."""
    res = api.smoke_merge(parts, out)
    rec = res.record
    UI.err.print(Text.assemble(f"{len(rec['cells'])} cell(s) from {len(parts)} record(s) -> {res.signoff_path}: ",
                               ("PASSED", "green") if rec["passed"] else ("FAILED", "red"),
                               "" if rec["passed"] else f" at {rec['failure'].get('cell', '-')}: "
                               f"{rec['failure']['stage']}: {rec['failure']['message']}"))
    sys.exit(res.exit_code)


if __name__ == "__main__":
    main()
