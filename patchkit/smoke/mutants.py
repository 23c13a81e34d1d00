"""Mutants of a real patch, to measure what the smoke test catches: ``mutant(base, ...)`` is a Patch
named ``<base>~<name>`` whose edits of ``file`` produce the base's patched text with ``old``
replaced by ``new``. It applies, checks and gates like the base (the mutation is runtime-only);
when ``old`` no longer occurs in the patched text the mutant refuses loudly, so a stale mutant
cannot pass for a caught one."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

import libcst as cst

from ..ftypes import AnchorNotFound
from ..patchdef import Edit, Patch, Refused, Strategy


@dataclass(frozen=True)
class MutantDef:
    """One row of a mutant table (data: fixtures/broken_patches/*/mutants.toml)."""

    name: str
    file: str
    old: str
    new: str
    description: str
    #: the smoke stage expected to catch it, and a hint at the cell (an option value, or "any")
    catches: str
    cell: str = "any"
    #: base strategies it applies to (empty: every strategy)
    strategies: tuple[str, ...] = ()
    #: the stand-in server fault that simulates it (CPU tests of the mutation bench)
    standin_fault: str = ""
    note: str = ""


class StaleMutant(AnchorNotFound):
    """The mutant's ``old`` text is not in the patched file any more (the patch changed)."""


def _wrap(e: Edit, name: str, old: str, new: str, last: bool) -> Edit:
    def transform(module: cst.Module) -> cst.Module:
        out = e.transform(module)
        if not last:
            return out
        code = out.code
        if old not in code:
            raise StaleMutant(f"{e.file}: mutant '{name}': the patched text no longer contains {old.strip()[:80]!r}; "
                              f"update the mutant table")
        return cst.parse_module(code.replace(old, new))

    def applied(module: cst.Module) -> bool:
        code = module.code
        if new not in code:
            return False
        try:  # undo the mutation and ask the base edit (a short `new` may also occur upstream)
            return e.is_applied(cst.parse_module(code.replace(new, old)))
        except cst.ParserSyntaxError:
            return False

    return replace(e, transform=transform, is_applied=applied, description=f"{e.description} [mutant {name}]")


def mutant(base: Patch, name: str, file: str, old: str, new: str, description: str,
           strategies: tuple[str, ...] = (), smoke: Optional[object] = None) -> Patch:
    """A Patch named ``<base.name>~<name>``: ``base`` with ``old`` -> ``new`` in the patched ``file``."""
    from .spec import spec_of

    def select(version, read) -> Strategy:
        strat = base.select(version, read)
        if strategies and strat.name not in strategies:
            raise Refused(f"mutant '{name}' mutates the {'/'.join(strategies)} strategy; "
                          f"this release gets {strat.name}")
        idx = [i for i, e in enumerate(strat.edits) if e.file == file]
        if not idx:
            raise StaleMutant(f"{file}: mutant '{name}': the base patch does not edit this file")
        edits = list(strat.edits)
        for i in idx:
            edits[i] = _wrap(edits[i], name, old, new, i == idx[-1])
        return Strategy(f"{strat.name}~{name}", tuple(edits), f"MUTANT {name}: {description}")

    return replace(base, name=f"{base.name}~{name}", version=f"{base.version}+{name}",
                   description=f"MUTANT of {base.name}: {description}", select=select,
                   smoke=smoke if smoke is not None else spec_of(base))


def load_table(path: Path) -> list[MutantDef]:
    """The rows of a TOML mutant table (``[[mutant]]`` entries)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover
        import tomli as tomllib  # type: ignore[no-redef]
    doc = tomllib.loads(Path(path).read_text())
    out = []
    for row in doc.get("mutant", []):
        row = dict(row)
        row["strategies"] = tuple(row.get("strategies", ()))
        out.append(MutantDef(**row))
    return out


def build(base: Patch, table: list[MutantDef]) -> tuple[Patch, ...]:
    return tuple(mutant(base, m.name, m.file, m.old, m.new, m.description, m.strategies) for m in table)
