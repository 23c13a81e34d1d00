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
    speculative_eagle_topk: A[Optional[int], "Top-k of the draft."] = None

    def check_server_args(self):
        """Validate the parsed arguments (called by the engine at start-up)."""
        assert self.speculative_num_steps is None or self.speculative_num_steps >= 0
