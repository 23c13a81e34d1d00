"""Gate invariant: the attention backends users run on Hopper (Triton, FlashInfer, FlashAttention-3)
read the speculative sizing fields from the shared server configuration only when they are built.

Why it matters: while speculation is disabled the patch keeps ``ServerArgs`` at the full state
(``speculative_num_draft_tokens`` and ``speculative_num_steps`` never shrink, so the scheduler's KV
reserve does not either). The zero state's backend objects are built for one verify token (upstream's
``build_adaptive_runtime_state(0, 1)`` on 0.5.14+, ``_override_worker_state(0, 1)`` on 0.5.12-0.5.13)
and keep that in their own fields. A backend that read the shared configuration on every step would
see the full state's sizes inside the zero state: that is the case this invariant refuses, naming the
file, class and method. (FA3 cannot run on the GPU host; this is the evidence behind "supported, not
run on a GPU here".)"""
from __future__ import annotations

import ast
from typing import Optional

from patchkit.patchdef import Reader

#: backend modules checked (those a Hopper deployment selects: SGLang's defaults and Triton)
BACKENDS = ("sglang/srt/layers/attention/triton_backend.py",
            "sglang/srt/layers/attention/flashinfer_backend.py",
            "sglang/srt/layers/attention/flashattention_backend.py")
FIELDS = ("speculative_num_draft_tokens", "speculative_num_steps")
#: where a shared, switch-time value comes from (an object's own field is frozen at build time)
SHARED = ("server_args", "get_spec(", "get_global_server_args(")
#: methods that run while the state is built, under the zero state's override
BUILD_TIME = ("__init__",)


def shared_reads_per_step(text: str) -> list[tuple[str, str, str]]:
    """(class, method, expression) of each read of a sizing field from the shared configuration in a
    method that is not build-time."""
    out = []
    for cls in (n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            if fn.name in BUILD_TIME:
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Attribute) and node.attr in FIELDS and isinstance(node.ctx, ast.Load):
                    base = ast.unparse(node.value)
                    if any(s in base for s in SHARED):
                        out.append((cls.name, fn.name, ast.unparse(node)))
    return out


def sizing_read_at_build_only(read: Reader) -> Optional[str]:
    for rel in BACKENDS:
        text = read(rel)
        if not text:
            continue
        hits = shared_reads_per_step(text)
        if hits:
            cls, fn, expr = hits[0]
            return (f"{rel}: {cls}.{fn} reads {expr} after the backend is built; the patch keeps ServerArgs at "
                    f"the full state while disabled, so this backend would see the full state's sizes in the zero state")
    return None


INVARIANT = ("the Triton, FlashInfer and FA3 attention backends read the speculative sizing only when built",
             sizing_read_at_build_only)
