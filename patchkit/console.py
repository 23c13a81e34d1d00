"""Rich output set up in one place (the doc2dash ``output.py`` idea): one console for results on
stdout, one for messages on stderr, both following ``--color`` and ``-q`` / ``-v``.

``--color auto`` (the default) colours a terminal only, and honours ``NO_COLOR`` /
``FORCE_COLOR``; ``always`` and ``never`` override both. Only this module and cli.py import rich.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Optional

from rich.console import Console
from rich.text import Text


@dataclass
class Ui:
    #: auto | always | never
    color: str = "auto"
    #: -1 quiet (results and errors only), 0 normal, 1+ verbose (pip's own output, timings)
    verbosity: int = 0
    #: set by commands with --json / --format json|sarif: errors are also written to stdout as JSON
    json: bool = False
    out: Console = field(init=False)
    err: Console = field(init=False)

    def __post_init__(self) -> None:
        self.configure()

    def configure(self, color: Optional[str] = None, verbosity: Optional[int] = None) -> None:
        if color is not None:
            self.color = color
        if verbosity is not None:
            self.verbosity = verbosity
        self.out = _console(sys.stdout, self.color, stderr=False)
        self.err = _console(sys.stderr, self.color, stderr=True)

    @property
    def quiet(self) -> bool:
        return self.verbosity < 0

    @property
    def verbose(self) -> bool:
        return self.verbosity > 0

    def info(self, text: str) -> None:
        """A progress or summary line on stderr; hidden by -q."""
        if not self.quiet:
            self.err.print(Text(text, style="dim"))

    def pip_output(self):
        """Where pip's own download output goes: stderr with -v, else captured (never shown)."""
        return sys.stderr if self.verbose else None


def _console(stream, color: str, stderr: bool) -> Console:
    tty = stream.isatty()
    force: Optional[bool] = None
    no_color = False
    if color == "always":
        force = True
    elif color == "never":
        no_color = True
    else:  # auto: rich already follows NO_COLOR / FORCE_COLOR / TTY
        no_color = bool(os.environ.get("NO_COLOR")) and not os.environ.get("FORCE_COLOR")
    # piped output (CI logs, `| less`) gets a wide table instead of rich's 80-column default
    width = None if tty else 160
    return Console(stderr=stderr, highlight=False, soft_wrap=True, width=width,
                   force_terminal=force, no_color=no_color, color_system=None if no_color else "auto")


SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "blue", "code": "bold"}


def styled_line(line: str, spans: list[tuple[int, int, str]]) -> Text:
    """``line`` with each (start, end, kind) span styled (severity words, codes, carets)."""
    t = Text(line)
    for a, b, kind in spans:
        t.stylize(SEVERITY_STYLE.get(kind, kind), a, b)
    return t


UI = Ui()
