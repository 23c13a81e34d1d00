"""``[tool.patchkit]`` in the nearest pyproject.toml (walking upward); an explicit path wins.

Every problem with the configuration is a ConfigError: one line naming the file and the key,
exit code 2 (could not run), like any other usage error. A misspelled key names the nearest
valid one.
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Optional

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from .analysis.settings import Settings
from .ftypes import UsageError


class ConfigError(UsageError):
    """The configuration file is missing, unreadable, or holds an unknown key or a wrong value."""


#: key -> (python type(s), what a valid value looks like)
KEYS: dict[str, tuple[Any, str]] = {
    "unknown-bases": (str, "'quiet' or 'strict'"),
    "strict-two-phase": (bool, "true or false"),
    "initializers": (list, "a list of method names"),
    "show-info": (bool, "true or false"),
    "fail-on": (str, "'error' or 'warning'"),
    "select": (list, "a list of codes or prefixes, e.g. [\"PK001\", \"PK00\"]"),
    "ignore": (list, "a list of codes or prefixes"),
    "exclude": (list, "a list of glob patterns"),
    "patches": (list, "a list of patch names"),
    "checks": (list, "a list of check names (default: every registered check)"),
    "versions": ((list, str), "a list of release numbers, or \"installed\""),
    "smoke": (dict, "a table ([tool.patchkit.smoke]: the smoke matrix, see patchkit/smoke/command.py)"),
}
CHOICES = {"unknown-bases": ("quiet", "strict"), "fail-on": ("error", "warning")}


def locate(start: Path) -> Optional[Path]:
    d = start.resolve()
    if d.is_file():
        d = d.parent
    for folder in (d, *d.parents):
        p = folder / "pyproject.toml"
        if p.is_file():
            return p
    return None


def load_section(path: Optional[Path], start: Path) -> dict:
    """The validated ``[tool.patchkit]`` table ({} when there is none); raises ConfigError."""
    explicit = path is not None
    path = Path(path) if path is not None else locate(start)
    if path is None:
        return {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"--config {path}: is a folder, not a pyproject.toml") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tool = doc.get("tool", {})
    sec = tool.get("patchkit", {}) if isinstance(tool, dict) else {}
    if not isinstance(sec, dict):
        raise ConfigError(f"{path}: [tool.patchkit] must be a table")
    if explicit and "patchkit" not in tool:
        raise ConfigError(f"--config {path}: has no [tool.patchkit] table")
    validate(sec, path)
    return sec


def validate(sec: dict, path: Path) -> None:
    for key, value in sec.items():
        if key not in KEYS:
            near = difflib.get_close_matches(key, list(KEYS), n=1, cutoff=0.6)
            raise ConfigError(f"{path}: [tool.patchkit] has no key '{key}'"
                              + (f"; did you mean '{near[0]}'?" if near else f"; valid keys: {', '.join(KEYS)}"))
        kind, what = KEYS[key]
        ok = isinstance(value, kind) and not (kind is str and isinstance(value, bool))
        if ok and isinstance(value, list):
            ok = all(isinstance(x, str) for x in value)
        if ok and key in CHOICES:
            ok = value in CHOICES[key]
        if not ok:
            raise ConfigError(f"{path}: [tool.patchkit] {key} = {_toml(value)}: expected {what}")


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def load_settings(path: Optional[Path], start: Path, strict: bool = False, show_info: bool = False,
                  section: Optional[dict] = None) -> Settings:
    sec = section if section is not None else load_section(path, start)
    unknown = "strict" if strict else sec.get("unknown-bases", "quiet")
    return Settings(unknown_bases=unknown, strict_two_phase=strict or bool(sec.get("strict-two-phase", False)),
                    initializers=tuple(sec.get("initializers", [])),
                    show_info=show_info or bool(sec.get("show-info", False)))
