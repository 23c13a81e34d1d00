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
import os
import shutil
import sys
from pathlib import Path
from typing import Optional

import click
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from . import __version__
from .console import UI, styled_line
from .ftypes import CheckFailed, PatchkitError, UsageError


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
    """-q / -v / --color on a command (they also work before the command: `patchkit -q check ...`)."""
    @functools.wraps(f)
    def wrapper(*args, quiet: int = 0, verbose: int = 0, color: Optional[str] = None, **kw):
        g = (click.get_current_context().find_root().obj or {})
        UI.configure(color or g.get("color") or "auto", g.get("verbosity", 0) + verbose - quiet)
        UI.json = bool(kw.get("as_json")) or kw.get("fmt") in ("json", "sarif")
        return f(*args, **kw)
    for opt in _ui_params():
        wrapper = opt(wrapper)
    return wrapper


def _ui_params():
    return (click.option("--color", type=click.Choice(["auto", "always", "never"]), default=None,
                         help="colour output: auto (a terminal, unless NO_COLOR), always, never"),
            click.option("-v", "--verbose", count=True, help="more output (pip's own download output, timings)"),
            click.option("-q", "--quiet", count=True, help="results and errors only (no progress, no summary)"))


def target_options(f):
    f = click.option("--target", "distribution", default=None, help="installed distribution (default: sglang)")(f)
    f = click.option("--target-dir", type=click.Path(path_type=Path), default=None,
                     help="folder holding the package (an unpacked wheel, a PYTHONPATH site folder)")(f)
    f = click.option("--release", default=None, help="a registry release fetched into the cache, e.g. sglang==0.5.12")(f)
    f = click.option("--target-version", default=None, help="version of a --target-dir without metadata")(f)
    return f


def _target(distribution, target_dir, release, target_version, quiet=False):
    t = tgt.resolve(distribution, target_dir, release, target_version,
                    progress=None if quiet else UI.info, pip_output=UI.pip_output())
    from .journal import recover  # an interrupted apply/revert is finished or rolled back first
    note = recover(t)
    if note:
        UI.err.print(Text(f"recovered: {note}"))
    return t


def _refuse_shared_release(t, release: Optional[str], command: str, name: str) -> None:
    """apply / revert never write into the shared release cache (matrix, tests and --release read it)."""
    if release and tgt.is_shared_release(t):
        raise UsageError(f"--release {release} is the shared release cache and is never patched in place; "
                         f"copy it and patch the copy: cp -r {t.root} /tmp/site && "
                         f"patchkit {command} {name} --target-dir /tmp/site")


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
    try:
        ps, cs = registry.patches(), registry.checks()
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"patches": [{"name": p.name, "version": p.version, "distribution": p.distribution,
                                            "specifier": str(p.specifier), "description": p.description}
                                           for p in ps.values()],
                               "checks": [{"name": c.name, "description": c.description} for c in cs.values()]}, indent=2))
        return
    t = Table("patch", "version", "target", "description")
    for p in ps.values():
        t.add_row(p.name, p.version, f"{p.distribution}{p.specifier}", p.description)
    UI.out.print(t)
    t = Table("check", "description")
    for c in cs.values():
        t.add_row(c.name, c.description)
    UI.out.print(t)


@main.command()
@ui_options
@click.argument("spec")
@click.option("--json", "as_json", is_flag=True)
def fetch(spec: str, as_json: bool) -> None:
    """Download NAME==VERSION (no dependencies) into the cache and unpack it once."""
    try:
        t = tgt.fetch(spec, UI.info, pip_output=UI.pip_output())
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"distribution": t.distribution, "version": t.version, "path": str(t.root)}))
    else:
        UI.out.print(f"{t.distribution} {t.version}: {t.root}")


def _result_json(r, outcome: Optional[str] = None) -> dict:
    return {"patch": r.patch, "outcome": outcome or r.outcome.value, "reason": r.reason, "strategy": r.strategy,
            "files": [{"file": c.rel, "changed": c.changed} for c in r.changes],
            "diff": engine.unified_diff(r.changes)}


def _all_findings(p, t) -> list[str]:
    """Every finding of a refused patch (the error line names the first and '+N more')."""
    try:
        _strategy, changes, _state = engine.transform(p, t)
        found = engine.run_checks(p, t, changes)
    except Exception:
        return []
    # one line per (file, line, attribute, code); other reads on that line are named by column
    groups: dict[tuple, list] = {}
    for f in found:
        groups.setdefault((f.path, f.line, f.attr, f.code), []).append(f)
    return [str(fs[0]) + (f" (also column{'s' if len(fs) > 2 else ''} {', '.join(str(x.col) for x in fs[1:])})"
                          if len(fs) > 1 else "") for fs in groups.values()]


@main.command()
@ui_options
@click.argument("name")
@target_options
@click.option("--dry-run", is_flag=True, help="show the diff; exit 1 when changes are pending, 0 when none")
@click.option("--no-check", is_flag=True, help="skip the analyzer on the patched code (not recommended)")
@click.option("--json", "as_json", is_flag=True)
def apply(name, distribution, target_dir, release, target_version, dry_run, no_check, as_json) -> None:
    """Apply patch NAME to the target (atomically, journalled, idempotent).

    A refused patch prints the one-line error and then every finding, one per line."""
    p = t = None
    try:
        p = registry.patch(name)
        t = _target(distribution, target_dir, release, target_version, as_json or UI.quiet)
        if not dry_run:
            _refuse_shared_release(t, release, "apply", name)
        r = engine.apply(p, t, dry_run=dry_run, run_check=not no_check)
    except CheckFailed as exc:
        _fail(exc, tuple(_all_findings(p, t)) if p is not None and t is not None and "more)" in str(exc) else ())
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps(_result_json(r), indent=2))
    else:
        if dry_run and r.pending:
            UI.out.print(Syntax(engine.unified_diff(r.changes), "diff", theme="ansi_dark", background_color="default"))
        UI.out.print(Text(f"{r.patch}: {r.outcome.value} on {t.distribution} {t.version} "
                          f"[{r.strategy}] {r.reason}".rstrip()))
    sys.exit(1 if (dry_run and r.pending) else 0)


def _revert_outcome(r) -> tuple[str, str]:
    """(outcome, detail) as `revert` says them: 'would-revert', 'nothing to revert', 'reverted'."""
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


@main.command()
@ui_options
@click.argument("name")
@target_options
@click.option("--force", is_flag=True, help="restore the original even if the file changed since apply")
@click.option("--dry-run", is_flag=True, help="show what would be restored; exit 1 when something would be")
@click.option("--json", "as_json", is_flag=True)
def revert(name, distribution, target_dir, release, target_version, force, dry_run, as_json) -> None:
    """Restore the files patch NAME wrote to their original bytes."""
    try:
        p = registry.patch(name)
        t = _target(distribution, target_dir, release, target_version, as_json or UI.quiet)
        if not dry_run:
            _refuse_shared_release(t, release, "revert", name)
        r = engine.revert(p, t, force=force, dry_run=dry_run)
    except PatchkitError as exc:
        _fail(exc)
    outcome, detail = _revert_outcome(r)
    if as_json:
        click.echo(json.dumps(_result_json(r, outcome), indent=2))
    else:
        if dry_run and r.pending:
            UI.out.print(Syntax(engine.unified_diff(r.changes), "diff", theme="ansi_dark", background_color="default"))
        UI.out.print(Text(f"{r.patch}: {outcome} on {t.distribution} {t.version}" + (f" ({detail})" if detail else "")))
    sys.exit(1 if (dry_run and r.pending) else 0)


@main.command()
@ui_options
@target_options
@click.option("--json", "as_json", is_flag=True)
def status(distribution, target_dir, release, target_version, as_json) -> None:
    """Each patch on the target: applied / not-applied / drifted / refused."""
    try:
        t = _target(distribution, target_dir, release, target_version, as_json or UI.quiet)
        rows = engine.status(registry.patches().values(), t)
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"target": t.describe(), "patches": [r.__dict__ for r in rows]}, indent=2, default=list))
    else:
        table = Table("patch", "state", "strategy", "detail", title=t.describe())
        colour = {"applied": "green", "drifted": "red", "refused": "yellow", "error": "red"}
        for r in rows:
            table.add_row(r.patch, Text(r.state, style=colour.get(r.state, "")), r.strategy, r.detail)
        UI.out.print(table)
    sys.exit(1 if any(r.state in ("drifted", "error") for r in rows) else 0)


@main.command()
@ui_options
@click.argument("name")
@target_options
def diff(name, distribution, target_dir, release, target_version) -> None:
    """The unified diff of what applied patch NAME changed."""
    try:
        text = engine.diff(registry.patch(name), _target(distribution, target_dir, release, target_version, True))
    except PatchkitError as exc:
        _fail(exc)
    click.echo(text, nl=False)


# ------------------------------------------------------------------------------------------ check
def _codes(values) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def _resolve_check_paths(paths) -> list[Path]:
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
def check(paths, fmt, select, ignore, exclude, strict, show_info, only_errors, fail_on, exit_zero, statistics,
          output_file, baseline_path, write_baseline, stdin_filename, no_cache, config_path) -> None:
    """Run the attribute-initialization analyzer over files, folders, installed distributions or '-' (stdin).

    Exit: 0 no finding at or above --fail-on; 1 findings; 2 could not run (bad arguments, a config
    error, no Python files); bit 2 is added when a file could not be analysed."""
    from . import baseline as bl, checkrun, report
    from .config import load_section, load_settings
    try:
        stdin = sys.stdin.read() if list(paths) == ["-"] else None
        if stdin is None and "-" in paths:
            raise UsageError("'-' (stdin) cannot be mixed with other paths")
        resolved = [] if stdin is not None else _resolve_check_paths(paths)
        start = resolved[0] if resolved else Path.cwd()
        sec = load_section(config_path, start)
        settings = load_settings(config_path, start, strict=strict, show_info=show_info, section=sec)
        if write_baseline and baseline_path is None:
            raise UsageError("--write-baseline needs --baseline FILE (where to write it)")
        base_counter = bl.load(baseline_path) if baseline_path is not None and not write_baseline else None
        run = checkrun.run(resolved, settings, use_cache=not no_cache,
                           select=_codes(select) or sec.get("select", []), ignore=_codes(ignore) or sec.get("ignore", []),
                           exclude=list(exclude) or sec.get("exclude", []), stdin=stdin, stdin_filename=stdin_filename,
                           baseline=base_counter, baseline_dir=baseline_path.parent if baseline_path else None)
    except PatchkitError as exc:
        _fail(exc)
    fail_on = fail_on or sec.get("fail-on", "error")
    if write_baseline:
        try:
            n = bl.write(baseline_path, run.findings, run.lines)
        except (OSError, PatchkitError) as exc:
            _fail(UsageError(f"--baseline {baseline_path}: cannot write: {exc}"))
        UI.info(f"wrote {n} finding(s) to the baseline {baseline_path}")
        sys.exit(2 if run.errors else 0)
    shown = [f for f in run.findings if not only_errors or f.severity.value == "error"]
    if statistics:
        lines = [(ln, []) for ln in report.statistics(shown)]
    elif fmt == "json":
        lines = [(json.dumps(report.to_json(run.reports, shown, run.baselined), indent=2), [])]
    elif fmt == "sarif":
        lines = [(json.dumps(report.sarif(run.reports, shown, run.lines), indent=2), [])]
    else:
        lines = report.text_lines(shown, run.lines, snippets=fmt in ("text", "rich"))
    if output_file is not None:
        try:
            output_file.write_text("".join(ln + "\n" for ln, _ in lines))
        except OSError as exc:
            _fail(UsageError(f"--output-file {output_file}: cannot write: {exc.strerror}"))
    elif fmt in ("json", "sarif") and not statistics:
        click.echo(lines[0][0])
    else:
        for ln, spans in lines:
            UI.out.print(styled_line(ln, spans))
    if fmt not in ("json", "sarif") or output_file is not None:
        for r in run.errors:
            UI.err.print(Text.assemble((f"{r.path}: ", "bold"), ("error: ", "bold red"), f"PK900 could not analyse: {r.error}"))
        if not UI.quiet:
            UI.err.print(Text(report.summary(run, len(shown)), style="dim"))
    failing = {"error"} if fail_on == "error" else {"error", "warning"}
    code = 0 if exit_zero else (1 if any(f.severity.value in failing for f in run.findings) else 0)
    sys.exit(code | (2 if run.errors else 0))


@main.command()
@ui_options
@click.argument("code", required=False)
@click.option("--json", "as_json", is_flag=True)
def explain(code, as_json) -> None:
    """What analyzer code CODE finds, an example, and how to fix it (no CODE: list them)."""
    from . import rules
    try:
        picked = [rules.rule(code)] if code else list(rules.RULES.values())
    except PatchkitError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps([{"code": r.code, "name": r.name, "level": r.level, "summary": r.summary, "text": r.text,
                                "example": r.example.strip("\n"), "fix": r.fix} for r in picked], indent=2))
    elif code:
        click.echo(picked[0].explain(), nl=False)
    else:
        t = Table("code", "name", "severity", "summary")
        for r in picked:
            t.add_row(r.code, r.name, r.level, r.summary)
        UI.out.print(t)


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
    import time
    from .matrix import expand_versions, run_matrix
    t0 = time.monotonic()
    try:
        p = registry.patch(name)
        vs = expand_versions(p.distribution, versions)
        if not vs:
            raise UsageError(f"--versions {versions}: no {p.distribution} release on the registry in that range")
    except PatchkitError as exc:
        _fail(exc)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    show = not UI.quiet and not as_json
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=UI.err, transient=True, disable=not show) as prog:
        task = prog.add_task(f"{p.name}: fetching and dry-running {len(vs)} releases", total=len(vs))
        rows = run_matrix(p, vs, jobs=jobs, pip_output=UI.pip_output(),
                          on_done=lambda row: prog.update(task, advance=1, description=f"{row.version}: {row.verdict}"))
    if as_json:
        click.echo(json.dumps([r.__dict__ for r in rows], indent=2))
    else:
        t = Table("release", "verdict", "strategy", "detail", title=f"{p.name} {p.version}")
        colour = {"applies": "green", "already upstream": "cyan", "anchors missing": "yellow",
                  "check failed": "red", "refused": "yellow", "fetch failed": "red"}
        for r in rows:
            t.add_row(r.version, Text(r.verdict, style=colour.get(r.verdict, "")), r.strategy, r.detail)
        UI.out.print(t)
        counts: dict[str, int] = {}
        for r in rows:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        UI.info(f"{len(rows)} releases in {time.monotonic() - t0:.1f} s: "
                + ", ".join(f"{n} {v}" for v, n in counts.items()) + f"; cache: {tgt.cache_dir()}")
    sys.exit(1 if any(r.verdict in ("check failed", "fetch failed") for r in rows) else 0)


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
    rows = tgt.cache_info()
    if as_json:
        click.echo(json.dumps({"path": str(tgt.cache_dir()), "bytes": sum(r["bytes"] for r in rows), "parts": rows},
                              indent=2))
        return
    t = Table("part", "size", "files", "what", title=f"patchkit cache: {tgt.cache_dir()}")
    for r in rows:
        what = r["what"]
        if r.get("releases"):
            what += f": {len(r['releases'])} ({r['releases'][0]} … {r['releases'][-1]})"
        t.add_row(r["part"], _human(r["bytes"]), str(r["files"]), what)
    t.add_row("total", _human(sum(r["bytes"] for r in rows)), str(sum(r["files"] for r in rows)), "")
    UI.out.print(t)


@cache.command("clean")
@ui_options
@click.argument("parts", nargs=-1)
def cache_clean(parts) -> None:
    """Remove cache PARTS (releases, wheels, analysis, pytest, smoke-logs; none named: all of them)."""
    try:
        freed = tgt.cache_clean(list(parts) or None)
    except PatchkitError as exc:
        _fail(exc)
    UI.out.print(f"freed {_human(freed)} in {tgt.cache_dir()}" + (f" ({', '.join(parts)})" if parts else ""))


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
    spec = scaffold.Spec(name, folder or scaffold.default_folder(), distribution, specifier, rel, cls, method)
    try:
        files = scaffold.write(spec, description)
    except PatchkitError as exc:
        _fail(exc)
    for f in files:
        UI.out.print(f"wrote {f}")
    path = spec.folder.resolve()
    on_path = str(path) in [str(Path(x).resolve()) for x in os.environ.get("PATCHKIT_PATCH_PATH", "").split(os.pathsep) if x]
    if not UI.quiet:
        if not on_path:
            UI.err.print(f"next: export PATCHKIT_PATCH_PATH={path}")
        UI.err.print(f"then: python3 -m pytest {spec.folder / spec.package} && "
                     f"patchkit apply {name} --target-dir /tmp/site --dry-run")


# ------------------------------------------------------------------------------------------ gate
def gate_options(f):
    f = click.option("--require-signoff", is_flag=True, help="also demand a passing smoke sign-off for these hashes")(f)
    f = click.option("--signoff", "signoff_path", type=click.Path(path_type=Path), default=None)(f)
    f = click.option("--tp", type=int, default=None, help="the launch's tensor-parallel size (checked against the sign-off)")(f)
    f = click.option("--verify-signature", is_flag=True,
                     help="demand a sign-off signed with the key in $PATCHKIT_SIGNOFF_KEY (implies --require-signoff)")(f)
    return target_options(f)


def _run_gate(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, as_json,
              verify_signature=False):
    from . import gate
    t = _target(distribution, target_dir, release, target_version, True)
    res = gate.run(t, require_signoff, signoff_path, tp, verify_signature=verify_signature)
    if as_json:
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        for s in res.stages:
            c = {"pass": "green", "fail": "red", "error": "red", "skip": "dim"}[s.verdict]
            if UI.quiet and s.verdict in ("pass", "skip"):
                continue
            UI.err.print(Text.assemble((f"{s.verdict.upper():5}", c), f" {s.name:10} {s.detail}"))
        st = res.failed_stage
        UI.err.print(Text("gate passed", style="green") if st is None else
                     Text(f"gate failed at stage '{st.name}'", style="red"))
    return res


@main.command("gate")
@ui_options
@gate_options
@click.option("--json", "as_json", is_flag=True)
def gate_cmd(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, verify_signature,
             as_json) -> None:
    """Pre-launch verification; exit 0 pass, 1 a check failed, 2 could not run."""
    try:
        res = _run_gate(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, as_json,
                        verify_signature)
    except PatchkitError as exc:
        _fail(exc)
    sys.exit(res.exit_code)


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@ui_options
@gate_options
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def launch(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, verify_signature,
           command) -> None:
    """Run the gate, then exec COMMAND (same PID) only if it passes: patchkit launch -- python -m sglang.launch_server ..."""
    try:
        if tp is None:
            tp = _tp_from_command(command)
        res = _run_gate(distribution, target_dir, release, target_version, require_signoff, signoff_path, tp, False,
                        verify_signature)
    except PatchkitError as exc:
        _fail(exc)
    if res.exit_code != 0:
        UI.err.print(Text("not launching", style="red"))
        sys.exit(res.exit_code)
    if require_signoff:
        from .smoke.command import launch_refusal
        try:
            why = launch_refusal(_target(distribution, target_dir, release, target_version, True), signoff_path,
                                 list(command))
        except PatchkitError as exc:
            _fail(exc)
        if why:
            UI.err.print(Text.assemble(("not launching: ", "red"), why))
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
            value = cmd[i + 1] if a == flag and i + 1 < len(cmd) else a.split("=", 1)[1] if a.startswith(flag + "=") else None
            if value is not None:
                try:
                    return int(value)
                except ValueError:
                    raise UsageError(f"{flag} {value!r} in the launch command: not an integer") from None
    return 1 if any("sglang.launch_server" in a for a in cmd) else None


# ------------------------------------------------------------------------------------------ smoke
def _needs_gpu(t, server_args) -> Optional[str]:
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
@click.option("--server-arg", "server_args", multiple=True, help="extra argument for sglang.launch_server (repeatable)")
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
          tiny, model_config, layers, tp, threshold, crossings, server_args, timeout, signoff_path, log_dir,
          compare_no_spec, no_gate, matrix, parallel, cells, launch_cell, plan_only, patch_name, soak_seconds,
          long_tokens, skip_stages, transitions, as_json) -> None:
    """Boot the patched server on this GPU host, drive it across the threshold, write the sign-off.

    Exit 0 sign-off passed, 1 failed (written anyway), 2 could not run (no GPU, no target, bad
    arguments: nothing booted, nothing written)."""
    import time
    from . import signoff as so
    from .smoke import command as sc
    try:
        t = _target(distribution, target_dir, release, target_version, as_json or UI.quiet)
        sc.model_choice(model_path, tiny, model_config, layers)
        if not model_path and not tiny and not model_config and not plan_only:
            raise UsageError("--model-path is required (or --tiny / --model-config NAME for a built-in model)")
        if model_config:
            from .smoke import fullsize
            fullsize.shape(model_config, layers)
        why = None if plan_only else _needs_gpu(t, server_args)
        if why:
            raise PatchkitError(why)
        if not no_gate and not plan_only:
            res = _run_gate(distribution, target_dir, release, target_version, False, None, None, as_json)
            if res.exit_code:
                sys.exit(res.exit_code)
        spec = sc.pick_spec(t, patch_name)
    except PatchkitError as exc:
        _fail(exc)
    if log_dir is None:
        log_dir = tgt.cache_dir() / "smoke-logs" / f"{t.distribution}-{t.version}-{time.strftime('%Y%m%d-%H%M%S')}"
    env_path = os.pathsep.join([str(t.root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    os.environ["PYTHONPATH"] = env_path
    path = signoff_path or so.default_path(t)
    say = (lambda s: None) if UI.quiet else (lambda s: UI.err.print(Text(s, style="dim")))  # noqa: E731
    use_matrix = bool(matrix or cells or launch_cell or parallel > 1 or plan_only or sc.pyproject_section(Path.cwd()))
    if use_matrix:
        try:
            opts = sc.matrix_options(t, spec, model_path=model_path, draft_model_path=draft_model_path,
                                     eagle_draft_path=eagle_draft_model_path, tiny=tiny, tp=tp, threshold=threshold,
                                     crossings=crossings or 10, server_args=list(server_args), timeout=timeout,
                                     log_dir=log_dir, parallel=parallel, only=tuple(cells), matrix=matrix,
                                     launch_cell=launch_cell, soak_seconds=soak_seconds, long_tokens=long_tokens,
                                     transitions=transitions, skip_stages=tuple(skip_stages),
                                     model_config=model_config, layers=layers)
            _plan, rec = sc.plan_and_run(spec, t, opts, path, say, plan_only)
        except PatchkitError as exc:
            _fail(exc)
        if rec is None:
            sys.exit(0)
    else:
        from .smoke.run import Smoke, SmokeConfig
        from .smoke import tiny as tinymod
        extra, shape = list(server_args), {}
        if model_config:
            model_path, models, base, shape = sc.fullsize_models(log_dir, model_config, layers, tp)
            draft_model_path = models["draft"]
            extra = base + list(spec.spec_args) + extra
        elif tiny:
            mt, md = tinymod.write(log_dir / "tiny-model")
            model_path, draft_model_path = str(mt), str(md)
            extra = tinymod.tiny_args(spec) + extra
        if not model_path:
            _fail(PatchkitError("--model-path is required (or --tiny for the built-in model)"))
        cfg = SmokeConfig(model_path, draft_model_path, tp, threshold if threshold is not None else spec.threshold,
                          crossings or 20, extra, timeout, log_dir=log_dir, compare_no_spec=compare_no_spec, spec=spec,
                          shape=shape)
        rec = Smoke(cfg, t, say).run()
        so.write(rec, path)
    if as_json:
        click.echo(json.dumps(rec, indent=2))
    else:
        for c in rec.get("cells", []):
            colour = {"pass": "green", "refused": "cyan"}.get(c["verdict"], "red")
            f = c.get("failure") or {}
            UI.err.print(Text.assemble((f"{c['verdict'].upper():8}", colour), f" {c['seconds']:6.0f}s  {c['name']}",
                                       f"  {f.get('stage')}: {f.get('message')}" if f else ""))
        f = rec["failure"]
        UI.err.print(Text.assemble(f"sign-off written to {path}: ", ("PASSED", "green") if rec["passed"] else
                                   ("FAILED", "red"), "" if rec["passed"] else
                                   f" at {f.get('cell', '') + ': ' if f.get('cell') else ''}{f['stage']}: "
                                   f"{f['message']} {f.get('location', '')}"))
        UI.err.print(Text(f"server logs: {log_dir}", style="dim"))
    sys.exit(0 if rec["passed"] else 1)


if __name__ == "__main__":
    main()
