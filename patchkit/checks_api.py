"""What a check is: a name, a function over one module in its tree, and its own examples."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

from .ftypes import Finding

#: (relative path, source text, root folder for resolving imports, overlay {rel: text})
CheckFn = Callable[[str, str, Optional[Path], Mapping[str, str]], list[Finding]]


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
