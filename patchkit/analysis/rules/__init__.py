"""The attribute analyzer's rules, one unit each (Fixit / ruff style): ``pkNNN_<name>.py`` holds the
rule's docs and message (its ``RULE``), its finding constructor and its logic; ``examples/pkNNN.py``
its valid and invalid examples. Every consumer reaches them through this registry: the ``attr-init``
check declares ``ALL`` as its rules (so ``patchkit explain``, ``--select``, SARIF and the gate know
them) and carries ``VALID`` / ``INVALID`` as its examples (tests/test_check_examples.py)."""
from __future__ import annotations

from . import (pk001_maybe_unassigned, pk002_read_before_assignment, pk003_never_assigned,
               pk004_two_phase_initialisation, pk005_del_reads_partial_object, pk006_base_init_skipped,
               pk007_unpickled_missing, pk900_could_not_analyse, pk901_analysis_budget)
from .examples import flow as _flow

UNITS = (pk001_maybe_unassigned, pk002_read_before_assignment, pk003_never_assigned, pk004_two_phase_initialisation,
         pk005_del_reads_partial_object, pk006_base_init_skipped, pk007_unpickled_missing, pk900_could_not_analyse,
         pk901_analysis_budget)
#: every rule, in code order
ALL = tuple(u.RULE for u in UNITS)
#: code -> one-line message template
CODES = {r.code: r.message for r in ALL}
#: the check's examples: each rule's, plus those of the construction walk as a whole
VALID = tuple(e for r in ALL for e in r.valid) + _flow.VALID
INVALID = tuple(e for r in ALL for e in r.invalid) + _flow.INVALID
