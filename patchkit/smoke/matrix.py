"""The configuration matrix: cells (option sets) from a spec's axes, covered pairwise, plus the
cells a spec must see refused, a matrix file, or a user's launch command; and the match that
``patchkit launch`` demands between a launch command and a passing cell."""
from __future__ import annotations

import itertools
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..ftypes import UsageError
from . import facts as F
from .spec import SmokeSpec

#: options of a launch command that never make two cells different (paths, ports, sizes)
NEUTRAL = ("--model-path", "--model", "--host", "--port", "--speculative-draft-model-path", "--draft-model-path",
           "--mem-fraction-static", "--tp-size", "--tp", "--tensor-parallel-size", "--log-level", "--tokenizer-path",
           "--load-format", "--served-model-name")


@dataclass
class Cell:
    """One server configuration the smoke test runs."""

    name: str
    #: axis -> label (``custom`` for a launch/matrix-file cell whose option matches no label)
    options: dict
    #: launch arguments beyond the base arguments (with ``{target}``-style placeholders)
    args: list
    #: "serve" (every stage runs) or "refuse" (the patch must refuse it at start-up)
    expect: str = "serve"
    reason: str = ""
    #: where the cell came from: pairwise, refusal, launch, file
    origin: str = "pairwise"

    @property
    def flag_on(self) -> bool:
        return self.options.get("flag") == "on"

    def to_dict(self) -> dict:
        return {"name": self.name, "options": dict(self.options), "args": list(self.args), "expect": self.expect,
                "reason": self.reason, "origin": self.origin}


# ------------------------------------------------------------------ all pairs
def allpairs(axes: dict[str, tuple[str, ...]], valid: Callable[[dict], bool] = lambda c: True) -> tuple[list[dict], list]:
    """Greedy all-pairs cover: (cells, uncoverable pairs). Every pair of values of two axes that
    ``valid`` accepts (alone, and in some full cell) appears in at least one cell; every cell is
    ``valid``. ``valid`` is called on partial cells and must accept what it cannot judge yet."""
    names = list(axes)
    pairs = set()
    for i, j in itertools.combinations(range(len(names)), 2):
        for a in axes[names[i]]:
            for b in axes[names[j]]:
                if valid({names[i]: a, names[j]: b}):
                    pairs.add(((names[i], a), (names[j], b)))
    cells: list[dict] = []
    dropped = []

    def gain(cell: dict, k: str, v: str) -> int:
        n = 0
        for other, ov in cell.items():
            key = ((other, ov), (k, v)) if names.index(other) < names.index(k) else ((k, v), (other, ov))
            n += key in pairs
        return n

    def complete(seed: dict) -> Optional[dict]:
        """The seed filled greedily (most new pairs first), backtracking out of dead ends."""
        rest = [k for k in names if k not in seed]

        def fill(cell: dict, i: int) -> Optional[dict]:
            if i == len(rest):
                return cell if valid(cell) else None
            k = rest[i]
            options = [v for v in axes[k] if valid({**cell, k: v})]
            options.sort(key=lambda v: (-gain(cell, k, v), axes[k].index(v)))
            for v in options:
                got = fill({**cell, k: v}, i + 1)
                if got is not None:
                    return got
            return None

        return fill(dict(seed), 0)

    while pairs:
        (ka, a), (kb, b) = min(pairs, key=lambda p: (names.index(p[0][0]), names.index(p[1][0]),
                                                      axes[p[0][0]].index(p[0][1]), axes[p[1][0]].index(p[1][1])))
        cell = complete({ka: a, kb: b})
        if cell is None:
            pairs.discard(((ka, a), (kb, b)))
            dropped.append(((ka, a), (kb, b)))
            continue
        cells.append({k: cell[k] for k in names})
        for i, j in itertools.combinations(names, 2):
            pairs.discard(((i, cell[i]), (j, cell[j])))
    return cells, dropped


# ------------------------------------------------------------------ facts and axes
def release_facts(spec: SmokeSpec, root: Path) -> dict:
    """What the spec's rules need to know about the release at ``root``."""
    read = F.folder_reader(root)
    factory = read(spec.factory_file) or ""
    file, cls = spec.patched_class
    package = str(Path(file).parent)
    subs = F.subclasses(F.class_bases(root, package), cls)
    out = {"workers": {a.name: F.worker_classes(factory, a.predicate) for a in spec.algorithms},
           "patched_subclasses": sorted(subs), "patched_class": cls}
    for name, fn in spec.facts:
        out[name] = fn(read)
    return out


def algorithm_axis(spec: SmokeSpec, facts: dict) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Candidates whose worker class (overlap on) is the patched class or inherits it."""
    subs = set(facts["patched_subclasses"])
    keep = tuple((a.name, a.args) for a in spec.algorithms if facts["workers"].get(a.name, {}).get("overlap") in subs)
    return keep or tuple((a.name, a.args) for a in spec.algorithms[:1])


def axes_of(spec: SmokeSpec, facts: dict) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    axes = {"algorithm": algorithm_axis(spec, facts)}
    for ax in spec.axes:
        axes[ax.name] = ax.values
    axes["flag"] = spec.flag_axis.values
    return axes


def _exclusion(spec: SmokeSpec, facts: dict, cell: dict) -> Optional[str]:
    for ex in spec.exclusions:
        why = ex.when(cell, facts)
        if why:
            return why
    return None


def _refusal(spec: SmokeSpec, facts: dict, cell: dict) -> Optional[str]:
    if cell.get("flag") != "on":
        return None
    for r in spec.refusals:
        why = r.when(cell, facts)
        if why:
            return why
    return None


def cell_args(axes: dict, options: dict) -> list[str]:
    out: list[str] = []
    for k, label in options.items():
        out += list(dict(axes[k]).get(label, ()))
    return out


def cell_name(options: dict) -> str:
    return "-".join(f"{v}" if k == "algorithm" else f"{k}={v}" for k, v in options.items())


def default_cells(spec: SmokeSpec, facts: dict, restrict: Optional[dict] = None) -> tuple[list[Cell], dict]:
    """(cells, plan notes): the pairwise cells that serve, then one cell per refusal reason."""
    axes = axes_of(spec, facts)
    if restrict:
        for k, labels in restrict.items():
            if k not in axes:
                raise UsageError(f"matrix: unknown axis '{k}'; axes: {', '.join(axes)}")
            unknown = [x for x in labels if x not in dict(axes[k])]
            if unknown:
                raise UsageError(f"matrix: axis '{k}' has no value {unknown[0]!r}; values: {', '.join(dict(axes[k]))}")
            axes[k] = tuple(v for v in axes[k] if v[0] in labels)
    labels = {k: tuple(lbl for lbl, _ in v) for k, v in axes.items()}

    def valid(c: dict) -> bool:
        return _exclusion(spec, facts, c) is None and _refusal(spec, facts, c) is None

    combos, dropped = allpairs(labels, valid)
    cells = [Cell(cell_name(o), o, cell_args(axes, o)) for o in combos]
    reasons: dict[str, dict] = {}
    if "on" in labels.get("flag", ()):
        for combo in itertools.product(*labels.values()):
            o = dict(zip(labels, combo))
            why = _refusal(spec, facts, o)
            if why and _exclusion(spec, facts, o) is None and why not in reasons:
                reasons[why] = o
    for why, o in reasons.items():
        cells.append(Cell(cell_name(o), o, cell_args(axes, o), "refuse", why, "refusal"))
    excluded = sorted({w for combo in itertools.product(*labels.values())
                       for w in [_exclusion(spec, facts, dict(zip(labels, combo)))] if w})
    return cells, {"axes": {k: list(v) for k, v in labels.items()}, "excluded": excluded,
                   "uncoverable_pairs": [f"{a[0]}={a[1]} x {b[0]}={b[1]}" for a, b in dropped]}


# ------------------------------------------------------------------ launch commands
def parse_options(args: list[str], bool_options: tuple[str, ...] = ()) -> dict[str, Optional[str]]:
    """``--opt value`` / ``--opt=value`` / ``--flag`` -> {opt: value or None}."""
    out: dict[str, Optional[str]] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--"):
            if "=" in a:
                k, v = a.split("=", 1)
                out[k] = v
            elif a in bool_options or i + 1 >= len(args) or args[i + 1].startswith("--"):
                out[a] = None
            else:
                out[a] = args[i + 1]
                i += 1
        i += 1
    return out


def server_args_of(command: list[str] | str) -> list[str]:
    """The arguments after ``sglang.launch_server`` (or the whole list when it is not named)."""
    cmd = shlex.split(command) if isinstance(command, str) else list(command)
    for i, a in enumerate(cmd):
        if a.endswith("sglang.launch_server") or a.endswith("launch_server.py") or a == "serve":
            return cmd[i + 1:]
    return cmd


def match_options(spec: SmokeSpec, facts: Optional[dict] = None) -> set[str]:
    """The options that make two cells different: every option an axis value names."""
    if spec.match:
        return set(spec.match)
    names = {"--speculative-algorithm"}
    for ax in (*spec.axes, spec.flag_axis):
        for _, args in ax.values:
            names |= {a for a in args if a.startswith("--")}
    for a in spec.algorithms:
        names |= {x for x in a.args if x.startswith("--") and x not in NEUTRAL}
    return names - set(NEUTRAL)


def signature(spec: SmokeSpec, args: list[str]) -> dict[str, str]:
    """The matched options of a server command (defaults dropped, the flag's value as 'on')."""
    opts = parse_options(list(spec.spec_args) + list(args), spec.bool_options)
    keep = match_options(spec)
    defaults = dict(_defaults(spec))
    flag = spec.flag_option()
    out = {}
    for k, v in opts.items():
        if k not in keep or (k in spec.flag_only and flag not in opts):
            continue
        v = "on" if k == flag else ("true" if v is None else v)
        if defaults.get(k) == v:
            continue
        out[k] = v
    return out


def _defaults(spec: SmokeSpec) -> list[tuple[str, str]]:
    return list(spec.option_defaults)


def launch_cell(spec: SmokeSpec, command: str, axes: dict) -> Cell:
    """The cell of a user's launch command: its matched options on the tiny model."""
    args = server_args_of(command)
    opts = parse_options(args, spec.bool_options)
    keep = match_options(spec)
    algo = opts.get("--speculative-algorithm")
    extra: list[str] = []
    algo_args: tuple[str, ...] = ()
    for name, a in axes.get("algorithm", ()):
        if name == algo:
            algo_args = a
    if algo and not algo_args:
        raise UsageError(f"--launch-cell: --speculative-algorithm {algo} is not an algorithm this spec can run "
                         f"({', '.join(n for n, _ in axes.get('algorithm', ()))})")
    extra += list(algo_args)
    flag = spec.flag_option()
    for k, v in opts.items():
        # every option of the user's command but where it serves and what it loads (the tiny model)
        if k in NEUTRAL or k == "--speculative-algorithm" or (v is not None and "/" in v and k not in keep):
            continue
        if k == flag:
            extra += [s for s in spec.flag_args]
            continue
        extra += [k] if v is None else [k, v]
    options = {"algorithm": algo or "none", "flag": "on" if flag in opts else "off"}
    return Cell("launch", options, extra, origin="launch")


def cells_from_file(spec: SmokeSpec, path: Path) -> tuple[Optional[dict], list[dict]]:
    """(axis restriction, explicit cells) from a TOML or JSON matrix file: ``axes = {name = [labels]}``,
    ``[[cell]] name = ..., args = [...], expect = "serve"``; a pyproject's [tool.patchkit.smoke] alike."""
    text = Path(path).read_text()
    if str(path).endswith(".json"):
        doc = json.loads(text)
    else:
        try:
            import tomllib
        except ModuleNotFoundError:  # pragma: no cover
            import tomli as tomllib  # type: ignore[no-redef]
        doc = tomllib.loads(text)
        doc = doc.get("tool", {}).get("patchkit", {}).get("smoke", doc)
    cells = doc.get("cell", doc.get("cells", []))
    if not isinstance(cells, list) or any(not isinstance(c, dict) or "args" not in c for c in cells):
        raise UsageError(f"{path}: each cell needs 'args' (a list of launch arguments)")
    axes = doc.get("axes")
    if axes is not None and not isinstance(axes, dict):
        raise UsageError(f"{path}: 'axes' must map an axis name to a list of values")
    return axes, cells


def file_cell(spec: SmokeSpec, entry: dict, axes: dict, index: int) -> Cell:
    args = entry["args"] if isinstance(entry["args"], list) else shlex.split(entry["args"])
    cell = launch_cell(spec, "x " + " ".join(shlex.quote(a) for a in ["sglang.launch_server", *args]), axes)
    return Cell(entry.get("name", f"file-{index}"), cell.options, cell.args, entry.get("expect", "serve"),
                entry.get("reason", ""), "file")


# ------------------------------------------------------------------ launch demands a passing cell
def passing_cells(record: dict) -> list[dict]:
    return [c for c in record.get("cells", []) if c.get("verdict") == "pass"]


def launch_mismatch(spec: SmokeSpec, record: dict, command: list[str] | str) -> Optional[str]:
    """Why no passing cell of ``record`` has the options of ``command`` (None: one does)."""
    if "cells" not in record:
        return None  # a single-configuration (1.x) sign-off: the gate's checks are all there is
    want = signature(spec, server_args_of(command))
    cells = passing_cells(record)
    sigs = [(c, signature(spec, c.get("server_args", c.get("args", [])))) for c in cells]
    if any(s == want for _, s in sigs):
        return None
    if not cells:
        return "the sign-off has no passing cell"
    for k, v in sorted(want.items()):
        if not any(s.get(k) == v for _, s in sigs):
            shown = k if v == "true" else f"{k} {v}"
            return f"no passing cell was run with {shown}"
    for k in sorted({k for _, s in sigs for k in s}):
        if k not in want and all(k in s for _, s in sigs):
            return f"every passing cell sets {k}, this launch does not"
    near = min(sigs, key=lambda cs: len(set(cs[1].items()) ^ set(want.items())))
    diff = sorted({k for k, _ in set(near[1].items()) ^ set(want.items())})
    return (f"no passing cell has exactly these options; nearest is '{near[0].get('name')}', "
            f"which differs in {', '.join(diff)}")
