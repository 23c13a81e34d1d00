"""The smoke spec of dynamic-spec-disable (read by ``patchkit smoke``; see patchkit/smoke/spec.py).

Default matrix: the speculative algorithms whose worker class is ``EAGLEWorkerV2`` or inherits it
(read from the release's worker factory), x overlap schedule on / off, x CUDA graphs on / off,
x topk 1 / 2, x page size 1 / 16, x the draft model's work while disabled (keep / skip / kv), x the flag
on / off, covered pairwise (skip and kv only with the flag on). With the flag set, a cell
whose worker class does not inherit ``EAGLEWorkerV2`` (0.5.12 without overlap, or with topk > 1,
runs spec v1) must be refused at start-up: such cells prove only the refusal.
"""
from __future__ import annotations

from typing import Optional

from patchkit.smoke.spec import Algorithm, Axis, Exclusion, LogPatterns, Refusal, SmokeSpec

FLAG = "--speculative-disable-batch-threshold"
DRAFT_EXTEND_FLAG = "--speculative-disable-draft-extend"
SERVER_ARGS = "sglang/srt/server_args.py"

#: (algorithm, SpeculativeAlgorithm predicate, launch args); STANDALONE drafts with a plain Llama:
#: the tiny target serves as its own draft
ALGORITHMS = (
    Algorithm("EAGLE3", "is_eagle", ("--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "{draft}")),
    Algorithm("EAGLE", "is_eagle", ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "{eagle_draft}")),
    Algorithm("STANDALONE", "is_standalone",
              ("--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", "{target}")),
)

AXES = (
    Axis("overlap", (("on", ()), ("off", ("--disable-overlap-schedule",)))),
    Axis("cuda-graph", (("on", ()), ("off", ("--disable-cuda-graph",)))),
    Axis("topk", (("1", ("--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4")),
                  ("2", ("--speculative-eagle-topk", "2", "--speculative-num-draft-tokens", "4")))),
    Axis("page", (("1", ()), ("16", ("--page-size", "16")))),
    # what the draft model does while disabled: keep (the default) or skip (no draft prefill for a
    # prompt admitted above T: resume-equivalence scores such requests)
    # keep is passed too: a PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND in the caller's environment must not
    # turn a keep cell into a skip one (the flag wins over the variable)
    # kv: the draft's KV cache alone above T (EAGLE-3 drafts; others fall back to keep with a warning)
    Axis("draft-extend", (("keep", (DRAFT_EXTEND_FLAG, "keep")), ("skip", (DRAFT_EXTEND_FLAG, "skip")),
                          ("kv", (DRAFT_EXTEND_FLAG, "kv")))),
)


WORKER = "sglang/srt/speculative/eagle_worker_v2.py"


def _draft_extend_inert(cell: dict, facts: dict) -> Optional[str]:
    if cell.get("draft-extend") in (None, "keep"):
        return None
    if cell.get("flag") == "off":
        return f"{DRAFT_EXTEND_FLAG} does nothing with the flag off (not a configuration)"
    if not facts.get("can_skip_draft_extend", True):
        return (f"{DRAFT_EXTEND_FLAG} {cell['draft-extend']} is ignored by this release (no upstream draft-extend stub "
                f"before 0.5.14)")
    return None


def _can_skip_draft_extend(read) -> bool:
    return "def _stub_skipped_draft_extend(" in (read(WORKER) or "")


def _v2_requires_topk1(read) -> bool:
    return "spec v2 currently only supports topk = 1" in (read(SERVER_ARGS) or "")


def _topk_page_refused(read) -> bool:
    return "speculative_eagle_topk > 1 with page_size > 1" in (read(SERVER_ARGS) or "")


def worker_of(cell: dict, facts: dict) -> Optional[str]:
    """The worker class the release runs for ``cell`` (None while the cell is too partial to say)."""
    algo, overlap, topk = cell.get("algorithm"), cell.get("overlap"), cell.get("topk")
    if algo is None or overlap is None:
        return None
    if topk is None and facts.get("v2_requires_topk1") and overlap == "on":
        return None
    spec_v2 = overlap == "on" and not (facts.get("v2_requires_topk1") and topk not in (None, "1"))
    return facts["workers"].get(algo, {}).get("overlap" if spec_v2 else "no-overlap")


def _unpatched_worker(cell: dict, facts: dict) -> Optional[str]:
    cls = worker_of(cell, facts)
    if cls is None or cls in facts["patched_subclasses"]:
        return None
    cause = "overlap schedule off" if cell.get("overlap") == "off" else "topk > 1"
    # one refusal cell per (worker class, cause): the algorithms that share a class share the proof
    return (f"{cls} runs here ({cause}), not a subclass of {facts['patched_class']}: "
            f"{FLAG} must be refused at start-up")


def _topk_above_one(cell: dict, facts: dict) -> Optional[str]:
    """Patch 2.0 refuses the flag with topk > 1 (the zero state is built for a chain draft, as
    upstream's own adaptive swap requires)."""
    if cell.get("topk") not in (None, "1"):
        return f"{FLAG} with --speculative-eagle-topk {cell['topk']} must be refused at start-up"
    return None


def _topk_page(cell: dict, facts: dict) -> Optional[str]:
    if facts.get("topk_page_refused") and cell.get("topk") not in (None, "1") and cell.get("page") not in (None, "1"):
        return "the release refuses topk > 1 with page size > 1 on the Triton backend"
    return None


SPEC = SmokeSpec(
    patch="dynamic-spec-disable",
    patched_class=("sglang/srt/speculative/eagle_worker_v2.py", "EAGLEWorkerV2"),
    factory_file="sglang/srt/speculative/spec_info.py",
    algorithms=ALGORITHMS,
    axes=AXES,
    # hysteresis 2 (default 8): the stages drive short bursts and need many switches; on the H200 a
    # STANDALONE cell without overlap and CUDA graphs lived through 0 transitions in resume-equivalence
    # with the default (bench/results/smoke2/). The hysteresis itself is proven on CPU.
    flag_args=(FLAG, "{threshold}", "--speculative-disable-hysteresis", "2"),
    spec_args=("--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"),
    reference_drop=("--speculative-",),
    bool_options=("--disable-overlap-schedule", "--disable-cuda-graph", "--skip-tokenizer-init",
                  "--skip-server-warmup", "--enable-multi-layer-eagle", "--enable-dp-attention"),
    patterns=LogPatterns(
        ready=r"patchkit-spec-disable: ready threshold=(\d+)",
        switch=r"patchkit-spec-disable: (?P<mode>OFF|ON) batch_size=(\d+) threshold=(\d+) switches=(\d+)",
        off="OFF",
        refused=(r"patchkit-spec-disable: refused|(SpecDisableConfigError|ValueError|RuntimeError|AssertionError)\b.*"
                 r"(speculative[-_]disable[-_]batch[-_]threshold|spec[-_]disable)"),
        fields=(("decode_attention", r"decode_attention=(\[[^\]]*\]|None)"), ("draft_extend", r"draft_extend=(\S+)")),
        # a prompt admitted while off above T gets no draft prefill under skip: the switch lines count them
        admitted_off=(r"skipped_draft_prefills=(\d+)", "draft_extend", r"^skip-above-T$"),
    ),
    # the last: the patch's own check that its host lengths equal the device's (runtime.HostLens)
    # and, on kv cells, the first 16 KV-only writes checked against the full draft extend (an ERROR line
    # when they differ, which log-scan fails)
    checker_env=(("SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_BUSY", "1"), ("SGLANG_CHECK_KV_PAGE_INVARIANTS", "1"),
                 ("PATCHKIT_SPEC_DISABLE_HOST_LENS", "check"), ("PATCHKIT_SPEC_DISABLE_KV_CHECK", "16")),
    forced_acceptance_env=(("SGLANG_SIMULATE_ACC_LEN", "3"),),
    refusals=(Refusal("the flag on a worker that does not inherit the patched class", _unpatched_worker),
              Refusal("the flag with topk > 1", _topk_above_one)),
    exclusions=(Exclusion("topk > 1 with page size > 1 (refused by the release)", _topk_page),
                Exclusion(f"{DRAFT_EXTEND_FLAG} where it does nothing", _draft_extend_inert)),
    facts=(("v2_requires_topk1", _v2_requires_topk1), ("topk_page_refused", _topk_page_refused),
           ("can_skip_draft_extend", _can_skip_draft_extend)),
    threshold=4,
    match=("--speculative-algorithm", "--disable-overlap-schedule", "--disable-cuda-graph", "--speculative-eagle-topk",
           "--page-size", FLAG, DRAFT_EXTEND_FLAG),
    option_defaults=(("--page-size", "1"), ("--speculative-eagle-topk", "1"), (DRAFT_EXTEND_FLAG, "keep")),
    flag_only=(DRAFT_EXTEND_FLAG,),
)
