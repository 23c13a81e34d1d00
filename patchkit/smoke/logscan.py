"""Read a server log: tracebacks, errors, and the patch's own lines (ready, switches, refusals) as
its smoke spec describes them."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from .spec import LogPatterns

ERROR = re.compile(r"(Traceback \(most recent call last\)|\bERROR\b|CUDA error|Segmentation fault|core dumped|"
                   r"AssertionError|AttributeError|RuntimeError)")
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
IGNORED = ("WARNING", "warn(")
KV_CHECK = "patchkit-kv-check: "
KV_STATE = re.compile(r"patchkit-kv-check: (armed|disabled \(.*\))")


@dataclass
class LogReport:
    switches_off: int = 0
    switches_on: int = 0
    ready: bool = False
    #: from the ready line (patch 1.1.0+): whether the zero-step state's backends (target verify,
    #: draft extend) run one-token steps on the decode kernel; "" when the line does not say
    decode_attention: str = ""
    #: every field the spec reads from the ready line
    fields: dict = field(default_factory=dict)
    #: the patch's start-up refusal line, if any
    refused: str = ""
    errors: list[str] = field(default_factory=list)
    #: last exception line ("AttributeError: ...") and the innermost frame of the first traceback
    exception: str = ""
    location: str = ""
    #: the smoke servers' KV-allocation check (serverhooks/_pk_kvcheck.py): "armed", "disabled (why)"
    #: or "" (not armed: no speculative decode step of the spec-v2 family ran, or the check is off)
    kv_check: str = ""


_DEFAULT: Optional[LogPatterns] = None


def _default_patterns() -> LogPatterns:
    global _DEFAULT
    if _DEFAULT is None:
        from .spec import default
        _DEFAULT = default().patterns
    return _DEFAULT


def switched_off(m: re.Match, off: str) -> bool:
    """Whether a match of the spec's switch pattern is a switch to OFF (its ``mode`` group, else its
    first group, equals ``off``; a pattern without groups matches OFF lines only)."""
    return m.groupdict().get("mode", m.group(1) if m.groups() else off) == off


def scan(text: str, patterns: Optional[LogPatterns] = None) -> LogReport:
    """The report of a server log under ``patterns`` (default: the registered patch's spec)."""
    pats = (patterns or _default_patterns()).compiled()
    off = (patterns or _default_patterns()).off
    rep = LogReport()
    in_tb = False
    frames: list[str] = []
    for ln in text.splitlines():
        if KV_CHECK in ln and not rep.kv_check:
            km = KV_STATE.search(ln)
            if km:
                rep.kv_check = km.group(1)
        if KV_CHECK in ln and "disabled (" in ln:
            continue  # the check went away on a release whose names it cannot read: said, not an error
        m = pats["switch"].search(ln)
        if m:
            if switched_off(m, off):
                rep.switches_off += 1
            else:
                rep.switches_on += 1
            continue
        if pats["ready"].search(ln):
            rep.ready = True
            for key, rx in pats.items():
                if key.startswith("field:"):
                    fm = rx.search(ln)
                    if fm:
                        rep.fields[key[6:]] = fm.group(1)
            rep.decode_attention = rep.fields.get("decode_attention", "")
        if pats["refused"] is not None and not rep.refused and pats["refused"].search(ln):
            rep.refused = ln.strip()[:300]
        if "Traceback (most recent call last)" in ln:
            in_tb = True
            frames = []
            rep.errors.append(ln.strip())
            continue
        if in_tb:
            fm = FRAME.search(ln)
            if fm:
                frames.append(f"{fm.group(1)}:{fm.group(2)} in {fm.group(3)}")
                continue
            if re.match(r"^\s*\w+(\.\w+)*(Error|Exception|Exit|Interrupt)\b", ln) or re.match(r"^\w+Error:", ln.strip()):
                if not rep.exception:
                    rep.exception = ln.strip()
                    rep.location = frames[-1] if frames else ""
                in_tb = False
            continue
        if ERROR.search(ln) and not any(i in ln for i in IGNORED):
            rep.errors.append(ln.strip()[:300])
    return rep


class SwitchTail:
    """The switch lines of a growing server log, read incrementally (polling loops: ``scan`` of a
    long log costs most of a second, longer than a burst above the threshold lasts on a fast GPU).
    ``poll()`` -> self, with ``off``, ``on`` and ``admitted_off`` (the last value of the spec's
    ``admitted_off`` counter, -1 before any) up to date."""

    def __init__(self, path, patterns: LogPatterns):
        self.path, self.pos, self.rest = path, 0, ""
        self.switch = re.compile(patterns.switch)
        self.off_word = patterns.off
        self.counter = re.compile(patterns.admitted_off[0]) if patterns.admitted_off else None
        self.off = self.on = 0
        self.admitted_off = -1

    @property
    def disabled(self) -> bool:
        return self.off > self.on

    def poll(self) -> "SwitchTail":
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.pos)
                data = fh.read()
        except OSError:
            return self
        self.pos += len(data)
        lines = (self.rest + data.decode("utf-8", "replace")).split("\n")
        self.rest = lines.pop()  # a line still being written
        for ln in lines:
            m = self.switch.search(ln)
            if not m:
                continue
            if switched_off(m, self.off_word):
                self.off += 1
            else:
                self.on += 1
            c = self.counter.search(ln) if self.counter else None
            if c:
                self.admitted_off = int(c.group(1))
        return self
