"""``[tool.patchkit]`` in the nearest pyproject.toml (walking upward); an explicit path wins."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from .analysis.checker import Settings
from .ftypes import UsageError


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
    path = path or locate(start)
    if path is None:
        return {}
    try:
        doc = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read [tool.patchkit]: {exc}") from None
    return doc.get("tool", {}).get("patchkit", {})


def load_settings(path: Optional[Path], start: Path, strict: bool = False, show_info: bool = False) -> Settings:
    sec = load_section(path, start)
    unknown = "strict" if strict else sec.get("unknown-bases", "quiet")
    if unknown not in ("quiet", "strict"):
        raise UsageError(f"[tool.patchkit] unknown-bases = {unknown!r}: expected 'quiet' or 'strict'")
    inits = sec.get("initializers", [])
    if not isinstance(inits, list) or not all(isinstance(x, str) for x in inits):
        raise UsageError("[tool.patchkit] initializers must be a list of method names")
    return Settings(unknown_bases=unknown, strict_two_phase=strict or bool(sec.get("strict-two-phase", False)),
                    initializers=tuple(inits), show_info=show_info or bool(sec.get("show-info", False)))
