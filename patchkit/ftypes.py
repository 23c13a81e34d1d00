"""patchkit's shared value types: every error a user can see (``PatchkitError`` and its
subclasses), targets (``Target``), anchors (``Anchor``), patch outcomes (``Outcome``,
``FileChange``, ``PatchResult``) and analyzer findings (``Finding``, ``FileReport``).

Errors are exceptions with a one-line message that names the file, class, anchor or flag;
the CLI prints ``str(error)`` and exits with ``error.exit_code``. Every value here is plain data:
nothing in this module reads a file or imports another patchkit module.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional


# ---------------------------------------------------------------------------- errors
class PatchkitError(Exception):
    """Base of every error patchkit reports to a user. ``str()`` is one line."""

    exit_code = 2

    def __str__(self) -> str:  # one line, always
        return " ".join(str(self.args[0]).split()) if self.args else self.__class__.__name__


class UsageError(PatchkitError):
    """Bad arguments or configuration."""


class TargetNotFound(PatchkitError):
    """The target distribution, folder or release is not there."""


class FetchError(PatchkitError):
    """A release could not be fetched from the package registry."""


class UnknownPatch(PatchkitError):
    """No patch of that name is registered."""


class VersionOutOfRange(PatchkitError):
    """The target version is outside the patch's declared range."""

    exit_code = 1


class Refused(VersionOutOfRange):
    """A patch's strategy selection refuses this target with a precise reason (not a drift).

    A patch raises ``Refused(reason)``; the engine re-raises it naming the patch and target
    (``str()``), and ``reason`` keeps the patch's own words for tables such as ``matrix``."""

    def __init__(self, reason: str, message: Optional[str] = None):
        super().__init__(message if message is not None else reason)
        #: the patch's own words, without the patch and target the engine adds
        self.reason = reason

    def __reduce__(self):  # picklable (worker processes) with both fields
        return (type(self), (self.reason, self.args[0] if self.args else self.reason))


class AnchorNotFound(PatchkitError):
    """An anchor (module -> class -> method -> statement) is missing: upstream drifted."""

    exit_code = 1


class TargetSyntaxError(PatchkitError):
    """The target file does not parse."""


class NotWritable(PatchkitError):
    """The target file or its folder cannot be written."""


class DriftError(PatchkitError):
    """The file on disk is not what the journal says patchkit wrote."""

    exit_code = 1


class ConflictError(PatchkitError):
    """Two patches touch the same anchor."""

    exit_code = 1


class JournalError(PatchkitError):
    """The journal is missing, unreadable or belongs to another target/version."""


class LockError(PatchkitError):
    """Another patchkit process holds the target's lock."""


class CheckFailed(PatchkitError):
    """The patched result failed a registered check; nothing was written."""

    exit_code = 1


class WriteFailed(PatchkitError, OSError):
    """A write into the target failed (I/O error); what was already written was rolled back or is
    rolled back by the next command. Also an OSError, so callers that catch OSError still do."""


class DiskFull(WriteFailed):
    """No space left on the device (ENOSPC / EDQUOT) while writing."""


class OutsideTarget(PatchkitError):
    """A path patchkit would write, restore or read from its state folder leaves the target root
    (``..``, an absolute path, a symlink in ``.patchkit/``)."""


class RecoveryError(JournalError):
    """An interrupted apply/revert could not be finished or rolled back without a human."""


class SourceEncodingError(PatchkitError):
    """A target source file is not plain UTF-8 (another coding cookie, a byte-order mark, bad bytes)."""


class FileTooLarge(PatchkitError):
    """A target file is over the size limit patchkit parses (``PATCHKIT_MAX_FILE_BYTES``)."""


class PluginError(PatchkitError):
    """A patch module from ``PATCHKIT_PATCH_PATH`` failed to import."""


class SignoffError(PatchkitError):
    """A sign-off record is malformed (schema), inconsistent, or its signature does not verify."""


@dataclass(frozen=True)
class Recovery:
    """What a command did about an interrupted apply/revert it found before doing anything else.
    ``str()`` is the one line the CLI prints after ``recovered:``."""

    #: "apply" or "revert": the interrupted operation
    op: str
    patch: str
    #: "rolled back" (apply) or "finished" (revert, or an apply whose journal was already written)
    action: str
    #: files whose bytes recovery restored or removed
    files: tuple[str, ...] = ()

    def __str__(self) -> str:
        n = len(self.files)
        verb = "restored" if self.action == "rolled back" or self.op == "revert" else "checked"
        return f"{self.action} an interrupted {self.op} of {self.patch} ({n} file{'s' if n != 1 else ''} {verb})"


# ---------------------------------------------------------------------------- targets
class TargetKind(str, enum.Enum):
    INSTALLED = "installed"
    DIRECTORY = "directory"
    RELEASE = "release"


@dataclass(frozen=True)
class Target:
    """A place holding a package to patch: ``root`` is the folder that contains ``sglang/``."""

    #: distribution name, e.g. ``sglang``
    distribution: str
    #: the distribution's version as a string (``0.5.12``)
    version: str
    #: folder holding the import package (site-packages, an unpacked wheel, ...)
    root: Path
    kind: TargetKind

    def file(self, rel: str) -> Path:
        return self.root / rel

    def describe(self) -> str:
        return f"{self.distribution} {self.version} ({self.kind.value}: {self.root})"


# ---------------------------------------------------------------------------- anchors
@dataclass(frozen=True)
class Anchor:
    """A qualified place in a module: file -> class -> method (-> statement shape)."""

    #: path of the module file relative to the target root
    file: str
    #: class name; required: there is no "first class in the file"
    cls: str
    #: method name within that class, or None for the class body itself
    method: Optional[str] = None
    #: human text of the statement shape searched for, if any
    shape: Optional[str] = None

    def __str__(self) -> str:
        s = f"{self.file}::{self.cls}"
        if self.method:
            s += f".{self.method}"
        if self.shape:
            s += f" [{self.shape}]"
        return s

    @property
    def key(self) -> str:
        """What two patches must not both touch: the qualified method (or class). The journal
        stores this string; ``Anchor.from_key`` turns it back into a value."""
        return f"{self.file}::{self.cls}.{self.method or ''}"

    @classmethod
    def from_key(cls, key: str) -> "Anchor":
        """The anchor (file, class, method) that ``key`` names; the inverse of ``Anchor.key``."""
        file, _, qual = key.partition("::")
        klass, _, method = qual.partition(".")
        return cls(file, klass, method or None)


# ---------------------------------------------------------------------------- outcomes
class Outcome(str, enum.Enum):
    APPLIED = "applied"
    WOULD_APPLY = "would-apply"
    ALREADY_APPLIED = "already-applied"
    REVERTED = "reverted"
    NOT_APPLIED = "not-applied"


@dataclass(frozen=True)
class FileChange:
    """The result of transforming one file (not yet written)."""

    rel: str
    before: str
    after: str
    anchors: tuple[Anchor, ...] = ()
    #: the patch creates this file (absent before; revert removes it)
    created: bool = False

    @property
    def changed(self) -> bool:
        return self.created or self.before != self.after


@dataclass(frozen=True)
class PatchResult:
    """One patch against one target: what happened and why."""

    patch: str
    outcome: Outcome
    reason: str = ""
    strategy: str = ""
    changes: tuple[FileChange, ...] = ()
    error: Optional[str] = None
    #: an interrupted operation this command finished or rolled back before it started
    recovered: Optional["Recovery"] = None

    @property
    def pending(self) -> bool:
        return any(c.changed for c in self.changes)


# ---------------------------------------------------------------------------- findings
class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Finding:
    """One analyzer report. ``str()`` reads ``path:line:col: CODE message``."""

    path: str
    line: int
    col: int
    code: str
    message: str
    cls: str = ""
    attr: str = ""
    severity: Severity = Severity.ERROR
    #: where construction misses the value ("the path where X is false (line 12)")
    why: str = ""
    #: e.g. "assigned in EagleDraftWorker.__init__ at line 181, a different class"
    hint: str = ""
    #: the other classes whose instances make the same read fail (a base's method inherited by
    #: several subclasses is reported once, for the first of them)
    also: tuple = ()

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"
        if self.why:
            text += f": {self.why}"
        if self.hint:
            text += f" ({self.hint})"
        return text

    def to_dict(self) -> dict:
        return {
            "path": self.path, "line": self.line, "col": self.col, "code": self.code,
            "message": self.message, "class": self.cls, "attribute": self.attr,
            "severity": self.severity.value, "why": self.why, "hint": self.hint, "also_in": list(self.also),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Finding":
        """The Finding that ``to_dict`` wrote (cache files, JSON reports); ``why``/``hint`` may be absent."""
        return cls(d["path"], d["line"], d["col"], d["code"], d["message"], d["class"], d["attribute"],
                   Severity(d["severity"]), d.get("why", ""), d.get("hint", ""), tuple(d.get("also_in", ())))


@dataclass
class FileReport:
    """Analyzer outcome for one file: findings, or the error that stopped it."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
    cached: bool = False
