"""Read a server log: tracebacks, errors, and the patch's switch lines."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SWITCH = re.compile(r"patchkit-spec-disable: (OFF|ON) batch_size=(\d+) threshold=(\d+) switches=(\d+)")
READY = re.compile(r"patchkit-spec-disable: ready threshold=(\d+)")
DECODE_ATTENTION = re.compile(r"decode_attention=(\[[^\]]*\]|None)")
ERROR = re.compile(r"(Traceback \(most recent call last\)|\bERROR\b|CUDA error|Segmentation fault|core dumped|"
                   r"AssertionError|AttributeError|RuntimeError)")
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
IGNORED = ("WARNING", "warn(")


@dataclass
class LogReport:
    switches_off: int = 0
    switches_on: int = 0
    ready: bool = False
    #: from the ready line (patch 1.1.0+): whether the zero-step state's backends (target verify,
    #: draft extend) run one-token steps on the decode kernel; "" when the line does not say
    decode_attention: str = ""
    errors: list[str] = field(default_factory=list)
    #: last exception line ("AttributeError: ...") and the innermost frame of the first traceback
    exception: str = ""
    location: str = ""


def scan(text: str) -> LogReport:
    rep = LogReport()
    lines = text.splitlines()
    in_tb = False
    frames: list[str] = []
    for ln in lines:
        m = SWITCH.search(ln)
        if m:
            if m.group(1) == "OFF":
                rep.switches_off += 1
            else:
                rep.switches_on += 1
            continue
        if READY.search(ln):
            rep.ready = True
            da = DECODE_ATTENTION.search(ln)
            if da:
                rep.decode_attention = da.group(1)
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
