"""The tree-wide class index: for each file of a top-level package, the identifiers its class
headers name as bases. It finds the candidate files for "who subclasses X" without parsing the
whole tree. Computed once per (root, package) and kept on disk, keyed by every file's size and
mtime, so the workers of one run (and later runs) share it."""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

from ..fsutil import atomic_write, cache_dir
from .fastre import Bounded

_HEADER = re.compile(r"^[ \t]*class[ \t]+\w+[ \t]*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.M)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_AS_TARGET = re.compile(r"\sas\s+([A-Za-z_]\w*)")
#: text that says a module is written to be compiled by ``torch.jit.script`` (not traced: tracing
#: records the branch taken), and the index's token for such a file
_SCRIPT_WORDS = frozenset({"script", "is_scripting", "Final", "ignore", "unused", "export", "_overload_method",
                           "_overload", "interface"})
_WORD = re.compile(r"\w+")


def mentions_torchscript(text: str) -> bool:
    """``text`` uses a scripting-only feature: ``jit.<one of _SCRIPT_WORDS>``, ``__constants__``,
    ``jittable``, ``from torch.jit import``. A scan for ``jit.`` rather than a regex over the whole
    text: SGLang and vLLM write ``@triton.jit`` in hundreds of modules."""
    if "__constants__" in text or "jittable" in text or "from torch.jit import" in text:
        return True
    i = text.find("jit.")
    while i != -1:
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            m = _WORD.match(text, i + 4)
            if m is not None and m.group(0) in _SCRIPT_WORDS:
                return True
        i = text.find("jit.", i + 4)
    return False


TORCHSCRIPT_TOKEN = "<torchscript>"
#: the on-disk format: part of the file name, so an index written by another version is not read
FORMAT = "3"
#: (root, package) -> (signature, tokens, when checked); within FRESH_S seconds the same process
#: trusts it without looking at the files again
_MEM: dict[tuple, tuple[str, dict, float]] = {}
FRESH_S = 30.0


def imported_as(text: str, alias: str) -> list[str]:
    """The names ``text`` imports under ``alias`` (``from m import Base as _B``, also inside a
    parenthesised list); not ``except Error as _B`` or ``with lock as _B``."""
    return re.findall(r"(?:\bimport|,|\()\s*([A-Za-z_]\w*)\s+as\s+%s\b" % alias, text)


def tokens_of(text: str) -> list[str]:
    """Identifiers named in the base lists of the class headers of ``text``, with the name each
    one aliases in an import (``from m import Base as _Base``: plotly's ``class Frame(_BaseFrameHierarchyType)``
    subclasses ``BaseFrameHierarchyType``), and TORCHSCRIPT_TOKEN when the text mentions TorchScript."""
    out: set[str] = set()
    for mt in _headers(text):
        out.update(_IDENT.findall(mt.group(1)))
    if out and " as" in text:
        for alias in out & _as_targets(text):
            out.update(name for name in imported_as(text, alias) if name != alias)
    if ("jit" in text or "__constants__" in text) and mentions_torchscript(text):
        out.add(TORCHSCRIPT_TOKEN)
    return sorted(out)


#: _HEADER from its literal ``class`` (fastre.Bounded): a regex anchored at ``^`` costs a try per character
_HEADER_FROM_CLASS = Bounded(_HEADER.pattern.removeprefix("^[ \\t]*"), line_start=True)
#: _AS_TARGET from its literal ``as``, kept where a blank precedes it
_AS_FROM_WORD = Bounded(_AS_TARGET.pattern.removeprefix("\\s"), before=lambda t, i: i > 0 and t[i - 1].isspace())


def _headers(text: str) -> list:
    """``_HEADER.finditer(text)``: each match from its line's start, found from its ``class``."""
    return [_HEADER.match(text, text.rfind("\n", 0, m.start()) + 1) for m in _HEADER_FROM_CLASS.finditer(text)]


def _as_targets(text: str) -> set[str]:
    """``set(_AS_TARGET.findall(text))``."""
    return set(_AS_FROM_WORD.findall(text))


def _files(root: Path, top: str) -> list[tuple[str, int, int]]:
    base = root / top
    out = []
    if not base.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if f.endswith(".py"):
                p = os.path.join(dirpath, f)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                out.append((Path(p).relative_to(root).as_posix(), st.st_size, st.st_mtime_ns))
    return out


def header_tokens(root: Path, top: str) -> dict[str, list[str]]:
    """rel path -> base identifiers of its class headers, for every file under ``root/top``."""
    key = (str(root), top)
    hit = _MEM.get(key)
    if hit is not None and time.monotonic() - hit[2] < FRESH_S:
        return hit[1]  # one command's files do not change under it
    files = _files(root, top)
    sig = hashlib.sha256("\n".join(f"{r} {s} {m}" for r, s, m in files).encode()).hexdigest()
    if hit is not None and hit[0] == sig:
        _MEM[key] = (sig, hit[1], time.monotonic())
        return hit[1]
    path = cache_dir() / "classindex" / (hashlib.sha256(f"{root}\0{top}\0{FORMAT}".encode()).hexdigest()[:24] + ".json")
    try:
        doc = json.loads(path.read_bytes())
        if doc.get("sig") == sig and isinstance(doc.get("tokens"), dict):
            _MEM[key] = (sig, doc["tokens"], time.monotonic())
            return doc["tokens"]
    except (OSError, ValueError):
        pass
    tokens: dict[str, list[str]] = {}
    for rel, _s, _m in files:
        try:
            text = (root / rel).read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            continue
        t = tokens_of(text)
        if t:
            tokens[rel] = t
    _MEM[key] = (sig, tokens, time.monotonic())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"sig": sig, "tokens": tokens}).encode(), mode=0o600, durable=False)
    except OSError:
        pass  # an index that cannot be kept only costs the next process time
    return tokens
