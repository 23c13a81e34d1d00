"""The smoke spec a patch declares (``Patch.smoke``): how to launch a server with the patch's
feature, what its log lines look like, which stages prove it, and its default configuration
matrix. ``patchkit/smoke`` reads only this; nothing in it knows a particular patch."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

#: the stages a cell can run, in the order they run (a spec picks a subset)
ALL_STAGES = ("ready", "first-decode", "threshold-crossings", "sampled-decode", "request-kinds",
              "resume-equivalence", "resume-acceptance", "greedy-equivalence", "soak", "log-scan",
              "forced-acceptance")

#: the single-configuration sequence of sign-off 1.x (``Smoke`` without a matrix)
LEGACY_STAGES = ("ready", "first-decode", "threshold-crossings", "sampled-decode", "greedy-equivalence", "log-scan")


@dataclass(frozen=True)
class LogPatterns:
    """Regular expressions for the patch's own log lines."""

    #: the feature is armed (one line at start-up)
    ready: str
    #: one switch; the named group ``mode`` is ``off`` (speculation disabled) or anything else
    switch: str
    #: the value of ``mode`` that means "speculation switched off"
    off: str = "OFF"
    #: a clean start-up refusal of an unsupported combination (checked when a cell expects one)
    refused: str = ""
    #: name -> regex with one group, read from the ready line (recorded in the sign-off)
    fields: tuple[tuple[str, str], ...] = ()
    #: (regex with one group on the switch lines: a running count of the prompts the patch admitted
    #: on its disabled path, ready-line field, regex on its value): where the field matches, a
    #: request the resume-equivalence stage submits while off counts only once that count has grown
    admitted_off: tuple[str, str, str] = ()

    def compiled(self) -> dict[str, re.Pattern]:
        return {"ready": re.compile(self.ready), "switch": re.compile(self.switch),
                "refused": re.compile(self.refused) if self.refused else None,
                **{f"field:{k}": re.compile(v) for k, v in self.fields}}


@dataclass(frozen=True)
class Algorithm:
    """A candidate value of the algorithm axis."""

    #: value of ``--speculative-algorithm``
    name: str
    #: the ``SpeculativeAlgorithm`` predicate whose branch of the release's worker factory picks the
    #: worker class (``is_eagle``, ``is_standalone``): the axis keeps the algorithm only when that
    #: class is the patched class or inherits it
    predicate: str
    #: launch arguments; ``{target}``, ``{draft}``, ``{eagle_draft}`` name the model folders
    args: tuple[str, ...]


@dataclass(frozen=True)
class Axis:
    """One option of the matrix: label -> the launch arguments that select it."""

    name: str
    values: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.values)

    def args(self, label: str) -> tuple[str, ...]:
        return dict(self.values)[label]


@dataclass(frozen=True)
class Refusal:
    """A combination the patch must refuse at start-up when its flag is set: such cells only prove
    the refusal. ``when(cell, facts) -> reason or None``; ``facts`` are read from the release."""

    description: str
    when: Callable[[dict, dict], Optional[str]]


@dataclass(frozen=True)
class Exclusion:
    """A combination that is not a configuration (never a cell): the release itself refuses it,
    whatever the patch, or an option does nothing there."""

    description: str
    when: Callable[[dict, dict], Optional[str]]


@dataclass(frozen=True)
class SmokeSpec:
    """What ``patchkit smoke`` needs to know about a patch."""

    #: patch name (records, messages)
    patch: str
    #: (file, class) the patch changes; the algorithm axis follows its subclasses
    patched_class: tuple[str, str]
    #: the release file holding the worker factory (``create_worker``), read with ``ast``
    factory_file: str
    #: the algorithm axis candidates (the spec lists them; the release decides which stay)
    algorithms: tuple[Algorithm, ...]
    #: further axes (overlap, CUDA graphs, ...); the flag axis is added from ``flag_args``
    axes: tuple[Axis, ...]
    #: arguments that turn the feature on; ``{threshold}`` is the batch-size threshold
    flag_args: tuple[str, ...]
    #: arguments every server of a cell gets (speculative or not): tiny-model launch flags etc.
    base_args: tuple[str, ...] = ()
    #: arguments every speculative server gets unless the cell sets them (steps, topk, draft tokens)
    spec_args: tuple[str, ...] = ()
    #: option prefixes dropped for the speculation-off reference server
    reference_drop: tuple[str, ...] = ("--speculative-",)
    #: options that change the numbers a server computes: a matrix cell that sets one of them gets a
    #: speculation-off reference with the same value (a bf16 reference for an fp16 cell differs at
    #: token 0; one for an fp8-KV cell turns quantisation noise into "divergences")
    reference_keep: tuple[str, ...] = ("--dtype", "--kv-cache-dtype", "--quantization", "--attention-backend",
                                       "--prefill-attention-backend", "--decode-attention-backend")
    #: options without a value (for parsing launch commands)
    bool_options: tuple[str, ...] = ()
    patterns: LogPatterns = field(default_factory=lambda: LogPatterns(ready="$^", switch="$^"))
    stages: tuple[str, ...] = ALL_STAGES
    #: the patch's own stages: (name, fn(ctx) -> detail, raising StageFailed); name one in ``stages``
    #: to run it (a new stage needs only the spec's file)
    own_stages: tuple[tuple[str, Callable], ...] = ()
    #: SGLang's own checkers: env var -> value, set when the release's source names the variable
    checker_env: tuple[tuple[str, str], ...] = ()
    #: the forced-acceptance pass (outputs not compared)
    forced_acceptance_env: tuple[tuple[str, str], ...] = ()
    refusals: tuple[Refusal, ...] = ()
    exclusions: tuple[Exclusion, ...] = ()
    #: facts read from the release source for ``Refusal.when`` / ``Exclusion.when``:
    #: name -> fn(reader) -> value (``reader(rel) -> text or None``)
    facts: tuple[tuple[str, Callable], ...] = ()
    threshold: int = 4
    #: the options that make two launches different configurations (``patchkit launch`` matches
    #: them against the sign-off's cells); empty: every option an axis names
    match: tuple[str, ...] = ()
    #: option -> the value SGLang uses when it is absent (an explicit default is the same launch)
    option_defaults: tuple[tuple[str, str], ...] = ()
    #: options that do nothing without the feature's flag: a launch without the flag matches the
    #: sign-off's cells whatever it gives them
    flag_only: tuple[str, ...] = ()

    @property
    def flag_axis(self) -> Axis:
        return Axis("flag", (("on", self.flag_args), ("off", ())))

    def flag_option(self) -> str:
        return self.flag_args[0] if self.flag_args else ""


def spec_of(patch) -> Optional[SmokeSpec]:
    """``patch.smoke``, else ``SPEC`` of a ``smoke_spec`` module beside the module that defines the
    patch's ``select`` (a patch folder declares its spec in ``smoke_spec.py``), else None."""
    import importlib
    import sys
    got = getattr(patch, "smoke", None)
    if got is not None:
        return got
    mod = getattr(patch.select, "__module__", None) or ""
    pkg = sys.modules.get(mod)
    if pkg is None:
        return None
    name = mod if hasattr(pkg, "__path__") else mod.rpartition(".")[0]
    if not name:
        return None
    try:
        return getattr(importlib.import_module(f"{name}.smoke_spec"), "SPEC", None)
    except ImportError:
        return None


def for_patch_names(names: list[str]) -> Optional[SmokeSpec]:
    """The spec of the first named (journalled) patch that declares one."""
    from .. import registry
    known = registry.patches()
    for n in names:
        p = known.get(n)
        if p is not None and spec_of(p) is not None:
            return spec_of(p)
    return None


def default() -> SmokeSpec:
    """The spec when none is named: the only built-in patch that declares one."""
    import os
    from .. import registry
    from ..ftypes import UsageError
    saved = os.environ.pop("PATCHKIT_PATCH_PATH", None)  # user and fixture patches reuse a base's spec
    try:
        specs = {id(s): s for s in (spec_of(p) for p in registry.patches().values()) if s is not None}
    finally:
        if saved is not None:
            os.environ["PATCHKIT_PATCH_PATH"] = saved
    if len(specs) != 1:
        raise UsageError(f"{len(specs)} built-in patches declare a smoke spec; name the patch (--patch)")
    return next(iter(specs.values()))


def for_target(target) -> SmokeSpec:
    """The spec of a patch journalled on ``target``, else ``default()``."""
    from .. import journal as jr
    from ..ftypes import JournalError
    try:
        names = [e.patch for e in jr.load(target).entries]
    except (JournalError, OSError):
        names = []
    return for_patch_names(names) or default()
