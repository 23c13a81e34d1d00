"""Regular expressions that must not start with a look-behind or ``\\b``.

CPython's ``re`` finds a pattern that starts with literal text by a fast substring search; a
leading ``\\b``, ``(?<!\\w)`` or ``^[ \\t]*`` (multi-line) makes it try the whole pattern at every
position instead, 20x slower on a 40 MB tree (SGLang: 0.7 s per pattern and pass). ``Bounded``
searches the literal-first body and checks the boundary by hand, with the same matches as the
look-behind form: a rejected candidate restarts the search one character later."""
from __future__ import annotations

import re
from typing import Callable, Iterator, Optional

WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_WORD_CHAR = re.compile(r"\w")


def word_boundary(text: str, at: int) -> bool:
    """``\\b`` holds before the word character at ``at``: what ``re`` itself decides (Unicode
    word characters included, unlike ``not_after=WORD``)."""
    return at == 0 or _WORD_CHAR.match(text, at - 1) is None


def indented_line_start(text: str, at: int) -> bool:
    """``^[ \\t]+`` (multi-line) ends at ``at``: one blank or more back to the start of a line."""
    i = at
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i < at and (i == 0 or text[i - 1] == "\n")


def called_at(text: str, at: int) -> bool:
    """``(?<![\\w.])(?<!class )`` holds at ``at``: a call of a bare name, not its class statement."""
    return not (at > 0 and (text[at - 1] == "." or _WORD_CHAR.match(text, at - 1) is not None)) and \
        not text.endswith("class ", 0, at)


class Bounded:
    """``body`` (a pattern) preceded by none of the characters ``not_after`` (``\\b`` before a
    word: the word characters), or with ``line_start``, by nothing but blanks back to the start of
    its line (``^[ \\t]*`` under ``re.M``), or where ``before(text, start)`` holds (any other
    look-behind: ``\\s`` before ``as``, ``[(,]\\s*`` before ``self``)."""

    def __init__(self, body: str, not_after: frozenset = WORD, line_start: bool = False, flags: int = 0,
                 before: Optional[Callable[[str, int], bool]] = None):
        self.pattern = re.compile(body, flags)
        self.not_after = not_after
        self.line_start = line_start
        self.before = before

    def _ok(self, text: str, start: int) -> bool:
        if self.before is not None:
            return self.before(text, start)
        if self.line_start:
            i = start
            while i > 0 and text[i - 1] in " \t":
                i -= 1
            return i == 0 or text[i - 1] == "\n"
        return start == 0 or text[start - 1] not in self.not_after

    def finditer(self, text: str) -> Iterator[re.Match]:
        pos, n = 0, len(text)
        while pos <= n:
            m = self.pattern.search(text, pos)
            if m is None:
                return
            if not self._ok(text, m.start()):
                pos = m.start() + 1
                continue
            yield m
            pos = m.end() if m.end() > m.start() else m.end() + 1

    def search(self, text: str) -> Optional[re.Match]:
        return next(self.finditer(text), None)

    def findall(self, text: str) -> list:
        """Group 1 of each match when the body has a group, else the whole match."""
        g = 1 if self.pattern.groups else 0
        return [m.group(g) for m in self.finditer(text)]


#: the left side of an assignment to several targets, matched at a line's start (``a.x, b.y = ...``)
_TUPLE_LHS = re.compile(r"[ \t]*([\w.\[\]()* \t]*,[\w.,\[\]()* \t]*?)=(?!=)")
_DOTTED_NAME = re.compile(r"\.[ \t]*([A-Za-z_]\w*)")


def tuple_target_names(text: str) -> set:
    """Attribute names stored by assignments to several targets (``obj._p, obj._g = p, g``): a
    superset (a call's keyword argument can look like one), for a prefilter the AST then settles.
    Line by line: the pattern anchored at every line start of a multi-line search is ten times
    slower (2.2 s against 0.23 s over SGLang's srt)."""
    out: set = set()
    if "," not in text:
        return out
    for line in text.splitlines():
        if "," in line and "=" in line and "." in line:
            m = _TUPLE_LHS.match(line)
            if m:
                out.update(_DOTTED_NAME.findall(m.group(1)))
    return out
