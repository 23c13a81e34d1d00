"""Declarations the dynamic-spec-disable patch adds to ``ServerArgs``: its two fields and, on
releases that still build argparse by hand, their arguments. The patch's logic is not here: it is
real Python in ``runtime.py``, which apply copies into the target."""

THRESHOLD_HELP = ("patchkit dynamic-spec-disable: for decode batches with more requests than this, skip "
                  "EAGLE drafting and verify one token per request (a normal decode step). Default: "
                  "$SGLANG_SPEC_DISABLE_BATCH_THRESHOLD, else off.")
HYSTERESIS_HELP = ("patchkit dynamic-spec-disable: resume drafting only after this many consecutive decode "
                   "steps at or below the threshold (the first step above it disables drafting). Default: "
                   "$SGLANG_SPEC_DISABLE_HYSTERESIS, else 8.")
#: the values of --speculative-disable-draft-extend (runtime.DRAFT_EXTEND_MODES has their meaning)
DRAFT_EXTEND_CHOICES = ("keep", "skip", "skip-decode", "kv")
DRAFT_EXTEND_HELP = ("patchkit dynamic-spec-disable: draft-model work while drafting is disabled above the "
                     "threshold: keep (extend every step: the draft's KV cache stays complete), skip (none: "
                     "neither decode-step extends nor the prefill of prompts admitted there; holes in the "
                     "draft's KV cache may cost acceptance after a resume), skip-decode (decode-step "
                     "extends only) or kv (decode-step extends replaced by a write of the draft's KV "
                     "cache alone: no holes; EAGLE-3 drafts). Default: $PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND, "
                     "else keep.")


def field_plain(name: str, kind: str = "int") -> str:
    return f"\n{name}: Optional[{kind}] = None  # patchkit: dynamic-spec-disable\n"


def field_annotated(name: str, help_text: str, kind: str = "int") -> str:
    return f"""
{name}: A[  # patchkit: dynamic-spec-disable
    Optional[{kind}],
    "{help_text}",
] = None
"""


def argparse_argument(flag: str, name: str, help_text: str, kind: str = "int", choices: tuple = ()) -> str:
    limit = f"\n    choices={list(choices)!r}," if choices else ""
    return f"""
parser.add_argument(  # patchkit: dynamic-spec-disable
    "{flag}",
    type={kind},{limit}
    default=ServerArgs.{name},
    help="{help_text}",
)
"""
