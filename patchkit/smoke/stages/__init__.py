"""The smoke stages, one module per kind. Each stage is ``fn(ctx) -> detail`` (``ctx`` is the
running ``patchkit.smoke.run.Smoke``) and raises ``StageFailed`` with what it caught. Every stage
has the stand-in fault it must catch in tests/test_smoke_stages.py."""
from __future__ import annotations

from .acceptance import resume_acceptance
from .basic import crossings, first_decode, greedy_equivalence, log_scan, ready, refusal, sampled
from .forced import forced_acceptance
from .kinds import request_kinds
from .resume import resume_equivalence
from .soak import soak

#: stage name -> function (``ready`` is run by the sequence itself; ``forced-acceptance`` runs on a
#: server started with the forced-acceptance env, a job of its own in a matrix)
STAGES = {
    "ready": ready,
    "first-decode": first_decode,
    "threshold-crossings": crossings,
    "sampled-decode": sampled,
    "request-kinds": request_kinds,
    "resume-equivalence": resume_equivalence,
    "resume-acceptance": resume_acceptance,
    "greedy-equivalence": greedy_equivalence,
    "soak": soak,
    "log-scan": log_scan,
    "forced-acceptance": forced_acceptance,
}

__all__ = ["STAGES", "forced_acceptance", "refusal", "ready"]
