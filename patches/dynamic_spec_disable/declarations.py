"""Declarations the dynamic-spec-disable patch adds to ``ServerArgs``: its two fields and, on
releases that still build argparse by hand, their arguments. The patch's logic is not here: it is
real Python in ``runtime.py``, which apply copies into the target."""

THRESHOLD_HELP = ("patchkit dynamic-spec-disable: for decode batches with more requests than this, skip "
                  "EAGLE drafting and verify one token per request (a normal decode step). Default: "
                  "$SGLANG_SPEC_DISABLE_BATCH_THRESHOLD, else off.")
HYSTERESIS_HELP = ("patchkit dynamic-spec-disable: resume drafting only after this many consecutive decode "
                   "steps at or below the threshold (the first step above it disables drafting). Default: "
                   "$SGLANG_SPEC_DISABLE_HYSTERESIS, else 8.")


def field_plain(name: str) -> str:
    return f"\n{name}: Optional[int] = None  # patchkit: dynamic-spec-disable\n"


def field_annotated(name: str, help_text: str) -> str:
    return f"""
{name}: A[  # patchkit: dynamic-spec-disable
    Optional[int],
    "{help_text}",
] = None
"""


def argparse_argument(flag: str, name: str, help_text: str) -> str:
    return f"""
parser.add_argument(  # patchkit: dynamic-spec-disable
    "{flag}",
    type=int,
    default=ServerArgs.{name},
    help="{help_text}",
)
"""
