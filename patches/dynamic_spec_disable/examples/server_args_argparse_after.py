# Our own miniature of sglang/srt/server_args.py (argparse built by hand, as in 0.5.6-0.5.13).
from dataclasses import dataclass
from typing import Optional


@dataclass
class ServerArgs:
    speculative_algorithm: Optional[str] = None
    speculative_num_steps: Optional[int] = None
    speculative_disable_batch_threshold: Optional[int] = None  # patchkit: dynamic-spec-disable
    speculative_disable_hysteresis: Optional[int] = None  # patchkit: dynamic-spec-disable
    speculative_disable_draft_extend: Optional[str] = None  # patchkit: dynamic-spec-disable
    speculative_eagle_topk: Optional[int] = None

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument(
            "--speculative-num-steps",
            type=int,
            help="The number of steps sampled from draft model in Speculative Decoding.",
            default=ServerArgs.speculative_num_steps,
        )
        parser.add_argument(  # patchkit: dynamic-spec-disable
            "--speculative-disable-batch-threshold",
            type=int,
            default=ServerArgs.speculative_disable_batch_threshold,
            help="patchkit dynamic-spec-disable: for decode batches with more requests than this, skip EAGLE drafting and verify one token per request (a normal decode step). Default: $SGLANG_SPEC_DISABLE_BATCH_THRESHOLD, else off.",
        )
        parser.add_argument(  # patchkit: dynamic-spec-disable
            "--speculative-disable-hysteresis",
            type=int,
            default=ServerArgs.speculative_disable_hysteresis,
            help="patchkit dynamic-spec-disable: resume drafting only after this many consecutive decode steps at or below the threshold (the first step above it disables drafting). Default: $SGLANG_SPEC_DISABLE_HYSTERESIS, else 8.",
        )
        parser.add_argument(  # patchkit: dynamic-spec-disable
            "--speculative-disable-draft-extend",
            type=str,
            choices=['keep', 'skip', 'skip-decode', 'kv'],
            default=ServerArgs.speculative_disable_draft_extend,
            help="patchkit dynamic-spec-disable: draft-model work while drafting is disabled above the threshold: keep (extend every step: the draft's KV cache stays complete), skip (none: neither decode-step extends nor the prefill of prompts admitted there; holes in the draft's KV cache may cost acceptance after a resume), skip-decode (decode-step extends only) or kv (decode-step extends replaced by a write of the draft's KV cache alone: no holes; EAGLE-3 drafts). Default: $PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND, else keep.",
        )
        parser.add_argument("--speculative-eagle-topk", type=int, default=ServerArgs.speculative_eagle_topk)

    def check_server_args(self):
        """Validate the parsed arguments (called by the engine at start-up)."""
        from sglang.srt.speculative.patchkit_spec_disable import check_server_args as _patchkit_check_spec_disable  # patchkit: dynamic-spec-disable
        _patchkit_check_spec_disable(self)
        assert self.speculative_num_steps is None or self.speculative_num_steps >= 0
