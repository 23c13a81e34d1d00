"""What a user can tune in the analysis (one frozen value: part of every cache key). Its own module so
that a run answered from the cache never imports the analyzer."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    #: "quiet": a class with a base outside the analysed code is judged only on what it
    #: assigns itself; "strict": unknown bases provide nothing
    unknown_bases: str = "quiet"
    #: report reads of attributes assigned only outside construction (two-phase init) as errors
    strict_two_phase: bool = False
    #: extra methods a project always calls before use (treated as part of construction)
    initializers: tuple[str, ...] = ()
    #: report info-level findings too
    show_info: bool = False
    #: work allowed per file (CPU seconds of the process, state-steps); past it the file gets a PK901
    #: "could not be fully analysed" finding instead of a hang
    budget_seconds: float = 20.0
    budget_steps: int = 3_000_000
