# Our own miniature of sglang/srt/server_args.py (argparse built by hand, as in 0.5.6-0.5.13).
from dataclasses import dataclass
from typing import Optional


@dataclass
class ServerArgs:
    speculative_algorithm: Optional[str] = None
    speculative_num_steps: Optional[int] = None
    speculative_eagle_topk: Optional[int] = None

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument(
            "--speculative-num-steps",
            type=int,
            help="The number of steps sampled from draft model in Speculative Decoding.",
            default=ServerArgs.speculative_num_steps,
        )
        parser.add_argument("--speculative-eagle-topk", type=int, default=ServerArgs.speculative_eagle_topk)

    def check_server_args(self):
        """Validate the parsed arguments (called by the engine at start-up)."""
        assert self.speculative_num_steps is None or self.speculative_num_steps >= 0
