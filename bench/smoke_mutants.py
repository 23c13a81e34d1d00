"""Mutation testing of the smoke test: for each mutant of the patch (fixtures/broken_patches/
spec_disable_mutants/mutants.toml), apply it to the target in place of the real patch, run the smoke
matrix (cells in parallel, every cell stopped at the first failing stage of any), and record which
stage and cell caught it, or SURVIVED. Writes <out>/bench/results/smoke-mutants-<version>.{json,md}.

On the GPU host (after the bundle is unpacked to /tmp/site, see bench/gpu/smoke_matrix_on_host.sh):
    python3 bench/smoke_mutants.py --target-dir /tmp/site --parallel 5 --out $OUT
On CPU against the stand-in server (faults simulate the mutants; tests/test_smoke_mutation_bench.py):
    python3 bench/smoke_mutants.py --target-dir <stand-in copy> --target-version 0.5.12 --standin ...
Tables of jobs run side by side (each on its own copy of the target):
    python3 bench/smoke_mutants.py --merge A.json B.json ... --out $OUT
Exit code: 0 every mutant caught, 1 one survived or could not be applied, 2 could not run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "fixtures" / "broken_patches" / "spec_disable_mutants" / "mutants.toml"
BASE = "dynamic-spec-disable"


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target-dir", required=True, type=Path)
    ap.add_argument("--target-version", default=None)
    ap.add_argument("--table", type=Path, default=TABLE)
    ap.add_argument("--mutant", action="append", default=[], help="only these mutants (repeatable)")
    ap.add_argument("--cell", action="append", default=[], help="only these cells (default: flag-on cells and "
                                                                "cells the mutant's hint names)")
    ap.add_argument("--parallel", type=int, default=5)
    ap.add_argument("--mem-total", type=float, default=0.8,
                    help="GPU memory fraction this job's servers share (lower it when jobs share a GPU)")
    ap.add_argument("--standin", action="store_true", help="simulate each mutant with its stand-in fault")
    ap.add_argument("--with-base", action="store_true", help="run the unmutated patch first (it must pass)")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    ap.add_argument("--log-dir", type=Path, default=Path("/tmp/smoke-mutants"))
    ap.add_argument("--threshold", type=int, default=None)
    ap.add_argument("--crossings", type=int, default=5)
    ap.add_argument("--soak-seconds", type=float, default=10.0)
    ap.add_argument("--long-tokens", type=int, default=1500)
    ap.add_argument("--transitions", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--skip-stage", action="append", default=[], help="leave a stage out (repeatable)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--list"]:  # the mutant names, for shell loops
        sys.path.insert(0, str(ROOT))
        from patchkit.smoke import mutants as MU
        print(" ".join(m.name for m in MU.load_table(TABLE)))
        return 0
    if argv[:1] == ["--merge"]:
        sys.path.insert(0, str(ROOT))
        out = Path(os.environ.get("OUT", "."))
        if "--out" in argv:
            i = argv.index("--out")
            out = Path(argv[i + 1])
            argv = argv[:i] + argv[i + 2:]
        return merge([Path(p) for p in argv[1:]], out)
    args = parse(argv)
    sys.path.insert(0, str(ROOT))
    os.environ["PATCHKIT_PATCH_PATH"] = os.pathsep.join(
        filter(None, [str(ROOT / "fixtures" / "broken_patches"), os.environ.get("PATCHKIT_PATCH_PATH", "")]))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(args.target_dir), os.environ.get("PYTHONPATH", "")]))
    from patchkit import engine, journal as jr, registry, target as tgt
    from patchkit.ftypes import JournalError, PatchkitError
    from patchkit.smoke import command as sc, mutants as MU
    from patchkit.smoke.matrixrun import make_plan, run_matrix

    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    try:
        t = tgt.resolve(None, args.target_dir, None, args.target_version)
    except PatchkitError as exc:
        log(f"error: {exc}")
        return 2
    table = MU.load_table(args.table)
    if args.mutant:
        unknown = sorted(set(args.mutant) - {m.name for m in table})
        if unknown:
            log(f"error: no mutant named {unknown[0]} in {args.table}")
            return 2
        table = [m for m in table if m.name in args.mutant]
    base = registry.patch(BASE)
    spec = sc.pick_spec(t, BASE)

    def journalled() -> list[str]:
        try:
            return jr.load(t).patches()
        except JournalError:
            return []

    def install(name: str) -> str:
        """Put patch ``name`` (alone) on the target; '' or why not."""
        if args.standin:
            return ""
        for old in journalled():
            engine.revert(registry.patch(old), t, force=True)
        try:
            engine.apply(registry.patch(name), t)
        except PatchkitError as exc:
            return str(exc)
        return ""

    strategy = ""
    if not args.standin:
        try:
            strategy = base.plan(t.version, engine.reader(t)).name
        except Exception as exc:  # the base patch does not apply: nothing to mutate
            log(f"error: {BASE} does not apply to {t.version}: {exc}")
            return 2
    rows = []
    runs = ([None] if args.with_base else []) + list(table)
    for m in runs:
        name = BASE if m is None else f"{BASE}~{m.name}"
        if m is not None and strategy and m.strategies and strategy not in m.strategies:
            rows.append({"mutant": m.name, "verdict": "NOT APPLICABLE",
                         "detail": f"mutates {'/'.join(m.strategies)}; {t.version} gets {strategy}"})
            continue
        log(f"== {name}")
        why = install(name)
        if why:
            rows.append({"mutant": m.name if m else "(base)", "verdict": "NOT APPLIED", "detail": why})
            continue
        model, models, tiny_base = sc.tiny_models(args.log_dir)
        from patchkit.smoke.matrixrun import MatrixOptions
        env = {"STANDIN_FAULT": m.standin_fault} if (args.standin and m is not None) else {}
        hint = () if m is None or m.cell in ("any", "flag=on") else (m.cell,)
        opts = MatrixOptions(model, models, threshold=args.threshold or spec.threshold, crossings=args.crossings,
                             timeout=args.timeout, log_dir=args.log_dir / (m.name if m else "base"),
                             base_args=tiny_base, parallel=max(1, args.parallel), only=tuple(args.cell),
                             mem_total=args.mem_total,
                             soak_seconds=args.soak_seconds, long_tokens=args.long_tokens,
                             transitions=args.transitions, stop_on_failure=m is not None, env=env, first=hint,
                             skip_stages=tuple(args.skip_stage))
        plan = make_plan(spec, t, opts)
        if not args.cell and m is not None:
            plan.cells = [c for c in plan.cells if c.flag_on or any(h in c.name for h in hint)]
        t0 = time.monotonic()
        rec = run_matrix(spec, t, opts, log, plan)
        seconds = round(time.monotonic() - t0, 1)
        failed = [c for c in rec["cells"] if c["verdict"] == "fail"]
        if m is None:
            rows.append({"mutant": "(base)", "verdict": "PASSED" if rec["passed"] else "FAILED", "seconds": seconds,
                         "detail": "" if rec["passed"] else f"{rec['failure']}"})
            continue
        harness = [c for c in failed if harness_failure((c["failure"] or {}).get("message", ""))]
        if failed and len(harness) == len(failed):
            c = harness[0]
            rows.append({"mutant": m.name, "verdict": "HARNESS ERROR", "stage": (c["failure"] or {}).get("stage", "?"),
                         "cell": c["name"], "expected_stage": m.catches, "seconds": seconds,
                         "message": (c["failure"] or {}).get("message", "")[:300]})
            continue
        failed = [c for c in failed if c not in harness]
        if failed:
            c = failed[0]
            stage = (c["failure"] or {}).get("stage", "?")
            rows.append({"mutant": m.name, "verdict": "CAUGHT", "stage": stage, "cell": c["name"],
                         "expected_stage": m.catches, "as_expected": stage.split("/")[0] == m.catches,
                         "message": (c["failure"] or {}).get("message", "")[:300], "seconds": seconds,
                         "cells_run": sum(1 for x in rec["cells"] if x["verdict"] != "cancelled")})
        else:
            rows.append({"mutant": m.name, "verdict": "SURVIVED", "expected_stage": m.catches, "seconds": seconds,
                         "cells_run": len(rec["cells"])})
    if not args.standin:
        why = install(BASE)
        if why:
            log(f"warning: could not put {BASE} back: {why}")
    doc = {"target": {"distribution": t.distribution, "version": t.version}, "standin": args.standin,
           "parallel": args.parallel, "rows": rows}
    return write_table(doc, args.out)


#: failures that say the run could not test the mutant (memory set-up of servers sharing a GPU),
#: not that the smoke test caught it
HARNESS_PATTERNS = ("Loaded weights leave no GPU memory", "Not enough memory", "CUDA out of memory",
                    "Address already in use")


def harness_failure(message: str) -> bool:
    return any(p in message for p in HARNESS_PATTERNS)


def write_table(doc: dict, out_root: Path) -> int:
    """<out_root>/bench/results/smoke-mutants-<version>.{json,md}; exit code 1 when a mutant survived."""
    t, rows = doc["target"], doc["rows"]
    out = out_root / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"smoke-mutants-{t['version']}{'-standin' if doc['standin'] else ''}"
    Path(f"{stem}.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [f"# smoke mutants on {t['distribution']} {t['version']}{' (stand-in)' if doc['standin'] else ''}", "",
             "| mutant | verdict | caught at stage | cell | expected stage | seconds |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['mutant']} | {r['verdict']} | {r.get('stage', '')} | {r.get('cell', '')} | "
                     f"{r.get('expected_stage', '')} | {r.get('seconds', '')} |")
    Path(f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    bad = [r for r in rows if r["verdict"] in ("SURVIVED", "NOT APPLIED", "FAILED", "HARNESS ERROR")]
    return 1 if bad else 0


def merge(paths: list[Path], out_root: Path) -> int:
    """One table from the tables of mutant jobs run side by side (each on its own copy of the
    target), in the order of the mutants table."""
    docs = [json.loads(p.read_text()) for p in paths]
    if not docs or len({(d["target"]["version"], d["standin"]) for d in docs}) != 1:
        print("error: --merge needs tables of one target version", file=sys.stderr)
        return 2
    from patchkit.smoke import mutants as MU  # noqa: E402  (after sys.path is set)
    order = {m.name: i for i, m in enumerate(MU.load_table(TABLE))}
    rows = sorted((r for d in docs for r in d["rows"]), key=lambda r: order.get(r["mutant"], -1))
    doc = {**docs[0], "parallel": [d["parallel"] for d in docs], "jobs": len(docs), "rows": rows}
    return write_table(doc, out_root)


if __name__ == "__main__":
    sys.exit(main())
