"""Whether a smoke server can serve text requests: stop strings need a tokenizer in the server,
regex and JSON-schema requests also need a grammar backend its Python can import. Decided once per
run, before any server starts, so the plan and the record say what the request-kinds stage skips
and why."""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Optional

#: the grammar backend the smoke servers of the built-in model use (SGLang's default)
GRAMMAR_BACKEND = "xgrammar"
_PROBE = ("import importlib.util as u, sys; "
          "sys.exit(0 if u.find_spec('{mod}') and u.find_spec('tokenizers') else 1)")


def grammar_missing(python: str = sys.executable, env: Optional[dict] = None,
                    backend: str = GRAMMAR_BACKEND) -> str:
    """"" when ``python`` (with the server's ``PYTHONPATH``) finds ``backend`` and ``tokenizers``;
    otherwise the reason the grammar-constrained requests are skipped."""
    try:
        rc = subprocess.run([python, "-c", _PROBE.format(mod=backend)], env=env or dict(os.environ),
                            capture_output=True, timeout=120).returncode
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"skipped: could not ask the server's Python for {backend} ({type(e).__name__})"
    return "" if rc == 0 else f"skipped: the server's Python cannot import {backend} (no grammar backend)"


def option_value(args: list[str], flag: str) -> Optional[str]:
    """The value of ``flag`` in a server command (``--flag V`` or ``--flag=V``; the last one wins)."""
    from .matrix import parse_options
    return parse_options(list(args)).get(flag)


def text_skips(args: list[str], grammar_skip: str) -> dict:
    """{kind: reason} for the text request kinds a server launched with ``args`` cannot serve."""
    if "--skip-tokenizer-init" in args:
        why = "skipped: the server runs with --skip-tokenizer-init (no tokenizer); stop_token_ids tested"
        return {"stop strings": why, "regex": why, "json-schema": why}
    if option_value(args, "--grammar-backend") == "none":
        why = "skipped: the server runs with --grammar-backend none"
        return {"regex": why, "json-schema": why}
    if grammar_skip:
        return {"regex": grammar_skip, "json-schema": grammar_skip}
    return {}
