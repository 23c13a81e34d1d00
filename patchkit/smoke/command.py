"""What ``patchkit smoke`` and ``patchkit launch`` do beyond parsing arguments: pick the spec, write
the tiny model, build and run the plan, merge with a previous record, and match a launch command
against the sign-off's cells. Never prints."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional

from .. import signoff
from ..ftypes import Target, UsageError
from . import matrix as M
from .matrixrun import MatrixOptions, Plan, make_plan, models_for, run_matrix
from .run import merge_args
from .spec import SmokeSpec, for_patch_names, for_target


def pick_spec(target: Target, patch: Optional[str]) -> SmokeSpec:
    if patch:
        spec = for_patch_names([patch])
        if spec is None:
            raise UsageError(f"patch '{patch}' declares no smoke spec (Patch.smoke or a smoke_spec.py beside it)")
        return spec
    return for_target(target)


def tiny_models(log_dir: Path, grammar_skip: str = "-") -> tuple[str, dict, list[str]]:
    """(target path, models, base args) of the built-in tiny model written under ``log_dir``: it
    runs with its tokenizer and a grammar backend when ``grammar_skip`` is "" (see tiny.base_args)."""
    from . import tiny
    t, d, e = tiny.write_all(Path(log_dir) / "tiny-model")
    return str(t), {"target": str(t), "draft": str(d), "eagle_draft": str(e)}, tiny.base_args(grammar_skip)


def fullsize_models(log_dir: Path, name: str, layers: Optional[int], tp: int) -> tuple[str, dict, list[str], dict]:
    """(target path, models, base args, record fields) of the built-in full-size shape ``name``
    written under ``log_dir``; UsageError for an unknown name or a layer count out of range."""
    from . import fullsize
    s = fullsize.shape(name, layers)
    t, d = fullsize.write(Path(log_dir) / f"model-{name}", s)
    return str(t), {"target": str(t), "draft": str(d)}, fullsize.server_args(), fullsize.record(s, tp)


def grammar_probe() -> str:
    """"" when the servers (this Python, with the target's ``PYTHONPATH``) can import a grammar
    backend, else why the grammar-constrained request kinds are skipped. ``PATCHKIT_SMOKE_GRAMMAR=0``
    skips them without asking."""
    import os
    if os.environ.get("PATCHKIT_SMOKE_GRAMMAR", "") == "0":
        return "skipped: PATCHKIT_SMOKE_GRAMMAR=0"
    from .textcaps import grammar_missing
    return grammar_missing()


def model_choice(model_path: Optional[str], tiny: bool, model_config: Optional[str], layers: Optional[int]) -> None:
    """UsageError unless exactly one model source is named (``--layers`` only with ``--model-config``)."""
    given = [n for n, v in (("--model-path", model_path), ("--tiny", tiny), ("--model-config", model_config)) if v]
    if len(given) > 1:
        raise UsageError(f"{given[0]} and {given[1]}: choose one model")
    if layers is not None and not model_config:
        raise UsageError(f"--layers {layers}: only with --model-config (a built-in full-size shape)")


def pyproject_section(start: Path) -> Optional[dict]:
    from ..config import load_section
    sec = load_section(None, start).get("smoke")
    return sec if isinstance(sec, dict) and sec else None


def matrix_options(target: Target, spec: SmokeSpec, *, model_path: Optional[str], draft_model_path: Optional[str],
                   eagle_draft_path: Optional[str], tiny: bool, tp: int, threshold: Optional[int], crossings: int,
                   server_args: list[str], timeout: float, log_dir: Path, parallel: int, only: tuple,
                   matrix: Optional[str], launch_cell: str, soak_seconds: float, long_tokens: int,
                   transitions: int, skip_stages: tuple = (), start: Path = Path.cwd(),
                   model_config: Optional[str] = None, layers: Optional[int] = None,
                   mem_total: float = 0.8) -> MatrixOptions:
    base = list(server_args)
    shape: dict = {}
    grammar_skip = grammar_probe()
    if model_config:
        model_path, models, fs_base, shape = fullsize_models(log_dir, model_config, layers, tp)
        base = merge_args(fs_base, base, spec.bool_options)  # --server-arg overrides a built-in option
    elif tiny:
        model_path, models, tiny_base = tiny_models(log_dir, grammar_skip)
        base = merge_args(tiny_base, base, spec.bool_options)
    else:
        if not model_path:
            raise UsageError("--model-path is required (or --tiny for the built-in model)")
        models = models_for(spec, model_path, draft_model_path, eagle_draft_path)
    matrix_file = None
    if matrix and matrix != "default":
        matrix_file = Path(matrix)
        if not matrix_file.is_file():
            raise UsageError(f"--matrix {matrix}: no such file (or 'default' for the spec's matrix)")
    section = None if matrix_file else pyproject_section(start)
    if model_config and not matrix_file and section is None:
        section = {"axes": {"algorithm": ["EAGLE3"]}}  # a built-in shape carries an EAGLE-3 draft only
    return MatrixOptions(model_path, models, tp, threshold if threshold is not None else spec.threshold, crossings,
                         timeout, log_dir, base, max(1, parallel), tuple(only), matrix_file,
                         section, launch_cell, soak_seconds, long_tokens,
                         transitions, skip_stages=tuple(skip_stages), shape=shape, mem_total=mem_total,
                         grammar_skip=grammar_skip)


def plan_and_run(spec: SmokeSpec, target: Target, opts: MatrixOptions, signoff_path: Path,
                 progress: Callable[[str], None], plan_only: bool = False) -> tuple[Plan, Optional[dict]]:
    """Print-ready plan first (through ``progress``), then the run; the record is written to
    ``signoff_path`` (merged with the cells of a record already there for the same files)."""
    plan = make_plan(spec, target, opts)
    for line in plan.lines(spec, opts.parallel):
        progress(line)
    if plan_only:
        return plan, None
    previous = None
    if opts.only and Path(signoff_path).is_file():
        try:
            previous = signoff.read(signoff_path)
        except (ValueError, OSError):
            previous = None
    rec = run_matrix(spec, target, opts, progress, plan, previous)
    signoff.write(rec, Path(signoff_path))
    return plan, rec


def launch_refusal(target: Target, signoff_path: Optional[Path], command: list[str]) -> Optional[str]:
    """Why the sign-off on record has no passing cell with the options of ``command`` (None: it has,
    or the record is a single-configuration one)."""
    path = Path(signoff_path) if signoff_path else signoff.default_path(target)
    if not path.is_file():
        return None  # the gate already said there is no sign-off
    try:
        rec = signoff.read(path)
    except (ValueError, OSError, json.JSONDecodeError):
        return None
    if "cells" not in rec:
        return None
    spec = for_target(target)
    return M.launch_mismatch(spec, rec, command)
