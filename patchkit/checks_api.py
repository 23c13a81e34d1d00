"""What a check is: a name, a function over one module in its tree, its own examples, the rules
(codes) it reports and, optionally, a faster runner over whole files (caching, one pass per package).

A check lives in one module: ``checks/<name>.py`` (built in) or a folder on ``PATCHKIT_CHECK_PATH``,
exposing ``CHECK``; every consumer (``patchkit check``, ``--patchkit-check``, the gate's analyzer
stage, ``apply``) runs it through ``patchkit.checking``."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from .ftypes import FileReport, Finding

#: (relative path, source text, root folder for resolving imports, overlay {rel: text})
CheckFn = Callable[[str, str, Optional[Path], Mapping[str, str]], list[Finding]]
#: (files, analyzer settings, use the cache) -> one FileReport per file, in order
FilesFn = Callable[[Sequence[Path], object, bool], list[FileReport]]


@dataclass(frozen=True)
class Example:
    """A valid (no finding) or invalid (findings with these codes/attrs) example of a check."""

    name: str
    source: str
    #: expected (code, attribute) pairs; empty for a valid example
    expect: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Check:
    name: str
    description: str
    run: CheckFn
    valid: tuple[Example, ...] = field(default=())
    invalid: tuple[Example, ...] = field(default=())
    #: the codes it reports (patchkit.rules.Rule): ``explain``, ``--select`` and SARIF know them
    rules: tuple = field(default=())
    #: a runner over whole files; None: ``run`` on each file's text (patchkit.checking.analyse)
    files: Optional[FilesFn] = None
