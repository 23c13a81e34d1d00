"""Run the smoke stages over a matrix of cells, several servers at once on one GPU, sharing
speculation-off reference servers (one per set of numerics options: dtype, KV dtype, quantization,
attention backend); returns the sign-off record (every cell with its verdict, stages
and time). Never prints: progress goes to a callback."""
from __future__ import annotations

import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional

from .. import signoff
from ..ftypes import Target, UsageError
from . import facts as F, matrix as M
from .bootgate import BootGate
from .server import kv_check_setting, weights_setting
from .run import Reference, Server, Smoke, SmokeConfig, cell_command, drop_options, fill, free_port, merge_args, \
    wait_ready
from .spec import SmokeSpec

Progress = Callable[[str], None]

#: rough seconds per stage on an H200 with the tiny model (the printed plan, not a promise)
ESTIMATE_S = {"boot": 90, "first-decode": 5, "threshold-crossings": 20, "sampled-decode": 5, "request-kinds": 25,
              "resume-equivalence": 30, "resume-acceptance": 10, "greedy-equivalence": 8, "log-scan": 0, "forced-acceptance": 20,
              "refusal": 60}


@dataclass
class MatrixOptions:
    model_path: str
    models: dict = field(default_factory=dict)
    tp: int = 1
    threshold: int = 4
    crossings: int = 10
    timeout: float = 600.0
    log_dir: Path = Path("smoke-logs")
    #: arguments every server gets (the tiny model's launch flags)
    base_args: list = field(default_factory=list)
    parallel: int = 1
    #: run only these cells (names); empty: all
    only: tuple = ()
    matrix_file: Optional[Path] = None
    #: [tool.patchkit.smoke] as read from pyproject (axes / cells)
    matrix_section: Optional[dict] = None
    launch_cell: str = ""
    soak_seconds: float = 20.0
    long_tokens: int = 2000
    transitions: int = 10
    rss_tolerance_mib: float = 512.0
    #: GPU memory the cells share (fraction); each server gets total/parallel as --mem-fraction-static
    mem_total: float = 0.8
    grammar_skip: str = "skipped: no grammar backend"
    #: overrides for every cell's SmokeConfig (tests: faster stand-in settings)
    extra: dict = field(default_factory=dict)
    #: stop every cell at the first failing stage of any cell (the mutation bench)
    stop_on_failure: bool = False
    #: environment for every server (the mutation bench's stand-in faults)
    env: dict = field(default_factory=dict)
    #: run cells whose name contains one of these first
    first: tuple = ()
    #: stages left out (recorded in the plan)
    skip_stages: tuple = ()
    #: a built-in full-size shape's record fields (``fullsize.record``)
    shape: dict = field(default_factory=dict)
    #: sample every GPU's memory during the run and check it comes back after (the record's gpu_memory)
    gpu_memory: bool = True


@dataclass
class Plan:
    cells: list
    notes: dict
    facts: dict
    checker_env: dict
    forced_env: dict
    forced_skip: str
    estimate_s: float

    def lines(self, spec: SmokeSpec, parallel: int) -> list[str]:
        stages = [s for s in spec.stages if s not in self.notes.get("skipped_stages", [])]
        out = [f"plan: {len(self.cells)} cell(s) x stages ({', '.join(stages)}), "
               f"{parallel} server(s) at once, about {self.estimate_s / 60:.1f} min"]
        for c in self.cells:
            extra = f"  [expect refusal: {c.reason}]" if c.expect == "refuse" else ""
            out.append(f"  {c.name}{extra}")
        if self.checker_env:
            out.append(f"  checkers on: {' '.join(f'{k}={v}' for k, v in self.checker_env.items())}")
        if self.notes.get("excluded"):
            out.append(f"  excluded (not configurations): {'; '.join(self.notes['excluded'])}")
        if "request_kinds_skipped" in self.notes:
            by_reason: dict = {}
            for kind, why in self.notes["request_kinds_skipped"].items():
                by_reason.setdefault(why, []).append(kind)
            out.append("  request kinds: " + ("all, with stop strings, regex and JSON schema" if not by_reason else
                       "; ".join(f"{', '.join(kinds)} {why}" for why, kinds in by_reason.items())))
        if self.notes.get("uncoverable_pairs"):
            out.append(f"  pairs no serving cell covers (refused or not configurations): "
                       f"{', '.join(self.notes['uncoverable_pairs'])}")
        return out


def make_plan(spec: SmokeSpec, target: Target, opts: MatrixOptions) -> Plan:
    facts = M.release_facts(spec, target.root)
    restrict, file_cells = None, []
    for source in ([opts.matrix_section] if opts.matrix_section else []) + \
            ([opts.matrix_file] if opts.matrix_file else []):
        if isinstance(source, dict):
            axes = source.get("axes")
            entries = source.get("cell", source.get("cells", []))
        else:
            axes, entries = M.cells_from_file(spec, source)
        restrict = axes or restrict
        file_cells += entries
    cells, notes = M.default_cells(spec, facts, restrict)
    axes = M.axes_of(spec, facts)
    for i, e in enumerate(file_cells):
        cells.append(M.file_cell(spec, e, axes, i))
    if opts.launch_cell:
        cells.append(M.launch_cell(spec, opts.launch_cell, axes))
    if opts.only:
        known = {c.name for c in cells}
        missing = [n for n in opts.only if n not in known]
        if missing:
            import difflib
            near = difflib.get_close_matches(missing[0], sorted(known), n=1)
            raise UsageError(f"--cell {missing[0]}: no such cell" + (f"; nearest: '{near[0]}'" if near else
                                                                      f"; cells: {', '.join(sorted(known))}"))
        cells = [c for c in cells if c.name in opts.only]
    names = tuple(k for k, _ in spec.checker_env) + tuple(k for k, _ in spec.forced_acceptance_env)
    present = F.names_env(target.root, names)
    checker = {k: v for k, v in spec.checker_env if k in present}
    forced = {k: v for k, v in spec.forced_acceptance_env if k in present}
    missing_forced = [k for k, _ in spec.forced_acceptance_env if k not in present]
    forced_skip = f"skipped: the release has no {', '.join(missing_forced)}" if missing_forced else ""
    notes["checkers_missing"] = [k for k, _ in spec.checker_env if k not in present]
    notes["skipped_stages"] = list(opts.skip_stages)
    if "request-kinds" in spec.stages and "request-kinds" not in opts.skip_stages:
        from .textcaps import text_skips
        notes["request_kinds_skipped"] = text_skips(list(opts.base_args), opts.grammar_skip)
    unknown = [x for x in opts.skip_stages if x not in spec.stages]
    if unknown:
        raise UsageError(f"--skip-stage {unknown[0]}: not a stage of this spec ({', '.join(spec.stages)})")
    total = 0.0
    for c in cells:
        if c.expect == "refuse":
            total += ESTIMATE_S["refusal"]
            continue
        run = [s for s in spec.stages if s not in opts.skip_stages]
        total += ESTIMATE_S["boot"] + sum(ESTIMATE_S.get(s, 0) for s in run if s != "forced-acceptance") + \
            (opts.soak_seconds if "soak" in run else 0)
        if c.flag_on and forced and "forced-acceptance" in run:
            total += ESTIMATE_S["boot"] + ESTIMATE_S["forced-acceptance"]
    slots = max(1, opts.parallel - 1) if opts.parallel > 1 else 1
    estimate = total / slots + ESTIMATE_S["boot"]
    return Plan(cells, notes, facts, checker, forced, forced_skip, estimate)


def reference_args(spec: SmokeSpec, opts: MatrixOptions, cell: Optional[M.Cell] = None) -> list[str]:
    """The speculation-off reference's arguments for ``cell``: the shared base arguments without the
    speculative ones, plus the cell's own values of the options that change the numbers
    (``spec.reference_keep``), so greedy outputs are compared with a server of the same dtype,
    KV dtype and attention kernels."""
    args = drop_options(list(opts.base_args), spec.reference_drop, spec.bool_options)
    if cell is not None:
        mine = M.parse_options(list(cell.args), spec.bool_options)
        keep = [x for k, v in mine.items() if k in spec.reference_keep for x in ((k,) if v is None else (k, v))]
        args = merge_args(args, keep, spec.bool_options)
    return args


def cell_config(spec: SmokeSpec, opts: MatrixOptions, plan: Plan, cell: M.Cell, reference,
                servers: int = 0) -> SmokeConfig:
    mem = round(max(0.05, opts.mem_total / max(1, opts.parallel, servers)), 3)
    args = merge_args(list(opts.base_args) + list(spec.spec_args), list(cell.args), spec.bool_options)
    args = merge_args(args, ["--mem-fraction-static", str(mem)], spec.bool_options)
    stages = tuple(s for s in spec.stages if s not in opts.skip_stages)
    cfg = SmokeConfig(opts.model_path, opts.models.get("draft"), opts.tp, opts.threshold, opts.crossings, args,
                      opts.timeout, log_dir=opts.log_dir / cell.name, spec=spec, stages=stages,
                      flag_on=cell.flag_on, env=dict(plan.checker_env), models=dict(opts.models),
                      rss_tolerance_mib=opts.rss_tolerance_mib,
                      long_tokens=opts.long_tokens, transitions=opts.transitions, soak_seconds=opts.soak_seconds,
                      grammar_skip=opts.grammar_skip, forced_env=dict(plan.forced_env), forced_skip=plan.forced_skip,
                      reference=reference, expect_refusal=cell.reason if cell.expect == "refuse" else "")
    return replace(cfg, **opts.extra) if opts.extra else cfg


class ReferenceServer:
    """A speculation-off server the resume-equivalence of the cells with its arguments compares with."""

    def __init__(self, spec: SmokeSpec, opts: MatrixOptions, progress: Progress, args: Optional[list] = None,
                 name: str = "reference", servers: int = 0):
        self.spec, self.opts, self.progress = spec, opts, progress
        self.args = list(args) if args is not None else reference_args(spec, opts)
        self.name, self.servers = name, servers
        self.server: Optional[Server] = None
        self.error = ""

    def start(self, reference: Reference) -> None:
        """Boot in the background; ``reference`` becomes ready (or failed) when it is known."""
        opts, spec = self.opts, self.spec
        mem = round(max(0.05, opts.mem_total / max(1, opts.parallel, self.servers)), 3)
        args = merge_args(list(self.args), ["--mem-fraction-static", str(mem)], spec.bool_options)
        port = free_port(20000, 22000)
        log_name = "-".join(filter(None, re.split(r"[^A-Za-z0-9_.]+", self.name)))
        cfg = SmokeConfig(opts.model_path, server_args=args, timeout=opts.timeout, log_dir=opts.log_dir / log_name,
                          spec=spec, models=dict(opts.models), tp=opts.tp,
                          boot_gate=BootGate(),  # cells start beside it
                          **{k: v for k, v in opts.extra.items() if k in ("python",)})
        ctx = Smoke(cfg, None, self.progress, cell=self.name)  # type: ignore[arg-type]
        self.server = ctx.start_server(cell_command(cfg, port), "server.log", {})

        def wait() -> None:
            try:
                wait_ready(ctx, self.server, self.name)
            except Exception as exc:  # StageFailed: every cell's resume-equivalence reports it
                self.error = getattr(exc, "message", str(exc))
                reference.set_failed(self.error)
                return
            reference.set_ready(self.server.base_url)
            self.progress(f"[{self.name}] ready")

        threading.Thread(target=wait, daemon=True).start()

    def stop(self) -> None:
        if self.server:
            self.server.stop()


def run_matrix(spec: SmokeSpec, target: Target, opts: MatrixOptions, progress: Progress = lambda s: None,
               plan: Optional[Plan] = None, previous: Optional[dict] = None) -> dict:
    """Run every cell of the plan; the sign-off record (``previous`` cells not re-run are kept when
    it signs off the same files)."""
    from . import gpumem
    from .run import environment
    plan = plan or make_plan(spec, target, opts)
    t0 = time.monotonic()
    ranks = gpumem.rank_gpus(opts.tp, list(opts.base_args), {**os.environ, **opts.env})
    sampler = gpumem.Sampler(gpus=ranks or None).start() if opts.gpu_memory else None
    serving = [c for c in plan.cells if c.expect == "serve"]
    refs: dict[tuple, tuple[ReferenceServer, Reference]] = {}  # reference arguments -> its server
    results: dict[str, dict] = {}
    lock = threading.Lock()
    wanted: list[tuple] = []
    if serving and "resume-equivalence" in spec.stages and "resume-equivalence" not in opts.skip_stages:
        wanted = list(dict.fromkeys(tuple(reference_args(spec, opts, c)) for c in serving))
    slots = max(1, opts.parallel - len(wanted))
    servers = slots + len(wanted)  # at once on the GPU: each gets mem_total / servers
    try:
        if wanted:
            base = tuple(reference_args(spec, opts))
            for args in wanted:
                own = " ".join(a for a in args if a not in base)
                name = "reference" + (f" {own}" if own else "")
                progress(f"[{name}] starting the speculation-off server")
                srv = ReferenceServer(spec, opts, progress, list(args), name, servers)
                refs[args] = (srv, Reference())
                srv.start(refs[args][1])
        # more than one server on the GPU at a time (cells side by side, or a cell beside the reference)
        gate = BootGate() if opts.parallel > 1 or refs else None

        jobs = []
        for cell in plan.cells:
            jobs.append((cell, "main"))
            if cell.expect == "serve" and cell.flag_on and "forced-acceptance" in spec.stages and plan.forced_env \
                    and "forced-acceptance" not in opts.skip_stages:
                jobs.append((cell, "forced"))

        if opts.first:
            jobs.sort(key=lambda j: not any(h in j[0].name for h in opts.first))
        cancel = threading.Event()

        def one(i_job):
            i, (cell, kind) = i_job
            ref = refs.get(tuple(reference_args(spec, opts, cell)))
            cfg = cell_config(spec, opts, plan, cell, ref[1] if ref else None, servers)
            cfg.env = {**cfg.env, **opts.env}
            cfg.cancel = cancel if opts.stop_on_failure else None
            if cfg.cancel is not None and cancel.is_set():
                with lock:
                    parts.setdefault(cell.name, {})[kind] = (
                        [], {}, {"passed": False, "verdict": "cancelled", "failure": {
                            "stage": "-", "message": "cancelled: another cell failed first", "location": ""}},
                        0.0, cfg.server_args)
                return
            if kind == "forced":
                cfg.stages = ("forced-acceptance", "log-scan")
                cfg.env = {**cfg.env, **plan.forced_env}
                cfg.log_dir = cfg.log_dir / "forced"
            else:
                cfg.stages = tuple(s for s in cfg.stages if s != "forced-acceptance")
            if opts.parallel > 1:
                cfg.port = free_port(22000 + (i % 5) * 2000, 22000 + (i % 5 + 1) * 2000)
            cfg.boot_gate = gate
            if opts.parallel > 1 or refs:
                cfg.gpu_check = False  # other servers hold GPU memory: the run's end checks it (gpu_memory)
            ctx = Smoke(cfg, target, progress, cell=cell.name + ("/forced" if kind == "forced" else ""))
            started = time.monotonic()
            out = ctx.run_cell(command=cell_command(cfg, cfg.port or free_port()))
            seconds = time.monotonic() - started
            if out["verdict"] == "fail" and opts.stop_on_failure:
                cancel.set()
            for h in ctx.boot_holds:
                progress(f"[{ctx.cell}] boot gate: waited {h.waited_s:.0f}s, held {h.held_s:.0f}s ({h.reason})")
            progress(f"[{ctx.cell}] {out['verdict'].upper()} in {seconds:.0f}s"
                     + (f": {out['failure']['stage']}: {out['failure']['message']}" if out["failure"] else ""))
            with lock:
                parts.setdefault(cell.name, {})[kind] = (ctx.stages, ctx.timings, out, seconds, cfg.server_args)

        parts: dict[str, dict] = {}
        with ThreadPoolExecutor(slots) as ex:
            list(ex.map(one, enumerate(jobs)))
        for cell in plan.cells:
            results[cell.name] = _merge_jobs(cell, parts.get(cell.name, {}), plan)
    finally:
        for srv, _ref in refs.values():
            srv.stop()
        if sampler is not None:
            sampler.stop()
    memory = None
    if sampler is not None:
        cell_timeout = opts.extra.get("release_timeout", 60.0)
        memory = sampler.summary(ranks, sampler.settle(cell_timeout))
    cells = [results[c.name] for c in plan.cells]
    if previous and previous.get("cells") and not signoff_differs(previous, target):
        kept = [c for c in previous["cells"] if c["name"] not in results]
        cells = kept + cells
    passed = bool(cells) and all(c["verdict"] in ("pass", "refused") for c in cells)
    bad = next((c for c in cells if c["verdict"] == "fail"), None) or \
        next((c for c in cells if c["verdict"] not in ("pass", "refused")), None)
    failure = None if bad is None else {**(bad["failure"] or {}), "cell": bad["name"]}
    leak = gpumem.not_released(memory) if sampler is not None else None
    if leak and failure is None:
        passed, failure = False, {"stage": "teardown", "message": leak, "location": "", "cell": "-"}
    config = {"tp": opts.tp, "model_path": opts.model_path,
              "model_config_sha256": signoff.config_sha(opts.model_path),
              "draft_model_path": opts.models.get("draft"),
              "draft_config_sha256": signoff.config_sha(opts.models.get("draft")),
              "threshold": opts.threshold, "server_args": list(opts.base_args), "patch": spec.patch,
              "parallel": opts.parallel, "smoke_weights": weights_setting({**os.environ, **opts.env}),
              "kv_check": kv_check_setting({**os.environ, **opts.env}), **opts.shape}
    timings = {"total_s": round(time.monotonic() - t0, 2), "estimate_s": round(plan.estimate_s, 1),
               "per_cell_s": {c["name"]: c["seconds"] for c in cells}}
    rec = signoff.build(target, passed, environment(), config, [], timings, failure)
    rec["cells"] = cells
    if memory is not None:
        rec["gpu_memory"] = memory
    rec["plan"] = {**plan.notes, "checker_env": plan.checker_env, "forced_env": plan.forced_env,
                   "forced_skip": plan.forced_skip, "workers": plan.facts.get("workers"),
                   "patched_subclasses": plan.facts.get("patched_subclasses")}
    return rec


def signoff_differs(previous: dict, target: Target) -> bool:
    files, _ = signoff.current_files(target)
    return previous.get("files") != files or (previous.get("target") or {}).get("version") != target.version


def _merge_jobs(cell: M.Cell, parts: dict, plan: Plan) -> dict:
    """One record entry from a cell's main job and its forced-acceptance job."""
    stages, timings, out, seconds, server_args = parts["main"]
    stages, timings = list(stages), dict(timings)
    failure, verdict = out["failure"], out["verdict"]
    job_seconds = {"main": round(seconds, 1)}
    if "forced" in parts:
        f_stages, f_timings, f_out, f_seconds, _ = parts["forced"]
        stages += [{**st, "name": st["name"] if st["name"].startswith("forced") else f"forced/{st['name']}"}
                   for st in f_stages]
        timings["forced_time_to_ready_s"] = f_timings.get("time_to_ready_s")
        job_seconds["forced"] = round(f_seconds, 1)
        f_fail = f_out["failure"]
        if f_fail is not None and f_out["verdict"] == "fail" and verdict in ("pass", "cancelled"):
            name = f_fail["stage"] if f_fail["stage"].startswith("forced") else f"forced-acceptance/{f_fail['stage']}"
            failure, verdict = {**f_fail, "stage": name}, "fail"
        elif f_fail is not None and verdict == "pass":
            failure, verdict = f_fail, f_out["verdict"]
    elif cell.expect == "serve" and cell.flag_on:
        stages.append({"name": "forced-acceptance", "passed": True, "seconds": 0,
                       "detail": {"skipped": plan.forced_skip or "skipped: not in the spec's stages"}})
    entry = _cell_entry(cell, stages, timings, failure, verdict, sum(job_seconds.values()), server_args)
    entry["job_seconds"] = job_seconds
    return entry


def _cell_entry(cell: M.Cell, stages, timings, failure, verdict, seconds, server_args) -> dict:
    return {**cell.to_dict(), "server_args": list(server_args), "verdict": verdict, "seconds": round(seconds, 1),
            "stages": stages, "timings": timings, "failure": failure}


def models_for(spec: SmokeSpec, model_path: str, draft: Optional[str], eagle_draft: Optional[str]) -> dict:
    return {k: v for k, v in (("target", model_path), ("draft", draft), ("eagle_draft", eagle_draft)) if v}


__all__ = ["MatrixOptions", "Plan", "make_plan", "run_matrix", "fill"]
