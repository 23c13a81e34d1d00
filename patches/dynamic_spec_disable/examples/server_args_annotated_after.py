# Our own miniature of sglang/srt/server_args.py with annotated fields (0.5.14+: argparse generated).
from dataclasses import dataclass
from typing import Annotated as A, Optional


@dataclass
class ServerArgs:
    speculative_algorithm: A[Optional[str], "The speculative algorithm."] = None
    speculative_num_steps: A[
        Optional[int],
        "The number of steps sampled from draft model in Speculative Decoding.",
    ] = None
    speculative_disable_batch_threshold: A[  # patchkit: dynamic-spec-disable
        Optional[int],
        "patchkit dynamic-spec-disable: for decode batches with more requests than this, skip EAGLE drafting and verify one token per request (a normal decode step). Default: $SGLANG_SPEC_DISABLE_BATCH_THRESHOLD, else off.",
    ] = None
    speculative_disable_hysteresis: A[  # patchkit: dynamic-spec-disable
        Optional[int],
        "patchkit dynamic-spec-disable: resume drafting only after this many consecutive decode steps at or below the threshold (the first step above it disables drafting). Default: $SGLANG_SPEC_DISABLE_HYSTERESIS, else 8.",
    ] = None
    speculative_disable_draft_extend: A[  # patchkit: dynamic-spec-disable
        Optional[str],
        "patchkit dynamic-spec-disable: draft-model work while drafting is disabled above the threshold: keep (extend every step: the draft's KV cache stays complete), skip (none: neither decode-step extends nor the prefill of prompts admitted there; holes in the draft's KV cache may cost acceptance after a resume), skip-decode (decode-step extends only) or kv (decode-step extends replaced by a write of the draft's KV cache alone: no holes; EAGLE-3 drafts). Default: $PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND, else keep.",
    ] = None
    speculative_eagle_topk: A[Optional[int], "Top-k of the draft."] = None

    def check_server_args(self):
        """Validate the parsed arguments (called by the engine at start-up)."""
        from sglang.srt.speculative.patchkit_spec_disable import check_server_args as _patchkit_check_spec_disable  # patchkit: dynamic-spec-disable
        _patchkit_check_spec_disable(self)
        assert self.speculative_num_steps is None or self.speculative_num_steps >= 0
