"""One sign-off record from matrix records that ran parts of the same matrix side by side (one per
GPU, or one per host) on the same patched files.

The parts must sign off the same thing: the same target release, journalled files, package
manifest, patches and launch configuration (host-local model paths and ``parallel`` aside: the
model configs' sha256 identify the models). A cell may appear in one part only. The merged record
is judged again from its cells and from each part's GPU memory on the GPUs that part's servers
ran on (a part's reading of another GPU of the host is another job's memory, not its leak).
Never prints; problems are ``SignoffError`` values naming the part and field."""
from __future__ import annotations

import datetime as _dt
from typing import Optional, Sequence

from ..ftypes import SignoffError
from ..signoff import validate
from .gpumem import left_over

#: config fields that may differ between parts (where the part ran, not what it signed off)
LOCAL_CONFIG = frozenset({"model_path", "draft_model_path", "eagle_draft_model_path", "parallel"})
#: fields every part must share
SAME = ("target", "files", "package", "patches")


def _identity(config: dict) -> dict:
    return {k: v for k, v in config.items() if k not in LOCAL_CONFIG}


def own_gpus(memory: Optional[dict]) -> list[dict]:
    """The GPUs of a part's ``gpu_memory`` its servers ran on (a rank is known); every GPU when
    the part knew no rank (CUDA_VISIBLE_DEVICES by UUID)."""
    if not memory:
        return []
    gpus = memory.get("gpus") or []
    ranked = [g for g in gpus if g.get("rank") is not None]
    return ranked or list(gpus)


def merge(parts: Sequence[tuple[str, dict]]) -> dict:
    """The record of ``parts`` ((name, record) in order; names appear in errors)."""
    if len(parts) < 2:
        raise SignoffError("merging needs at least two sign-off records")
    for name, rec in parts:
        try:
            validate(rec)
        except SignoffError as e:
            raise SignoffError(f"{name}: {e}") from None
        if "cells" not in rec:
            raise SignoffError(f"{name}: not a matrix record (no 'cells'): a single-configuration sign-off "
                               f"has nothing to merge")
    first_name, first = parts[0]
    for name, rec in parts[1:]:
        for key in SAME:
            if rec[key] != first[key]:
                raise SignoffError(f"{name}: '{key}' differs from {first_name}: the parts sign off different trees")
        a, b = _identity(first["config"]), _identity(rec["config"])
        if a != b:
            key = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[0]
            raise SignoffError(f"{name}: 'config.{key}' is {b.get(key)!r}, {first_name} has {a.get(key)!r}")
        if rec["environment"].get("gpu_model") != first["environment"].get("gpu_model"):
            raise SignoffError(f"{name}: ran on {rec['environment'].get('gpu_model')!r}, "
                               f"{first_name} on {first['environment'].get('gpu_model')!r}")
    cells, where = [], {}
    for name, rec in parts:
        for c in rec["cells"]:
            if c["name"] in where:
                raise SignoffError(f"cell {c['name']!r} is in both {where[c['name']]} and {name}")
            where[c["name"]] = name
            cells.append(c)
    passed = all(c["verdict"] in ("pass", "refused") for c in cells)
    bad = next((c for c in cells if c["verdict"] == "fail"), None) or \
        next((c for c in cells if c["verdict"] not in ("pass", "refused")), None)
    failure = None if bad is None else {**(bad.get("failure") or {"stage": "-", "message": bad["verdict"]}),
                                        "cell": bad["name"]}
    memory = None
    with_memory = [(name, rec["gpu_memory"]) for name, rec in parts if rec.get("gpu_memory")]
    if with_memory:
        gpus, leaked = [], None
        for name, gm in with_memory:
            mine = own_gpus(gm)
            gpus += [{**g, "part": name} for g in mine]
            if leaked is None and left_over(mine):
                leaked = (name, left_over(mine))
        memory = {"source": with_memory[0][1].get("source", "nvidia-smi"),
                  "interval_s": with_memory[0][1].get("interval_s"),
                  "samples": sum(gm.get("samples", 0) for _n, gm in with_memory),
                  "released": leaked is None, "gpus": gpus}
        if leaked is not None:
            passed = False
            failure = failure or {"stage": "teardown", "message": f"GPU memory not released after teardown in "
                                  f"{leaked[0]} ({leaked[1]})", "location": "", "cell": "-"}
    per_cell = {}
    for _n, rec in parts:
        per_cell.update((rec.get("timings") or {}).get("per_cell_s") or {})
    merged = {k: first[k] for k in ("schema", "patchkit", "target", "patches", "files", "package", "environment")}
    merged.update({
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "passed": passed,
        "config": {**first["config"], "parallel": [rec["config"].get("parallel") for _n, rec in parts],
                   "merged_from": [{"part": name, "created": rec["created"],
                                    "cells": [c["name"] for c in rec["cells"]]} for name, rec in parts]},
        "stages": [], "failure": failure,
        "timings": {"total_s": max((rec.get("timings") or {}).get("total_s", 0) for _n, rec in parts),
                    "parts_total_s": [(rec.get("timings") or {}).get("total_s") for _n, rec in parts],
                    "per_cell_s": per_cell},
        "cells": cells,
    })
    if memory is not None:
        merged["gpu_memory"] = memory
    plans = [rec.get("plan") for _n, rec in parts if rec.get("plan")]
    if plans:
        merged["plan"] = plans[0]
    return validate(merged)
