"""patchkit dynamic-spec-disable: the runtime of the patch.

``patchkit apply dynamic-spec-disable`` copies this file into the target as
``sglang/srt/speculative/patchkit_spec_disable.py`` (journalled; ``revert`` removes it). The codemod
only adds thin hooks that call into it:

- ``ServerArgs.check_server_args``    -> :func:`check_server_args` (start-up refusals, one line each)
- ``EAGLEWorkerV2.__init__`` and every subclass constructor that does not run it
                                      -> ``self.spec_disable_batch_threshold = resolve_threshold(server_args)``
- end of the method that builds the runtime states (``init_cuda_graphs``, or ``__init__`` on
  0.5.12-0.5.13), and of each subclass override that does not chain to it -> :func:`on_init`
- the decode branch of ``forward_batch_generation`` -> :func:`on_decode`
- 0.5.14+: the zero-step branch's skip condition -> :func:`skip_draft_extend` (no draft-model work
  on a disabled step above the threshold)
- 0.5.14+: the draft prefill after a target prefill -> :func:`skip_draft_prefill` (none for a prompt
  admitted while disabled above the threshold)
- 0.5.12-0.5.13: ``speculative_num_steps == 0`` -> :func:`trivial_verify_input`
- 0.5.14+: the start of ``FutureMap.resolve_seq_lens_cpu`` (the overlap scheduler) ->
  :func:`resolve_on_host` (after a disabled step, the next step's host lengths without a GPU sync)

From the first decode step above the threshold the worker swaps to a pre-built
zero-step runtime state and verifies only the previous bonus token (a plain decode through the
speculative bookkeeping); at or below it for ``hysteresis`` consecutive decode steps, it swaps back.

Every disabled step runs the draft model's extend by default, which keeps the draft's KV cache
complete. ``--speculative-disable-draft-extend skip`` (else ``$PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND``;
0.5.14+) does no draft-model work above the
threshold: disabled decode steps skip the extend (upstream's ``_stub_skipped_draft_extend``), and a
prompt admitted while disabled above it gets no draft prefill (:func:`skip_draft_prefill`, the same
stub shapes). ``skip-decode`` skips only the former (patch 2.4's ``skip``). The run-up to a resume
(disabled steps at or below the threshold) still runs the extend, so the latest tokens' draft KV and
the next-token seed are fresh when drafting resumes; a resume due right after a skipped step waits
one step for that (``hysteresis`` 1). The tokens decoded above the threshold, and under ``skip`` the
prompts admitted there, stay holes in the draft's KV cache: whether that costs acceptance depends on
the draft (vLLM measured an EAGLE-3 draft losing nearly all of it), so skipping is opt-in and the
smoke test's resume-acceptance stage measures it on the user's own checkpoint. ``kv`` (0.5.14+,
EAGLE-3 drafts) is ``skip`` without the holes: each skipped decode-step extend, and each skipped
draft prefill of a prompt admitted above the threshold, writes the draft's KV for its tokens from
the draft's first-layer projections alone (draft_kv.py, copied as ``patchkit_spec_disable_kv.py``);
only the seed is stale, and the run-up refreshes it as under ``skip``.

Importing this module is cheap and imports nothing from SGLang or torch: SGLang's own modules
import it while they load. Everything that needs them imports it lazily.
"""
from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

logger = logging.getLogger(__name__)

FLAG = "--speculative-disable-batch-threshold"
ENV = "SGLANG_SPEC_DISABLE_BATCH_THRESHOLD"
HYSTERESIS_FLAG = "--speculative-disable-hysteresis"
HYSTERESIS_ENV = "SGLANG_SPEC_DISABLE_HYSTERESIS"
DECODE_ATTENTION_ENV = "PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION"
DRAFT_EXTEND_FLAG = "--speculative-disable-draft-extend"
DRAFT_EXTEND_ENV = "PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND"
HOST_LENS_ENV = "PATCHKIT_SPEC_DISABLE_HOST_LENS"
KV_CHECK_ENV = "PATCHKIT_SPEC_DISABLE_KV_CHECK"
HOST_LENS_MODES = ("on", "off", "check")
#: consecutive decode steps at or below the threshold before drafting resumes (disabling is at once)
DEFAULT_HYSTERESIS = 8
#: attribute of the worker holding its :class:`SpecDisable` (set by :func:`on_init`)
STATE_ATTR = "_patchkit_spec_disable"


class SpecDisableConfigError(ValueError):
    """A start-up refusal: one line naming the flag (or variable) and the option it clashes with."""


# ----------------------------------------------------------------------------- configuration
def _int_setting(server_args: Any, field_name: str, flag: str, env: str, minimum: int) -> tuple[Optional[int], str]:
    value = getattr(server_args, field_name, None)
    source = flag
    if value is None:
        raw = os.environ.get(env, "").strip()
        if not raw:
            return None, ""
        source = env
        try:
            value = int(raw)
        except ValueError:
            raise SpecDisableConfigError(f"{env}={raw!r}: expected an integer >= {minimum}") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecDisableConfigError(f"{source}={value!r}: expected an integer >= {minimum}")
    return value, source


def resolve_threshold(server_args: Any) -> Optional[int]:
    """The batch-size threshold from ``--speculative-disable-batch-threshold``, else
    ``$SGLANG_SPEC_DISABLE_BATCH_THRESHOLD``, else None (off). Raises SpecDisableConfigError."""
    return _int_setting(server_args, "speculative_disable_batch_threshold", FLAG, ENV, 0)[0]


def resolve_hysteresis(server_args: Any) -> int:
    """Consecutive decode steps at or below the threshold before drafting resumes
    (``--speculative-disable-hysteresis``, else ``$SGLANG_SPEC_DISABLE_HYSTERESIS``, else
    :data:`DEFAULT_HYSTERESIS`); 1 resumes at once. Disabling never waits."""
    value, _ = _int_setting(server_args, "speculative_disable_hysteresis", HYSTERESIS_FLAG, HYSTERESIS_ENV, 1)
    return DEFAULT_HYSTERESIS if value is None else value


#: server options that change the speculative worker's control flow in ways the state swap does
#: not follow: (server_args field, value that clashes, why). Mirrors upstream's own guards for the
#: same swap (``adaptive_spec_params.adaptive_unsupported_reason``).
CLASHES: tuple[tuple[str, Callable[[Any], bool], str, str], ...] = (
    ("speculative_adaptive", bool, "--speculative-adaptive",
     "upstream's adaptive controller swaps the same runtime states"),
    ("enable_dp_attention", bool, "--enable-dp-attention",
     "DP ranks see different batch sizes and would pick different modes"),
    ("enable_two_batch_overlap", bool, "--enable-two-batch-overlap",
     "the state swap would discard the TboAttnBackend wrapper"),
    ("enable_pdmux", bool, "--enable-pdmux",
     "the state swap does not update decode_attn_backend_group"),
    ("enable_multi_layer_eagle", bool, "--enable-multi-layer-eagle",
     "MultiLayerEagleWorkerV2 does not run the patched worker"),
    ("speculative_eagle_topk", lambda v: v is not None and v > 1, "--speculative-eagle-topk > 1",
     "the one-token verify state is built for a chain draft (topk 1), as upstream's zero-step state"),
)


def _resolved(server_args: Any, name: str) -> Any:
    """A field's value as SGLang resolved it (0.5.16+ keeps some behind ``resolved_view``)."""
    try:
        from sglang.srt.arg_groups.overrides import resolved_view  # type: ignore[import-not-found]
    except Exception:
        return getattr(server_args, name, None)
    try:
        return getattr(resolved_view(server_args), name)
    except Exception:
        return getattr(server_args, name, None)


def clash_reason(server_args: Any) -> Optional[str]:
    """Why the threshold cannot run with these options (None: it can). Static options only."""
    for name, clashes, option, why in CLASHES:
        value = _resolved(server_args, name)
        if value is not None and clashes(value):
            return f"{option} ({why})"
    return None


def worker_reason(worker_cls: type, owner: type) -> Optional[str]:
    """Why a speculative worker class cannot carry the switch (None: it can)."""
    if not (isinstance(worker_cls, type) and issubclass(worker_cls, owner)):
        name = getattr(worker_cls, "__name__", repr(worker_cls))
        return f"it runs {name}, which is not a subclass of {owner.__name__} (the patched worker)"
    if worker_cls.forward_batch_generation is not owner.forward_batch_generation:
        return (f"{worker_cls.__name__} overrides forward_batch_generation, where the switch runs")
    return None


def check_server_args(server_args: Any) -> None:
    """Start-up check, called from ``ServerArgs.check_server_args``: validates the flag and refuses
    every option it cannot run with, in one line naming both. Nothing happens when the flag is off."""
    threshold, source = _int_setting(server_args, "speculative_disable_batch_threshold", FLAG, ENV, 0)
    resolve_hysteresis(server_args)
    resolve_draft_extend(server_args)
    resolve_host_lens()
    if threshold is None:
        return
    algorithm = getattr(server_args, "speculative_algorithm", None)
    if algorithm is None:
        if source == FLAG:
            raise SpecDisableConfigError(f"{FLAG} needs --speculative-algorithm (speculation is off)")
        logger.warning("patchkit-spec-disable: %s is set but speculation is off; ignored", ENV)
        return
    clash = clash_reason(server_args)
    if clash is not None:
        raise SpecDisableConfigError(f"{source} cannot be used with {clash}")
    reason = _worker_class_reason(server_args, algorithm)
    if reason is not None:
        raise SpecDisableConfigError(f"{source} cannot be used with --speculative-algorithm {algorithm}: {reason}")


def _worker_class_reason(server_args: Any, algorithm: str) -> Optional[str]:
    """Ask the release which worker class it will build (``SpeculativeAlgorithm.create_worker``)."""
    try:
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2  # type: ignore[import-not-found]
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm  # type: ignore[import-not-found]
        worker_cls = SpeculativeAlgorithm.from_string(algorithm).create_worker(server_args)
    except Exception as exc:  # the release refuses the combination itself, later and in its words
        logger.debug("patchkit-spec-disable: worker class not resolved at start-up: %s", exc)
        return None
    return worker_reason(worker_cls, EAGLEWorkerV2)


# ----------------------------------------------------------------------------- the switch
@dataclass
class Switch:
    """Hysteresis over decode batch sizes. Pure Python: ``observe`` returns the new mode
    (True: disabled) when a switch is due, else None."""

    threshold: int
    hysteresis: int = DEFAULT_HYSTERESIS
    disabled: bool = False
    streak: int = 0
    switches: int = 0
    disabled_steps: int = 0
    enabled_steps: int = 0

    def observe(self, batch_size: int, hold_resume: bool = False) -> Optional[bool]:
        """``hold_resume``: a resume due now waits one step (the draft is not fresh yet).

        Asymmetric: the first decode step above the threshold disables drafting (drafting a large
        batch is the expensive mistake: with 8 steps of delay, requests that arrive and finish
        together drafted 8 steps at 256 per wave, and the patched server fell from 0.96x of no
        speculation between waves to 0.75x overall on an H200); resuming waits for ``hysteresis``
        consecutive steps at or below it, which bounds how often a load that hovers at the
        threshold can switch."""
        want = batch_size > self.threshold
        due: Optional[bool] = None
        if want == self.disabled:
            self.streak = 0
        elif want:
            self.disabled, self.streak, due = True, 0, True
            self.switches += 1
        else:
            self.streak += 1
            if self.streak >= self.hysteresis and not hold_resume:
                self.disabled, self.streak, due = False, 0, False
                self.switches += 1
            elif self.streak >= self.hysteresis:
                self.streak = self.hysteresis - 1
        if self.disabled:
            self.disabled_steps += 1
        else:
            self.enabled_steps += 1
        return due


@dataclass
class SpecDisable:
    """What :func:`on_init` attaches to the worker."""

    switch: Switch
    full: Any
    zero: Any
    #: server_args fields that size the scheduler's KV reserve, at the full (drafting) state
    sizing: dict = field(default_factory=dict)
    decode_attention: list = field(default_factory=list)
    extra_memory_mib: Optional[float] = None
    #: skip the draft extend on disabled steps above the threshold (else run it on every step)
    skip_extend: bool = False
    #: also skip the draft prefill of prompts admitted while disabled above the threshold
    skip_prefill: bool = False
    #: batch size of the decode step in flight (set by :func:`on_decode`)
    step_bs: int = 0
    #: the last disabled step skipped the draft extend: the draft's seed is stale until one runs
    stale: bool = False
    skipped_steps: int = 0
    #: prefill batches whose draft extend was skipped (:func:`skip_draft_prefill`)
    skipped_prefills: int = 0
    #: ``kv``: the KV-only write's plan (draft_kv.KVPlan); the skipped extends write the draft's KV
    kv_plan: Any = None
    #: ``kv``: draft_kv.py as the target imports it (looked up once, at start-up)
    kv_module: Any = None
    #: ``kv``: disabled steps whose extend was replaced by the KV-only write
    kv_steps: int = 0
    #: ``kv``: prompt batches given the KV-only write (while checked, the full prefill ran too)
    kv_prefills: int = 0
    #: ``kv``: a prefill hook without the target's hidden states was reported (an older apply)
    kv_prefill_warned: bool = False
    #: ``kv``: steps left to check against the full extend ($PATCHKIT_SPEC_DISABLE_KV_CHECK)
    kv_check_left: int = 0
    #: ``kv``: prompt batches left to check against the full draft prefill (the same count)
    kv_check_prefills_left: int = 0
    lens: "HostLens" = field(default_factory=lambda: HostLens())


SIZING_FIELDS = ("speculative_num_steps", "speculative_num_draft_tokens")


def _set_fields(server_args: Any, values: dict) -> None:
    """Write server_args fields without a provenance record (``override`` would append one per
    switch: a week-long server would grow ``_resolved_overrides`` without bound)."""
    for name, value in values.items():
        object.__setattr__(server_args, name, value)


def apply_state(worker: Any, ctl: SpecDisable, disabled: bool) -> None:
    """Swap the worker to the zero or the full state. The scheduler sizes each decode step's KV
    reserve from ``server_args`` *before* the worker runs, so the step that resumes drafting is
    allocated in the previous mode: the sizing fields stay at the full state in both modes (the
    reserve never shrinks), and the provenance log upstream's swap appends is trimmed back."""
    sa = worker.server_args
    logs = ("_resolved_overrides", "_runtime_mutations")
    # a log upstream's override creates on its first call (absent before) is trimmed from 0
    marks = [len(log) if isinstance(log := getattr(sa, name, None), list) else 0 for name in logs]
    context = _context_log()  # 0.5.23+ log the swap in the runtime context instead
    context_mark = len(context) if context is not None else 0
    state = ctl.zero if disabled else ctl.full
    worker.apply_runtime_state(state)
    for name, mark in zip(logs, marks):
        log = getattr(sa, name, None)
        if isinstance(log, list):
            del log[mark:]
    if context is not None:
        del context[context_mark:]
    _set_fields(sa, ctl.sizing)


def _context_log() -> Optional[list]:
    """``get_context()._overrides_log`` on releases whose swap overrides the runtime context."""
    try:
        from sglang.srt.runtime_context import get_context  # type: ignore[import-not-found]
        log = get_context()._overrides_log
    except Exception:
        return None
    return log if isinstance(log, list) else None


def on_init(worker: Any, owner: type) -> None:
    """Build the zero-step state once the worker's own states exist. Idempotent; nothing when the
    threshold is off. ``owner`` is the patched worker class (EAGLEWorkerV2)."""
    threshold = getattr(worker, "spec_disable_batch_threshold", None)
    if threshold is None or getattr(worker, STATE_ATTR, None) is not None:
        return
    reason = worker_reason(type(worker), owner)
    algorithm = getattr(worker.server_args, "speculative_algorithm", None)
    if reason is not None:
        raise SpecDisableConfigError(f"{FLAG} cannot be used with --speculative-algorithm {algorithm}: {reason}")
    if getattr(worker, "adaptive_controller", None) is not None:
        raise SpecDisableConfigError(f"{FLAG} cannot be used with --speculative-adaptive")
    sa = worker.server_args
    sizing = {name: getattr(sa, name) for name in SIZING_FIELDS}
    before = _reserved_mib()
    full, zero, converted = build_states(worker)
    after = _reserved_mib()
    extra = None if before is None or after is None else max(0.0, after - before)
    worker.apply_runtime_state(full)
    _set_fields(sa, sizing)
    mode = resolve_draft_extend_mode(sa)
    skip, skip_prefill = DRAFT_EXTEND_MODES[mode]
    kv_plan = kv_module = None
    if mode == "kv" and callable(getattr(worker, "_stub_skipped_draft_extend", None)):
        kv_module = _kv_module()
        kv_plan = kv_module.plan(worker._draft_worker.draft_runner)
        if isinstance(kv_plan, str):
            logger.warning("patchkit-spec-disable: kv (%s or $%s) runs the full draft extend instead: %s",
                           DRAFT_EXTEND_FLAG, DRAFT_EXTEND_ENV, kv_plan)
            kv_plan, skip, skip_prefill = None, False, False
    if skip and not callable(getattr(worker, "_stub_skipped_draft_extend", None)):
        # 0.5.12-0.5.13: no upstream stub, so apply added no skip hook; say so rather than claim it
        logger.warning("patchkit-spec-disable: the draft-extend skip (%s or $%s) is ignored: this release cannot "
                       "skip the draft extend (0.5.14+ can); it runs on every disabled step", DRAFT_EXTEND_FLAG,
                       DRAFT_EXTEND_ENV)
        skip = skip_prefill = False
    why = _prefill_kept_reason(worker, owner) if skip_prefill else None
    if why is not None:
        logger.warning("patchkit-spec-disable: %s (%s or $%s) covers the decode-step extends only: %s",
                       mode, DRAFT_EXTEND_FLAG, DRAFT_EXTEND_ENV, why)
        skip_prefill = False
    ctl = SpecDisable(Switch(threshold, resolve_hysteresis(sa)), full, zero, sizing, converted, extra,
                      skip_extend=skip, skip_prefill=skip_prefill, lens=HostLens(resolve_host_lens()),
                      kv_plan=kv_plan, kv_module=kv_module)
    ctl.kv_check_left = resolve_kv_check() if kv_plan is not None else 0
    ctl.kv_check_prefills_left = ctl.kv_check_left if skip_prefill else 0
    setattr(worker, STATE_ATTR, ctl)
    global _ACTIVE
    _ACTIVE = ctl
    logger.info(
        "patchkit-spec-disable: ready threshold=%d hysteresis=%d steps=%d decode_attention=%s "
        "draft_extend=%s host_lens=%s extra_memory_mib=%s worker=%s",
        threshold, ctl.switch.hysteresis, full.speculative_num_steps, converted,
        _extend_label(ctl),
        ctl.lens.mode,
        "?" if extra is None else f"{extra:.0f}", type(worker).__name__,
    )


def on_decode(worker: Any, batch: Any) -> None:
    """Called at the start of every decode step: count it, and swap states when a switch is due."""
    ctl = getattr(worker, STATE_ATTR, None)
    if ctl is None:
        return
    bs = int(batch.seq_lens.shape[0])
    ctl.step_bs = bs
    due = ctl.switch.observe(bs, hold_resume=ctl.stale)
    if due is not None:
        apply_state(worker, ctl, due)
        _log_switch(ctl, due, bs)
    ctl.lens.record(batch, ctl.switch.disabled)
    if ctl.switch.disabled:
        _int64_bonus_tokens(batch)


def _extend_label(ctl: SpecDisable) -> str:
    if ctl.kv_plan is not None:
        return "kv-only-above-T" + ("" if ctl.skip_prefill else "-decode-only") + \
            (f"-check{ctl.kv_check_left}" if ctl.kv_check_left else "")
    if ctl.skip_extend:
        return "skip-above-T" + ("" if ctl.skip_prefill else "-decode-only")
    return "every-step"


def skip_draft_extend(worker: Any, batch: Any = None, output: Any = None) -> bool:
    """Called on a zero-step decode step after its verify (``batch`` and its result ``output``):
    True skips the draft model's extend (upstream stubs the draft's outputs). Skips only while
    disabled and above the threshold, so the run-up to a resume (at or below it) refreshes the
    draft's KV cache and seed. Under ``kv`` a skipped extend still writes the draft's KV for the
    step's tokens (draft_kv.py), so the cache has no holes; only the seed is stale."""
    ctl = getattr(worker, STATE_ATTR, None)
    if ctl is None:
        return False
    skip = ctl.skip_extend and ctl.switch.disabled and ctl.step_bs > ctl.switch.threshold
    if skip and ctl.kv_plan is not None:
        if batch is None or output is None:
            skip = False  # a hook from an older apply hands no step: run the full extend
        else:
            _kv_step(worker, ctl, batch, output)
    ctl.stale = skip
    ctl.skipped_steps += skip
    return skip


def _kv_step(worker: Any, ctl: SpecDisable, batch: Any, output: Any) -> None:
    """The KV-only write of one disabled step; while $PATCHKIT_SPEC_DISABLE_KV_CHECK steps are left,
    the full extend runs too and the rows it wrote are compared with the KV-only ones (logged)."""
    kv = ctl.kv_module
    dw = worker._draft_worker
    ctx = getattr(dw, "draft_tp_context", None)
    with (ctx(dw.draft_runner.tp_group) if callable(ctx) else contextlib.nullcontext()):
        if ctl.kv_check_left > 0:
            ctl.kv_check_left -= 1
            got = kv.check(ctl.kv_plan, batch, output, lambda: dw._draft_extend_for_decode(batch, output))
            _log_check(ctl, got, "step", ctl.kv_steps + 1)
        else:
            kv.write(ctl.kv_plan, batch, output)
    ctl.kv_steps += 1


def _kv_module():
    """draft_kv.py, as apply copies it into the target (or from patchkit's source tree)."""
    try:
        from . import patchkit_spec_disable_kv as kv  # type: ignore[attr-defined]
    except ImportError:
        from . import draft_kv as kv  # type: ignore[no-redef]
    return kv


def resolve_kv_check() -> int:
    """``$PATCHKIT_SPEC_DISABLE_KV_CHECK``: how many ``kv`` decode steps also run the full extend,
    and how many prompt batches the full draft prefill, and compare (0 when unset or not a count)."""
    raw = os.environ.get(KV_CHECK_ENV, "").strip()
    return int(raw) if raw.isdigit() else 0


def skip_draft_prefill(worker: Any, batch: Any, next_token_ids: Any, hidden: Any = None) -> Any:
    """Called before the draft model's extend over a prefill batch (``hidden``: the target's hidden
    states it would take): a stub draft input (upstream's zero-step stub shapes, the target's next
    tokens as bonus tokens) skips it; None runs it. Skips under ``skip`` and ``kv`` only while
    disabled and the last decode step ran above the threshold. Under ``skip`` the prompts of
    requests admitted there are holes in the draft's KV cache, like the tokens decoded there; under
    ``kv`` the KV-only write fills them (a batch it cannot cover, or a hook from an older apply that
    hands no hidden states, runs the full prefill). The seed is stale after it: a resume waits for a
    draft extend (the run-up's).

    The load is the last decode step's batch size: the host learns which requests finished only a
    step later. When a whole wave finishes in one step, a prompt admitted right after it is still
    taken as admitted above the threshold, and that request drafts without its prompt in the
    draft's KV cache once drafting resumes (acceptance, never correctness)."""
    ctl = getattr(worker, STATE_ATTR, None)
    if ctl is None or not ctl.skip_prefill or not ctl.switch.disabled or ctl.step_bs <= ctl.switch.threshold:
        return None
    mode = getattr(batch, "forward_mode", None)
    if mode is None or mode.is_idle():
        return None
    if ctl.kv_plan is not None:
        done = _kv_prefill(worker, ctl, batch, next_token_ids, hidden)
        if done is not True:
            return done  # None: the full prefill runs; else the check ran it: its draft input
    draft = _worker_module(worker).EagleDraftInput(
        bonus_tokens=next_token_ids, num_tokens_per_req=1, num_tokens_for_logprob_per_req=1)
    worker._stub_skipped_draft_extend(batch, _Result(draft))
    ctl.stale = True  # that decode step set it already (it skipped too); a prefill alone never clears it
    ctl.skipped_prefills += 1
    return draft


def _kv_prefill(worker: Any, ctl: SpecDisable, batch: Any, next_token_ids: Any, hidden: Any) -> Any:
    """The KV-only write of one prompt batch: True when written; None when it cannot stand in for
    the draft prefill (which then runs); for the first $PATCHKIT_SPEC_DISABLE_KV_CHECK prompt batches,
    the full prefill's draft input after comparing the rows it wrote with the KV-only ones (logged)."""
    kv = ctl.kv_module
    if hidden is None:
        if not ctl.kv_prefill_warned:
            ctl.kv_prefill_warned = True
            logger.warning("patchkit-spec-disable: kv: the draft prefill hook hands no target hidden states (applied "
                           "by an older patchkit?): prompts admitted above the threshold run the full draft prefill; "
                           "re-apply the patch")
        return None
    tail = getattr(_worker_module(worker), "_eagle_prefill_tail_tokens", None)  # 0.5.14+: chunked prompts
    if not callable(tail) and getattr(batch, "chunked_req", None) is not None:
        return None  # without upstream's helper the chunk's tail token is unknown: the full prefill
    rows = kv.prefill_rows(batch, (lambda: tail(batch, next_token_ids)) if callable(tail) else next_token_ids, hidden)
    if isinstance(rows, str):
        return None
    ctl.kv_prefills += 1
    if ctl.kv_check_prefills_left > 0:
        ctl.kv_check_prefills_left -= 1
        full: list = []
        got = kv.check_rows(ctl.kv_plan, rows, lambda: full.append(
            worker._draft_worker._draft_extend_for_prefill(batch, hidden, next_token_ids)))
        _log_check(ctl, got, "prefill", ctl.kv_prefills)
        return full[0]
    kv.write_rows(ctl.kv_plan, rows)
    return True


def _log_check(ctl: SpecDisable, got: Any, what: str, n: int) -> None:
    if got.agrees():
        logger.info("patchkit-spec-disable: kv-check %s=%d %s", what, n, got.line())
    else:  # the smoke test's log-scan fails the cell on this line
        logger.error("patchkit-spec-disable: ERROR kv-check %s=%d %s: the KV-only write differs from the draft "
                     "%s's", what, n, got.line(), "extend" if what == "step" else "prefill")


def _prefill_kept_reason(worker: Any, owner: type) -> Optional[str]:
    """Why ``skip`` must keep the draft prefill on this server (None: it may skip it). Settled once,
    at start-up: the options do not change while the server runs."""
    if not hooked(owner, "skip_draft_prefill"):
        return f"apply found no draft prefill call to hook in {owner.__name__} (upstream drifted?)"
    if _rejection_sampling(worker):
        return "rejection sampling is on or cannot be read (the stub carries no draft probabilities)"
    if getattr(worker._draft_worker, "seed_dsa_topk_from_draft_extend", False):
        return "the draft seeds its DSA top-k from the prefill"
    return None


def _rejection_sampling(worker: Any) -> bool:
    """Whether the draft prefill would return draft probabilities: the server_args field, its
    resolved value, or as the worker's module reads it (0.5.17+: ``get_spec()``; 0.5.21+ may turn it
    on without the field). Unknown counts as on (the real prefill runs)."""
    sa = worker.server_args
    if getattr(sa, "speculative_use_rejection_sampling", False) or _resolved(sa, "speculative_use_rejection_sampling"):
        return True
    get_spec = getattr(_worker_module(worker), "get_spec", None)
    if not callable(get_spec):
        return False
    try:
        return bool(getattr(get_spec(), "speculative_use_rejection_sampling", False))
    except Exception:
        return True


def hooked(owner: type, name: str) -> bool:
    """Whether a method of ``owner`` calls the runtime's ``name`` (the codemod put the hook there):
    by the names its code objects use, nested ones included."""
    def names(code) -> set:
        out = set(code.co_names)
        for const in code.co_consts:
            if hasattr(const, "co_names"):
                out |= names(const)
        return out

    for value in vars(owner).values():
        fn = getattr(value, "__func__", value)
        code = getattr(fn, "__code__", None)
        if code is not None and name in names(code):
            return True
    return False


@dataclass
class _Result:
    """The one field of a GenerationBatchResult that upstream's stub fills."""

    next_draft_input: Any


#: ``--speculative-disable-draft-extend`` values: (skip decode-step extends, skip prompt prefills);
#: ``kv`` skips both but writes the draft's KV for their tokens (draft_kv.py)
DRAFT_EXTEND_MODES = {"keep": (False, False), "skip": (True, True), "skip-decode": (True, False),
                      "kv": (True, True)}


def resolve_draft_extend(server_args: Any = None) -> tuple[bool, bool]:
    """(skip decode-step extends, skip prompt prefills) of :func:`resolve_draft_extend_mode`."""
    return DRAFT_EXTEND_MODES[resolve_draft_extend_mode(server_args)]


def resolve_draft_extend_mode(server_args: Any = None) -> str:
    """``--speculative-disable-draft-extend``, else ``$PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND``, else
    ``keep``: ``keep`` (the draft extends every disabled step), ``skip`` (no draft-model work above
    the threshold: neither decode-step extends nor the prefill of prompts admitted there) or
    ``skip-decode`` (decode-step extends only; prompts admitted above the threshold still get their
    draft prefill) or ``kv`` (as ``skip``, but each skipped extend and prefill writes the draft's KV
    for its tokens, so the cache has no holes). Raises SpecDisableConfigError naming the flag or the variable."""
    value = getattr(server_args, "speculative_disable_draft_extend", None)
    source = DRAFT_EXTEND_FLAG
    if value is None:
        value, source = os.environ.get(DRAFT_EXTEND_ENV, "").strip().lower() or "keep", DRAFT_EXTEND_ENV
    if value not in DRAFT_EXTEND_MODES:
        raise SpecDisableConfigError(f"{source}={value!r}: expected one of {', '.join(DRAFT_EXTEND_MODES)}")
    return value


def _int64_bonus_tokens(batch: Any) -> None:
    """The one-token verify feeds the previous bonus tokens to the verify kernel as candidates,
    which must be int64. The overlap scheduler hands them over as int64, the synchronous one
    (--disable-overlap-schedule) as the sampler's int32: 'Expected candidates to be of type long'
    on an H200 with SGLang 0.5.16 (upstream's own zero-step path has the same gap)."""
    info = getattr(batch, "spec_info", None)
    tokens = getattr(info, "bonus_tokens", None)
    if tokens is not None and str(getattr(tokens, "dtype", "")) != "torch.int64":
        info.bonus_tokens = tokens.long()


def _log_switch(ctl: SpecDisable, due: bool, bs: int) -> None:
    sw = ctl.switch
    logger.info(
        "patchkit-spec-disable: %s batch_size=%d threshold=%d switches=%d disabled_steps=%d enabled_steps=%d "
        "skipped_draft_extends=%d skipped_draft_prefills=%d kv_only_extends=%d kv_only_prefills=%d host_lens=%d/%d",
        "OFF" if due else "ON", bs, sw.threshold, sw.switches, sw.disabled_steps, sw.enabled_steps, ctl.skipped_steps,
        ctl.skipped_prefills, ctl.kv_steps, ctl.kv_prefills,
        ctl.lens.resolved, ctl.lens.resolved + ctl.lens.fallbacks,
    )


def _reserved_mib() -> Optional[float]:
    """This process's CUDA caching-allocator reservation (MiB): the zero state's CUDA-graph pools
    and buffers land there. Device-wide free memory would also count other processes on the GPU."""
    try:
        import torch  # type: ignore[import-not-found]
        return torch.cuda.memory_reserved() / 2**20 if torch.cuda.is_available() else None
    except Exception:
        return None


# ----------------------------------------------------------------------------- host lengths
#: the worker's SpecDisable in this process (the scheduler's FutureMap reaches it through here)
_ACTIVE: Optional[SpecDisable] = None


def resolve_host_lens() -> str:
    """``$PATCHKIT_SPEC_DISABLE_HOST_LENS``: ``on`` (default), ``off``, or ``check`` (``on``, and
    each step also copies the device's lengths back and raises where the prediction differs)."""
    raw = os.environ.get(HOST_LENS_ENV, "on").strip().lower() or "on"
    if raw not in HOST_LENS_MODES:
        raise SpecDisableConfigError(f"{HOST_LENS_ENV}={raw!r}: expected one of {', '.join(HOST_LENS_MODES)}")
    return raw


@dataclass
class HostLens:
    """The next decode step's sequence lengths, known on the host after a disabled step.

    Spec v2's overlap scheduler learns each step's lengths from the GPU: before it prepares the
    next step, ``FutureMap.resolve_seq_lens_cpu`` copies the published lengths back and waits for
    the copy, which waits for the previous verify. A plain decode step has no such wait, so its
    host work overlaps the GPU's; a disabled step's cannot (measured on an H200 with FlashInfer:
    GPU busy 0.32 of the step under the profiler, against 0.91 for plain decode). On a disabled
    step every request accepts exactly its one verify token, so a request that ran in it is one
    token longer than the length the batch holds for it; a request merged from a prefill since
    holds its published length already. Anything else (a drafting step last, a batch the host
    cannot account for) takes upstream's path."""

    mode: str = "on"
    #: the last decode step ran disabled, and the requests (``rid``) it carried
    last_disabled: bool = False
    last_rids: frozenset = frozenset()
    resolved: int = 0
    fallbacks: int = 0
    checked: int = 0
    #: set while upstream's resolve runs under :func:`resolve_on_host`
    busy: bool = False
    #: a resolve asked and its scheduler waits for host lengths (the hook is in, the backend needs
    #: them): until then :meth:`record` keeps nothing (Triton and FA3 never wait)
    wanted: bool = False

    def record(self, batch: Any, disabled: bool) -> None:
        """Called by :func:`on_decode` for every decode step, after the mode for it is set."""
        if not self.wanted:
            return
        reqs = getattr(batch, "reqs", None)
        self.last_disabled = disabled and reqs is not None
        self.last_rids = frozenset(r.rid for r in reqs) if self.last_disabled else frozenset()

    def predict(self, batch: Any) -> Any:
        """The lengths the device will publish for ``batch``'s requests (None: not known here)."""
        held = getattr(batch, "seq_lens_cpu", None)
        reqs = getattr(batch, "reqs", None)
        if not self.last_disabled or held is None or reqs is None or len(reqs) != len(held) or not reqs:
            return None
        ran = [r.rid in self.last_rids for r in reqs]
        return held + 1 if all(ran) else held + held.new_tensor(ran)

    def compare(self, batch: Any, predicted: Any) -> None:
        """``check`` mode: raise where the prediction differs from the device's lengths (the
        gather upstream's resolve just made, copied back: one sync a step)."""
        actual = batch.seq_lens.cpu()
        self.checked += 1
        if predicted.shape != actual.shape or bool((predicted != actual).any()):
            bad = [i for i in range(len(predicted)) if i >= len(actual) or int(predicted[i]) != int(actual[i])]
            i = bad[0] if bad else 0
            raise RuntimeError(
                f"patchkit-spec-disable: host sequence lengths differ from the device's for {len(bad)} of "
                f"{len(predicted)} requests (first: rid {batch.reqs[i].rid} host {int(predicted[i])} device "
                f"{int(actual[i]) if i < len(actual) else None}); {HOST_LENS_ENV}=off avoids the prediction")


def resolve_on_host(future_map: Any, batch: Any, **kwargs: Any) -> bool:
    """Called first in ``FutureMap.resolve_seq_lens_cpu`` (its own arguments after ``batch`` as
    keywords). True: the batch's lengths are resolved and upstream's body must not run again. It
    runs upstream's GPU-only branch (the device gather of ``seq_lens``, which the next forward
    orders after the publish) and sets the host copy from :meth:`HostLens.predict`."""
    ctl = _ACTIVE
    if ctl is None or ctl.lens.mode == "off" or ctl.lens.busy:
        return False
    if getattr(getattr(batch, "spec_info", None), "future_indices", None) is None:
        return False
    needs_cpu = getattr(future_map, "needs_cpu_seq_lens", None)
    if needs_cpu is not True or getattr(future_map, "publish_ready", None) is None:
        return False  # nothing to save: upstream does not wait here
    lens = ctl.lens
    lens.wanted = True
    predicted = lens.predict(batch)
    if predicted is None:
        lens.fallbacks += lens.last_disabled
        return False
    lens.busy = True
    future_map.needs_cpu_seq_lens = False
    try:
        future_map.resolve_seq_lens_cpu(batch, **kwargs)
    finally:
        future_map.needs_cpu_seq_lens = needs_cpu
        lens.busy = False
    if lens.mode == "check":
        lens.compare(batch, predicted)
    batch.seq_lens_cpu = predicted
    batch.seq_lens_sum = int(predicted.sum())
    lens.resolved += 1
    return True


# ----------------------------------------------------------------------------- state builders
#: names the runtime takes from the worker's module (``eagle_worker_v2``), by strategy. The patch
#: refuses a release whose module lacks one (upstream renamed an import) instead of failing at
#: the first switch.
WORKER_MODULE_NAMES = {
    "always": ("SpecRuntimeState",),
    "bring-zero-step": ("CudaGraphRunner", "DraftBackendFactory", "EagleVerifyInput", "CaptureHiddenMode"),
    "skip-draft-prefill": ("EagleDraftInput",),  # skip_draft_prefill's stub (that edit only)
}


def _worker_module(worker: Any):
    """The module that defines the patched worker (its imports are the release's names)."""
    import sys
    from sglang.srt.speculative import eagle_worker_v2  # type: ignore[import-not-found]
    return sys.modules.get(eagle_worker_v2.__name__, eagle_worker_v2)


def _tp_context(worker: Any):
    """The context upstream registers its states in: the draft's TP group and the MoE backends."""
    import contextlib
    mod = _worker_module(worker)
    stack = contextlib.ExitStack()
    dw = worker._draft_worker
    if hasattr(dw, "draft_tp_context"):
        stack.enter_context(dw.draft_tp_context(dw.draft_runner.tp_group))
    for name in ("speculative_moe_backend_context", "speculative_moe_a2a_backend_context"):
        fn = getattr(mod, name, None)
        if fn is not None:
            stack.enter_context(fn())
    return stack


def current_state(worker: Any) -> Any:
    """The worker's current (drafting) runtime state, as upstream registers it."""
    mod = _worker_module(worker)
    dw = worker._draft_worker
    runner = worker._target_worker.model_runner
    # 0.5.14+ name the target's decode graph runner decode_cuda_graph_runner, earlier releases graph_runner
    graph_attr = "decode_cuda_graph_runner" if hasattr(runner, "decode_cuda_graph_runner") else "graph_runner"
    graph = getattr(runner, graph_attr, None)
    return mod.SpecRuntimeState(
        speculative_num_steps=worker.speculative_num_steps,
        speculative_num_draft_tokens=worker.speculative_num_draft_tokens,
        draft_attn_backend=dw.draft_attn_backend,
        cuda_graph_runner=dw.cuda_graph_runner,
        target_attn_backend=runner.attn_backend,
        target_graph_runner=graph,
        draft_extend_attn_backend=dw.draft_extend_attn_backend,
        cuda_graph_runner_for_draft_extend=dw.cuda_graph_runner_for_draft_extend,
    )


def build_states(worker: Any) -> tuple[Any, Any, list]:
    """(full, zero, decode-kernel conversions). 0.5.14+ build the zero state upstream's way
    (``build_adaptive_runtime_state(0, 1)``); 0.5.12-0.5.13 cannot build a multi-step draft backend
    for zero steps, so the zero state keeps the draft backends and builds only what a one-token
    verify and its draft extend need."""
    with _tp_context(worker):
        full = current_state(worker)
        if hasattr(worker, "_build_trivial_verify_input"):
            zero, converted = _upstream_zero_state(worker)
        else:
            zero, converted = _own_zero_state(worker, full)
    return full, zero, converted


def _upstream_zero_state(worker: Any) -> tuple[Any, list]:
    runner = worker._target_worker.model_runner
    dw = worker._draft_worker
    make_backend = runner._get_attention_backend
    init_draft_backends = dw.init_attention_backend
    converted: list = []

    def get_attention_backend(*args, **kwargs):
        backend = make_backend(*args, **kwargs)
        converted.append(one_token_attention(backend))
        return backend

    def init_attention_backend(*args, **kwargs):
        result = init_draft_backends(*args, **kwargs)
        if dw.draft_extend_attn_backend is not None:
            converted.append(one_token_attention(dw.draft_extend_attn_backend))
        return result

    runner._get_attention_backend = get_attention_backend
    dw.init_attention_backend = init_attention_backend
    try:
        state = worker.build_adaptive_runtime_state(0, 1)
    finally:
        del runner._get_attention_backend
        del dw.init_attention_backend
    return state, converted


def _own_zero_state(worker: Any, full: Any) -> tuple[Any, list]:
    mod = _worker_module(worker)
    with worker._override_worker_state(0, 1):
        runner = worker._target_worker.model_runner
        backup_init = runner.init_new_workspace
        try:
            target_attn_backend = runner._get_attention_backend(init_new_workspace=True)
        finally:
            runner.init_new_workspace = backup_init
        converted = [one_token_attention(target_attn_backend)]
        target_graph_runner = None
        if not worker.server_args.disable_cuda_graph:
            target_graph_runner = mod.CudaGraphRunner(
                runner, attn_backend=target_attn_backend, speculative_num_steps=0, speculative_num_draft_tokens=1)
        dw = worker._draft_worker
        draft_extend_attn_backend = mod.DraftBackendFactory(
            worker.server_args, dw.draft_runner, worker.topk, 0).create_draft_extend_backend()
        # 0.5.12-0.5.13 run the eager draft extend on draft_runner.attn_backend, which their state
        # swap never replaces: the draft extend keeps the full state's (extend) kernel, and the ready
        # line says so (decode_attention=[True, False]). Swapping the runner's backend as 0.5.14+ do
        # is the next step; it has not run on a GPU, so it is not done here.
        converted.append(False)
    state = mod.SpecRuntimeState(
        speculative_num_steps=0,
        speculative_num_draft_tokens=1,
        draft_attn_backend=full.draft_attn_backend,
        cuda_graph_runner=full.cuda_graph_runner,
        target_attn_backend=target_attn_backend,
        target_graph_runner=target_graph_runner,
        draft_extend_attn_backend=draft_extend_attn_backend,
        cuda_graph_runner_for_draft_extend=None,
    )
    return state, converted


def trivial_verify_input(worker: Any, batch: Any) -> Any:
    """0.5.12-0.5.13: a one-node EagleVerifyInput at the previous bonus token, the equivalent of
    upstream's ``_build_trivial_verify_input`` (0.5.14+): the verify kernel accepts the root and
    samples one new token from the target logits, a plain decode."""
    import torch  # type: ignore[import-not-found]
    mod = _worker_module(worker)
    if batch.forward_mode.is_idle():
        return mod.EagleVerifyInput.create_idle_input(worker.topk, 0, 1)
    bs = batch.seq_lens.shape[0]
    device = worker.device
    attn_backend = worker._target_worker.model_runner.attn_backend
    mask_buf, position_buf = attn_backend.get_verify_buffers_to_fill_after_draft()
    if mask_buf is not None:
        custom_mask = mask_buf
        custom_mask.fill_(True)
    else:
        custom_mask = torch.ones(_seq_lens_sum(batch, attn_backend) + bs, dtype=torch.bool, device=device)
    if position_buf is not None:
        positions = position_buf
        positions[:bs].copy_(batch.seq_lens)
    else:
        positions = batch.seq_lens.to(torch.int64)
    return mod.EagleVerifyInput(
        # int64 like the drafted path's tokens: the sampling verify kernel rejects int32
        draft_token=batch.spec_info.bonus_tokens.to(torch.int64),
        custom_mask=custom_mask,
        positions=positions,
        retrieve_index=torch.arange(bs, dtype=torch.long, device=device).unsqueeze(1),
        retrieve_next_token=torch.full((bs, 1), -1, dtype=torch.long, device=device),
        retrieve_next_sibling=torch.full((bs, 1), -1, dtype=torch.long, device=device),
        retrieve_cum_len=None,
        spec_steps=0,
        topk=worker.topk,
        draft_token_num=1,
        capture_hidden_mode=mod.CaptureHiddenMode.FULL,
        seq_lens_sum=None,
        seq_lens_cpu=None,
    )


def _seq_lens_sum(batch: Any, attn_backend: Any) -> int:
    """Without a GPU sync: the batch's own sum, the host copy's, else the bs x context bound."""
    if batch.seq_lens_sum is not None:
        return int(batch.seq_lens_sum)
    if getattr(batch, "seq_lens_cpu", None) is not None:
        return int(batch.seq_lens_cpu.sum())
    return int(batch.seq_lens.shape[0]) * int(attn_backend.max_context_len)


# ----------------------------------------------------------------------------- decode kernels
#: Measured on an H200 (bench/results/h200-8b-decode/profile-0.5.16.json.gz): at 128 requests a
#: zero-step step spent 31.7 of its 37.3 ms of GPU time in the Triton *extend* kernel (TARGET_VERIFY,
#: one query token per request), against 2.0 ms for the decode kernel of a plain decode step. One
#: query token per request whose KV slot is req_to_token[req, prefix_len] is a decode step over
#: prefix_len + 1 tokens, so the zero-step state's own backends run those steps with the decode kernel.
#: On FlashInfer the one-token verify re-plans a paged-prefill wrapper with the stock, blocking
#: ``plan()`` every step (bench/results/h200-8b-flashinfer/backend-kernels.md); as DECODE it takes
#: the decode wrappers, whose graph replay plans with ``fast_decode_plan`` from host lengths.
_ONE_TOKEN_CLASSES: dict = {}


def _extra_len(mode: Any) -> Optional[int]:
    """Tokens to add to seq_lens to present a one-token step as DECODE (None: not one of ours).
    TARGET_VERIFY batches carry the prefix length, DRAFT_EXTEND_V2 ones the post-write length."""
    if mode is None:
        return None
    if mode.is_target_verify():
        return 1
    if getattr(mode, "is_draft_extend_v2", lambda: False)():
        return 0
    return None


def _family(backend: Any) -> Optional[str]:
    names = {k.__name__ for k in type(backend).__mro__}
    for family in ("TritonAttnBackend", "FlashInferAttnBackend"):
        if family in names:
            return family
    return None


#: KV-cache dtypes the conversion is proven on (SGLang's pool keeps the logical dtype in ``.dtype``)
PROVEN_KV_DTYPES = ("torch.bfloat16", "torch.float16")


def quantized_kv(backend: Any) -> Optional[str]:
    """The KV cache's dtype when it is not one the conversion is proven on (None: it is, or unknown).
    On an H200 (SGLang 0.5.16, tiny model) ``--kv-cache-dtype fp8_e4m3`` with the Triton decode
    conversion failed the smoke test's resume-equivalence twice (3 and 9 of 800 tokens off the
    reference beyond bf16 near-ties); with the conversion off the same cell passed twice."""
    dtype = getattr(getattr(backend, "token_to_kv_pool", None), "dtype", None)
    return None if dtype is None or str(dtype) in PROVEN_KV_DTYPES else str(dtype)


def convertible(backend: Any) -> bool:
    """Whether :func:`one_token_attention` may convert this backend, one built for one verify token
    over a 16-bit KV cache: Triton without MLA, sliding window or decode context parallelism;
    FlashInfer with one wrapper (no sliding-window or cross-attention dispatch) whose decode reads the
    KV cache directly (not through an FP4 dequantisation workspace)."""
    family = _family(backend)
    if family is None or getattr(backend, "num_draft_tokens", 1) != 1 or getattr(backend, "use_mla", False):
        return False
    if quantized_kv(backend) is not None and os.environ.get(DECODE_ATTENTION_ENV, "").strip() != "force":
        return False  # ``=force`` converts anyway: the A/B that measures a quantised cache
    if family == "FlashInferAttnBackend":
        return (
            getattr(backend, "dispatch_reason", None) is None
            and (getattr(backend, "num_wrappers", 1) or 1) == 1
            and not getattr(backend, "skip_prefill", False)
            and not getattr(backend, "use_sliding_window_kv_pool", False)
            and not getattr(backend, "decode_uses_dequant_workspace", False)
        )
    if (getattr(backend, "sliding_window_size", None) or -1) > 0:
        return False
    return (getattr(backend, "dcp_size", 1) or 1) <= 1


def _decode_metadata(metadata: Any) -> bool:
    """Whether the backend's current metadata was built for DECODE: Triton's split-KV buffer, or
    FlashInfer's decode wrappers."""
    return getattr(metadata, "attn_logits", None) is not None or getattr(metadata, "decode_wrappers", None) is not None


def one_token_attention(backend: Any) -> bool:
    """Make an attention backend the zero-step state built for one verify token per request run
    TARGET_VERIFY and DRAFT_EXTEND_V2 steps with its decode kernel (metadata for prefix + 1
    tokens). Returns whether it was converted. ``PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION=0`` keeps
    the extend kernel; ``=force`` converts a quantised (fp8) KV cache too."""
    if os.environ.get(DECODE_ATTENTION_ENV, "1").strip() == "0":
        return False
    if getattr(type(backend), "_patchkit_one_token", False):
        return True
    if not convertible(backend):
        kv = quantized_kv(backend) if _family(backend) else None
        if kv is not None:
            logger.info("patchkit-spec-disable: %s keeps its extend kernel for the one-token verify: "
                        "KV cache %s (the decode conversion is proven on 16-bit caches only)", type(backend).__name__, kv)
        return False
    base = type(backend)
    cls = _ONE_TOKEN_CLASSES.get(base)
    if cls is None:
        cls = _ONE_TOKEN_CLASSES[base] = _one_token_class(base)
    backend.__class__ = cls
    return True


def _decode_mode():
    from sglang.srt.model_executor.forward_batch_info import ForwardMode  # type: ignore[import-not-found]
    return ForwardMode.DECODE


def _as_decode(fb: Any, extra: int, bound: Optional[Callable[[Any], int]]) -> tuple:
    saved = (fb.forward_mode, fb.seq_lens, fb.seq_lens_sum, fb.seq_lens_cpu, fb.spec_info)
    fb.forward_mode = _decode_mode()
    fb.spec_info = None
    if extra:
        if fb.seq_lens_sum is not None:
            fb.seq_lens_sum = fb.seq_lens_sum + extra * len(fb.seq_lens)
        fb.seq_lens = fb.seq_lens + extra
        if fb.seq_lens_cpu is not None:
            fb.seq_lens_cpu = fb.seq_lens_cpu + extra
    if bound is not None and fb.seq_lens_sum is None:
        # eager decode metadata sizes its index buffer by seq_lens_sum (0.5.12 needs it): the host
        # copy's sum, else an upper bound (what later releases allocate themselves); never a sync
        fb.seq_lens_sum = int(fb.seq_lens_cpu.sum()) if fb.seq_lens_cpu is not None else bound(fb)
    return saved


def _restore(fb: Any, saved: tuple) -> None:
    fb.forward_mode, fb.seq_lens, fb.seq_lens_sum, fb.seq_lens_cpu, fb.spec_info = saved


def _one_token_class(base: type) -> type:
    import inspect

    def batch_method(name: str, sized: bool):
        inner = getattr(base, name)

        def method(self, forward_batch, *args, **kwargs):
            extra = _extra_len(forward_batch.forward_mode)
            if extra is None:
                return inner(self, forward_batch, *args, **kwargs)
            bound = (lambda fb: len(fb.seq_lens) * self.max_context_len) if sized else None
            saved = _as_decode(forward_batch, extra, bound)
            try:
                return inner(self, forward_batch, *args, **kwargs)
            finally:
                _restore(forward_batch, saved)

        return method

    def graph_method(name: str):
        inner = getattr(base, name)
        signature = inspect.signature(inner)

        def method(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            a = bound.arguments
            extra = _extra_len(a.get("forward_mode"))
            if extra is not None:
                a["forward_mode"] = _decode_mode()
                a["spec_info"] = None
                if extra:
                    a["seq_lens"] = a["seq_lens"] + extra
                    if a.get("seq_lens_sum") is not None:
                        a["seq_lens_sum"] = a["seq_lens_sum"] + extra * int(a["bs"])
                    if a.get("seq_lens_cpu") is not None:
                        a["seq_lens_cpu"] = a["seq_lens_cpu"] + extra
            return inner(*bound.args, **bound.kwargs)

        return method

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        metadata = getattr(self, "forward_metadata", None)
        if (
            _extra_len(forward_batch.forward_mode) is None
            or k is None
            or not _decode_metadata(metadata)
            or any(value is not None for key, value in kwargs.items() if key != "sinks")
        ):
            return base.forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache, **kwargs)
        extra = {"sinks": kwargs["sinks"]} if kwargs.get("sinks") is not None else {}
        return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache=save_kv_cache, **extra)

    namespace: dict = {"_patchkit_one_token": True, "forward_extend": forward_extend}
    for name, sized in (("init_forward_metadata", True), ("init_forward_metadata_out_graph", False)):
        if hasattr(base, name):
            namespace[name] = batch_method(name, sized)
    for name in ("init_forward_metadata_capture_cuda_graph", "init_forward_metadata_replay_cuda_graph"):
        if hasattr(base, name) and "forward_mode" in inspect.signature(getattr(base, name)).parameters:
            namespace[name] = graph_method(name)
    return type("PatchkitOneToken" + base.__name__, (base,), namespace)
