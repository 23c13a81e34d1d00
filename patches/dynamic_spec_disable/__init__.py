"""dynamic-spec-disable: skip EAGLE drafting for decode batches larger than a threshold.

Above ``--speculative-disable-batch-threshold N`` (else ``$SGLANG_SPEC_DISABLE_BATCH_THRESHOLD``,
else off) a decode step of ``EAGLEWorkerV2`` swaps in a pre-built zero-step runtime state
(attention backends and CUDA graphs for one verify token) and verifies only the previous bonus
token: a plain decode through the speculative bookkeeping, so the scheduler's invariants and the
draft model's KV cache stay intact and speculation resumes when the batch shrinks.

Strategies, chosen from the code found:
  reuse-upstream-zero-step  (0.5.14+): upstream already routes ``speculative_num_steps == 0`` to
                            ``_build_trivial_verify_input``; we add the threshold and the switch.
  bring-zero-step           (0.5.12-0.5.13): runtime-state switching exists but no zero-step path;
                            we add ``_patchkit_trivial_verify_input`` and the branch.
  refused                   (< 0.5.12): no runtime-state switching to swap backends with.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from patchkit import codemod as cm
from patchkit.ftypes import Anchor, AnchorNotFound
from patchkit.patchdef import Edit, Patch, Reader, Refused, Strategy

from . import snippets as S

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
SERVER_ARGS = "sglang/srt/server_args.py"
SPEC_FIELDS = "sglang/srt/arg_groups/fields/spec.py"
CLS = "EAGLEWorkerV2"
FLAG = "--speculative-disable-batch-threshold"
FIELD = "speculative_disable_batch_threshold"
ATTR = "spec_disable_batch_threshold"


# ----------------------------------------------------------------------------- server args
def _field_class(read: Reader) -> tuple[str, str]:
    """(file, class) holding the ``speculative_num_steps`` field."""
    for rel, cls in ((SPEC_FIELDS, "Spec"), (SERVER_ARGS, "ServerArgs")):
        text = read(rel)
        if text and "speculative_num_steps:" in text:
            module = cm.parse(rel, text)
            try:
                klass = cm.find_class(rel, module, cls)
            except AnchorNotFound:
                continue
            if cm.contains_stmt(klass, _field_shape("speculative_num_steps")):
                return rel, cls
    raise AnchorNotFound(f"{SERVER_ARGS}: no class declares the field 'speculative_num_steps' "
                         f"(looked in ServerArgs and {SPEC_FIELDS}::Spec)")


def _field_shape(name: str) -> cm.Shape:
    def pred(s) -> bool:
        return isinstance(s, cst.SimpleStatementLine) and any(
            isinstance(x, cst.AnnAssign) and isinstance(x.target, cst.Name) and x.target.value == name for x in s.body)
    return cm.Shape(f"{name}: ... = ...", pred)


def _field_edit(rel: str, cls: str, annotated: bool) -> Edit:
    def transform(module: cst.Module) -> cst.Module:
        klass = cm.find_class(rel, module, cls)
        anchor_stmt = cm.find_stmt(rel, klass, _field_shape("speculative_num_steps"), f"class {cls}")
        src = S.FIELD_ANNOTATED if annotated else S.FIELD_PLAIN
        return cm.insert(module, anchor_stmt, cm.statements(src), after=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_class(rel, module, cls), _field_shape(FIELD))
        except AnchorNotFound:
            return False

    return Edit(rel, f"add the {FIELD} field to {cls}",
                (Anchor(rel, cls, None, "speculative_num_steps: ... = ..."),), transform, applied)


def _argparse_edit() -> Edit:
    rel, cls, meth = SERVER_ARGS, "ServerArgs", "add_cli_args"
    shape = cm.contains_code('"--speculative-num-steps"')

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(rel, module, cls, meth)
        stmt = cm.find_stmt(rel, fn, shape, f"{cls}.{meth}")
        return cm.insert(module, stmt, cm.statements(S.ARGPARSE), after=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(rel, module, cls, meth), cm.contains_code(f'"{FLAG}"'))
        except AnchorNotFound:
            return False

    return Edit(rel, f"register {FLAG} next to --speculative-num-steps",
                (Anchor(rel, cls, meth, shape.text),), transform, applied)


# ----------------------------------------------------------------------------- worker
def _init_edit(cls: str = CLS) -> Edit:
    """Assign the threshold (and the switch's state) in EAGLEWorkerV2.__init__: the field bug put it
    into EagleDraftWorker.__init__, the first __init__ of the file. ``cls`` exists so that a test
    fixture can reproduce that bug on purpose."""
    shape = cm.assigns_self_attr("speculative_num_draft_tokens")

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(WORKER, module, cls, "__init__")
        stmt = cm.find_stmt(WORKER, fn, shape, f"{cls}.__init__")
        return cm.insert(module, stmt, cm.statements(S.INIT_ATTRS), after=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(WORKER, module, cls, "__init__"), cm.assigns_self_attr(ATTR))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"assign self.{ATTR} in {cls}.__init__",
                (Anchor(WORKER, cls, "__init__", shape.text),), transform, applied)


def _module_function_edit(name: str, src: str, purpose: str = "") -> Edit:
    """Append module-level code that defines the function ``name``; applied when ``name`` exists."""
    def transform(module: cst.Module) -> cst.Module:
        return cm.append_toplevel(module, src)

    def applied(module: cst.Module) -> bool:
        return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in module.body)

    return Edit(WORKER, f"add the module function {name}{purpose}",
                (Anchor(WORKER, "<module>", name),), transform, applied)


def _resolver_edit() -> Edit:
    return _module_function_edit(S.RESOLVER_NAME, S.RESOLVER)


def _one_token_edit() -> Edit:
    return _module_function_edit(S.ONE_TOKEN_NAME, S.ONE_TOKEN, " (decode kernel for one-token verify)")


def _registration(module: cst.Module, host: str) -> tuple[str, str]:
    """(with-items source, SpecRuntimeState(...) source) of upstream's adaptive registration."""
    fn = cm.find_method(WORKER, module, CLS, host)
    shape = cm.contains_code("self.adaptive_controller.register(")
    for s in cm.walk_statements(fn):
        if isinstance(s, cst.With) and cm.contains_stmt(s, shape):
            reg = cm.find_stmt(WORKER, s, shape, f"{CLS}.{host}")
            call = reg.body[0].value  # type: ignore[union-attr]
            state = cm.code(call.args[0].value)
            items = ", ".join(cm.code(i.item) for i in s.items)
            return items, state
    raise AnchorNotFound(f"{WORKER}: {CLS}.{host} has no 'with ...: self.adaptive_controller.register(SpecRuntimeState(...))' "
                         f"to copy the current runtime state from")


def _methods_edit(host: str, bring_trivial: bool) -> Edit:
    def transform(module: cst.Module) -> cst.Module:
        items, state = _registration(module, host)
        src = S.INIT_METHOD.format(with_items=items, state=_indent(state, 12),
                                   zero_builder=S.ZERO_OWN if bring_trivial else S.ZERO_UPSTREAM)
        src += S.SELECT_METHOD
        if bring_trivial:
            src += S.ZERO_STATE_METHOD + S.TRIVIAL_METHOD
        else:
            src += S.UPSTREAM_ZERO_METHOD
        klass = cm.find_class(WORKER, module, CLS)
        module = cm.add_method(module, klass, src, after="forward_batch_generation")
        fn = cm.find_method(WORKER, module, CLS, host)
        last = fn.body.body[-1]
        return cm.insert(module, last, cm.statements("self._patchkit_init_spec_disable()"), after=True)

    def applied(module: cst.Module) -> bool:
        return cm.has_method(module, CLS, "_patchkit_init_spec_disable")

    return Edit(WORKER, f"build the zero-step state at the end of {CLS}.{host} and add the switch",
                (Anchor(WORKER, CLS, host, "end of method"),), transform, applied)


def _indent(text: str, n: int) -> str:
    lines = text.splitlines()
    return "\n".join([lines[0]] + [" " * n + ln.lstrip() if ln.strip() else ln for ln in lines[1:]]) if lines else text


def _batch_param(module: cst.Module) -> str:
    fn = cm.find_method(WORKER, module, CLS, "forward_batch_generation")
    params = fn.params.params
    if len(params) < 2:
        raise AnchorNotFound(f"{WORKER}: {CLS}.forward_batch_generation takes no batch parameter")
    return params[1].name.value


def _select_edit(after_activate: bool) -> Edit:
    """Call the switch at the start of the decode branch of forward_batch_generation."""
    meth = "forward_batch_generation"
    if after_activate:
        shape = cm.contains_code("self.activate_step_by_batch(")
    else:
        shape = cm.contains_code(".spec_info is None", compound=True)

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(WORKER, module, CLS, meth)
        stmt = cm.find_stmt(WORKER, fn, shape, f"{CLS}.{meth}")
        call = cm.statements(f"self._patchkit_select_spec_state({_batch_param(module)})")
        return cm.insert(module, stmt, call, after=after_activate)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(WORKER, module, CLS, meth),
                                    cm.contains_code("self._patchkit_select_spec_state("))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"switch the runtime state by batch size in {CLS}.{meth}",
                (Anchor(WORKER, CLS, meth, shape.text),), transform, applied)


def _branch_edit() -> Edit:
    """0.5.12-0.5.13: route ``speculative_num_steps == 0`` to the trivial verify instead of drafting."""
    meth = "forward_batch_generation"
    shape = cm.contains_code("self.draft_worker.draft(")

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(WORKER, module, CLS, meth)
        target: Optional[cst.With] = None
        for s in cm.walk_statements(fn):
            if isinstance(s, cst.With) and cm.contains_stmt(s, shape):
                target = s
        if target is None:
            raise AnchorNotFound(f"{WORKER}: {CLS}.{meth} has no 'with ...: verify_input = self.draft_worker.draft(...)'")
        batch = _batch_param(module)
        branch = cst.parse_statement(
            f"if self.speculative_num_steps == 0:\n"
            f"    verify_input = self._patchkit_trivial_verify_input({batch})\n"
            f"else:\n    pass\n")
        assert isinstance(branch, cst.If) and branch.orelse is not None
        new = branch.with_changes(orelse=branch.orelse.with_changes(
            body=branch.orelse.body.with_changes(body=[target.with_changes(leading_lines=[])])),
            leading_lines=target.leading_lines)
        return cm.insert(module, target, [new], replace=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(WORKER, module, CLS, meth),
                                    cm.contains_code("self._patchkit_trivial_verify_input("))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"route zero-step decode to the trivial verify in {CLS}.{meth}",
                (Anchor(WORKER, CLS, f"{meth}#draft", shape.text),), transform, applied)


# ----------------------------------------------------------------------------- decode kernels
TRITON = "sglang/srt/layers/attention/triton_backend.py"
FORWARD_INFO = "sglang/srt/model_executor/forward_batch_info.py"


def decode_kernel_gaps(read: Reader, upstream_builder: bool) -> list[str]:
    """What ``_patchkit_one_token_attention`` relies on and this release lacks (empty: the disabled
    steps run on the Triton decode kernel). Read with ``ast``; nothing is imported."""
    import ast

    gaps: list[str] = []
    text = read(TRITON) or ""
    node = _ast_class(text, "TritonAttnBackend") if text else None
    if node is None:
        return [f"{TRITON}: no class TritonAttnBackend"]
    fns = {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
    for name in ("forward_decode", "forward_extend"):
        if name not in fns or "save_kv_cache" not in [a.arg for a in fns[name].args.args]:
            gaps.append(f"{TRITON}: TritonAttnBackend.{name}(..., save_kv_cache) not found")
    if "init_forward_metadata" not in fns:
        gaps.append(f"{TRITON}: TritonAttnBackend.init_forward_metadata not found")
    graph_ok = "init_forward_metadata_out_graph" in fns or all(
        n in fns and "forward_mode" in [a.arg for a in fns[n].args.args]
        for n in ("init_forward_metadata_capture_cuda_graph", "init_forward_metadata_replay_cuda_graph"))
    if not graph_ok:
        gaps.append(f"{TRITON}: no CUDA-graph metadata method the conversion knows "
                    f"(init_forward_metadata_out_graph, or capture/replay with forward_mode)")
    if "self.num_draft_tokens =" not in text:
        gaps.append(f"{TRITON}: TritonAttnBackend does not record num_draft_tokens")
    modes = read(FORWARD_INFO) or ""
    for name in ("is_target_verify", "is_draft_extend_v2"):
        if f"def {name}(" not in modes:
            gaps.append(f"{FORWARD_INFO}: ForwardMode.{name} not found")
    if upstream_builder:
        worker = read(WORKER) or ""
        klass = _ast_class(worker, CLS)
        build = next((f for f in (klass.body if klass else []) if isinstance(f, ast.FunctionDef)
                      and f.name == "build_adaptive_runtime_state"), None)
        body = ast.get_source_segment(worker, build) if build else ""
        for call in ("._get_attention_backend(", "._draft_worker.init_attention_backend("):
            if call not in (body or ""):
                gaps.append(f"{WORKER}: {CLS}.build_adaptive_runtime_state does not call '{call[1:]}...)', "
                            f"where the zero-step backends are switched")
    return gaps


# ----------------------------------------------------------------------------- selection
def select(version: Version, read: Reader, init_class: str = CLS) -> Strategy:
    worker = read(WORKER)
    if worker is None:
        raise Refused(f"{WORKER} does not exist in this release (no spec-v2 EAGLE worker)")
    module = cm.parse(WORKER, worker)
    cm.find_class(WORKER, module, CLS)
    cm.find_method(WORKER, module, CLS, "forward_batch_generation")
    for needed in ("build_adaptive_runtime_state", "apply_runtime_state"):
        if not cm.has_method(module, CLS, needed):
            raise Refused(f"{WORKER}: {CLS} has no '{needed}' (runtime-state switching arrived in 0.5.12); "
                          f"the disable path needs it to swap attention backends and CUDA graphs to one verify token")
    rel, fcls = _field_class(read)
    annotated = "speculative_num_steps: A[" in (read(rel) or "")
    edits = [_field_edit(rel, fcls, annotated)]
    if not annotated:
        edits.append(_argparse_edit())
    host = "init_cuda_graphs" if cm.has_method(module, CLS, "init_cuda_graphs") else "__init__"
    has_upstream_zero = cm.has_method(module, CLS, "_build_trivial_verify_input")
    has_activate = cm.has_method(module, CLS, "activate_step_by_batch")
    edits += [_init_edit(init_class), _resolver_edit(), _one_token_edit(),
              _methods_edit(host, bring_trivial=not has_upstream_zero),
              _select_edit(after_activate=has_activate)]
    gaps = decode_kernel_gaps(read, upstream_builder=has_upstream_zero)
    kernels = ("on decode attention kernels (Triton backend)" if not gaps else
               f"on the verify (extend) kernels: {gaps[0]}")
    if has_upstream_zero:
        name = "reuse-upstream-zero-step"
        summary = (f"above T: upstream _build_trivial_verify_input, 1 token + draft extend, {kernels}; "
                   "at/below T: EAGLE draft+verify")
    else:
        if not cm.has_method(module, CLS, "_override_worker_state"):
            raise Refused(f"{WORKER}: {CLS} has neither '_build_trivial_verify_input' nor '_override_worker_state'; "
                          f"the zero-step state cannot be built")
        edits.append(_branch_edit())
        name = "bring-zero-step"
        summary = (f"above T: patchkit's _patchkit_trivial_verify_input, 1 token + draft extend, {kernels}; "
                   "at/below T: EAGLE draft+verify")
    return Strategy(name, tuple(edits), summary)


def _ast_class(text: str, name: str):
    import ast
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


def _flag_registered(read: Reader) -> Optional[str]:
    """Gate invariant: the flag reaches the argument parser the server uses. (``ast``, not libcst:
    the gate must stay fast.)"""
    import ast
    for rel, cls in ((SPEC_FIELDS, "Spec"), (SERVER_ARGS, "ServerArgs")):
        text = read(rel)
        if not text or "speculative_num_steps:" not in text:
            continue
        node = _ast_class(text, cls)
        if node is None:
            continue
        fields = {s.target.id: s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        if "speculative_num_steps" not in fields:
            continue
        if FIELD not in fields:
            return f"{rel}: class {cls} has no field '{FIELD}'"
        if isinstance(fields[FIELD].annotation, ast.Subscript) and \
                getattr(fields[FIELD].annotation.value, "id", "") == "A":
            return None  # annotated fields generate their argparse arguments
        sa = _ast_class(read(SERVER_ARGS) or "", "ServerArgs")
        fn = next((f for f in (sa.body if sa else []) if isinstance(f, ast.FunctionDef) and f.name == "add_cli_args"), None)
        if fn is None:
            return f"{SERVER_ARGS}: ServerArgs has no add_cli_args"
        flags = {c.args[0].value for c in ast.walk(fn) if isinstance(c, ast.Call) and c.args
                 and isinstance(c.args[0], ast.Constant)}
        return None if FLAG in flags else f"{SERVER_ARGS}: ServerArgs.add_cli_args does not register {FLAG}"
    return f"{SERVER_ARGS}: no class declares the field 'speculative_num_steps'"


def _threshold_in_right_class(read: Reader) -> Optional[str]:
    import ast
    node = _ast_class(read(WORKER) or "", CLS)
    init = next((f for f in (node.body if node else []) if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return f"{WORKER}: {CLS} has no __init__"
    for n in ast.walk(init):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and n.attr == ATTR and \
                isinstance(n.value, ast.Name) and n.value.id == "self":
            return None
    return f"{WORKER}: {CLS}.__init__ does not assign self.{ATTR}"


#: before/after examples (our own miniatures of the files, in examples/): strategy -> {file: stem};
#: tests apply the patch to <stem>_before.py and compare with <stem>_after.py, then apply again.
EXAMPLES = (
    ("bring-zero-step", {WORKER: "worker_argparse", SERVER_ARGS: "server_args_argparse"}),
    ("reuse-upstream-zero-step", {WORKER: "worker_upstream_zero", SERVER_ARGS: "server_args_annotated"}),
)

PATCH = Patch(
    name="dynamic-spec-disable",
    version="1.1.0",
    description="Skip EAGLE-3 draft+verify for decode batches above --speculative-disable-batch-threshold",
    distribution="sglang",
    specifier=SpecifierSet(">=0.5.6,<0.6"),
    select=select,
    examples=EXAMPLES,
    invariants=(
        (f"{FLAG} is registered in the server's argument parser", _flag_registered),
        (f"self.{ATTR} is assigned in {CLS}.__init__", _threshold_in_right_class),
    ),
)
