"""dynamic-spec-disable: skip EAGLE drafting for decode batches larger than a threshold.

From the first decode step above ``--speculative-disable-batch-threshold N`` (else
``$SGLANG_SPEC_DISABLE_BATCH_THRESHOLD``, else off), the patched worker swaps in a pre-built
zero-step runtime state (attention backends and CUDA graphs for one verify token) and verifies only
the previous bonus token: a plain decode through the speculative bookkeeping, so the scheduler's
invariants and the draft model's KV cache stay intact. Speculation resumes when the batch has stayed
at or below N for ``--speculative-disable-hysteresis K`` consecutive decode steps.

The logic is real Python in ``runtime.py``; apply copies it into the target as
``sglang/srt/speculative/patchkit_spec_disable.py`` and adds thin hooks that call it:

  ServerArgs        the three fields (+ argparse arguments on releases that build argparse by hand)
                    and a start-up check (``check_server_args``) that refuses clashing options
  EAGLEWorkerV2     assigns the threshold in ``__init__``; ``on_init`` at the end of the method that
                    builds runtime states; ``on_decode`` in the decode branch
  FutureMap         (0.5.14+, ``managers/overlap_utils.py``) ``resolve_seq_lens_cpu`` asks the runtime
                    first: after a disabled step the next step's host lengths need no GPU sync
  its subclasses    found from the code (the worker classes ``SpeculativeAlgorithm.create_worker``
                    can return): a constructor that skips ``EAGLEWorkerV2.__init__`` assigns the
                    threshold itself, and gets the ``on_init`` hook where it skips the host method

Strategies, chosen from the code found:
  reuse-upstream-zero-step  (0.5.14+): upstream routes ``speculative_num_steps == 0`` to
                            ``_build_trivial_verify_input``; the runtime builds the zero state
                            with ``build_adaptive_runtime_state(0, 1)``.
  bring-zero-step           (0.5.12-0.5.13): runtime-state switching exists but no zero-step path;
                            the hook routes it to ``runtime.trivial_verify_input``.
  refused                   (< 0.5.12): no runtime-state switching to swap backends with.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from patchkit import codemod as cm
from patchkit.ftypes import Anchor, AnchorNotFound
from patchkit.patchdef import Edit, Example, Patch, Reader, Refused, Strategy, new_file_edit

from . import declarations as D
from .backend_reads import INVARIANT as BACKEND_READS

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
SERVER_ARGS = "sglang/srt/server_args.py"
SPEC_FIELDS = "sglang/srt/arg_groups/fields/spec.py"
SPEC_INFO = "sglang/srt/speculative/spec_info.py"
OVERLAP = "sglang/srt/managers/overlap_utils.py"
RUNTIME = "sglang/srt/speculative/patchkit_spec_disable.py"
RUNTIME_SOURCE = Path(__file__).with_name("runtime.py")
RUNTIME_KV = "sglang/srt/speculative/patchkit_spec_disable_kv.py"
RUNTIME_KV_SOURCE = Path(__file__).with_name("draft_kv.py")
CLS = "EAGLEWorkerV2"
FLAG = "--speculative-disable-batch-threshold"
FIELD = "speculative_disable_batch_threshold"
HYSTERESIS_FLAG = "--speculative-disable-hysteresis"
HYSTERESIS_FIELD = "speculative_disable_hysteresis"
DRAFT_EXTEND_FLAG = "--speculative-disable-draft-extend"
DRAFT_EXTEND_FIELD = "speculative_disable_draft_extend"
#: (flag, field, help, type, choices) of every server option the patch adds, in insertion order
OPTIONS = ((FLAG, FIELD, D.THRESHOLD_HELP, "int", ()),
           (HYSTERESIS_FLAG, HYSTERESIS_FIELD, D.HYSTERESIS_HELP, "int", ()),
           (DRAFT_EXTEND_FLAG, DRAFT_EXTEND_FIELD, D.DRAFT_EXTEND_HELP, "str", D.DRAFT_EXTEND_CHOICES))
ATTR = "spec_disable_batch_threshold"
ALIAS = "_patchkit_sd"
IMPORT = f"from sglang.srt.speculative import patchkit_spec_disable as {ALIAS}  # patchkit: dynamic-spec-disable"


def runtime_text() -> str:
    """The runtime module exactly as apply writes it into the target."""
    return RUNTIME_SOURCE.read_text(encoding="utf-8")


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


def _field_edit(rel: str, cls: str, annotated: bool, name: str, help_text: str, after: str, kind: str = "int") -> Edit:
    def transform(module: cst.Module) -> cst.Module:
        klass = cm.find_class(rel, module, cls)
        anchor_stmt = cm.find_stmt(rel, klass, _field_shape(after), f"class {cls}")
        src = D.field_annotated(name, help_text, kind) if annotated else D.field_plain(name, kind)
        return cm.insert(module, anchor_stmt, cm.statements(src), after=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_class(rel, module, cls), _field_shape(name))
        except AnchorNotFound:
            return False

    return Edit(rel, f"add the {name} field to {cls}",
                (Anchor(rel, cls, None, f"{after}: ... = ..."),), transform, applied, id=f"field:{cls}.{name}")


def _argparse_edit(flag: str, name: str, help_text: str, after_flag: str, kind: str = "int",
                   choices: tuple = ()) -> Edit:
    rel, cls, meth = SERVER_ARGS, "ServerArgs", "add_cli_args"
    shape = cm.contains_code(f'"{after_flag}"')

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(rel, module, cls, meth)
        stmt = cm.find_stmt(rel, fn, shape, f"{cls}.{meth}")
        return cm.insert(module, stmt, cm.statements(D.argparse_argument(flag, name, help_text, kind, choices)),
                         after=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(rel, module, cls, meth), cm.contains_code(f'"{flag}"'))
        except AnchorNotFound:
            return False

    return Edit(rel, f"register {flag} next to {after_flag}", (Anchor(rel, cls, meth, shape.text),), transform, applied,
                id=f"argparse:{flag}")


CHECK_HOOK = ("from sglang.srt.speculative.patchkit_spec_disable import check_server_args as "
              "_patchkit_check_spec_disable  # patchkit: dynamic-spec-disable\n"
              "_patchkit_check_spec_disable(self)\n")


def _method_start_edit(rel: str, cls: str, meth: str, src: str, marker: str, what: str, kind: str) -> Edit:
    """``src`` as the first statements of ``cls.meth`` (after its docstring); applied when the
    method contains ``marker``."""
    def transform(module: cst.Module) -> cst.Module:
        first = cm.find_method(rel, module, cls, meth).body.body[0]
        return cm.insert(module, first, cm.statements(src), after=_is_docstring(first))

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(rel, module, cls, meth), cm.contains_code(marker))
        except AnchorNotFound:
            return False

    return Edit(rel, f"{what} in {cls}.{meth}", (Anchor(rel, cls, meth, "start of method"),), transform, applied,
                id=f"{kind}:{cls}.{meth}")


def _check_hook_edit() -> Edit:
    """Refuse clashing options at start-up, before any model loads (first statement of
    ``ServerArgs.check_server_args``, which the engine calls on the parsed arguments)."""
    return _method_start_edit(SERVER_ARGS, "ServerArgs", "check_server_args", CHECK_HOOK,
                              "_patchkit_check_spec_disable(self)", "refuse clashing options", "check-hook")


def _is_docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


# ----------------------------------------------------------------------------- worker hooks
def _import_edit(rel: str) -> Edit:
    """Import the runtime module after the module's last top-level import."""
    def transform(module: cst.Module) -> cst.Module:
        last = None
        for s in module.body:
            if isinstance(s, cst.SimpleStatementLine) and any(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body):
                last = s
            elif last is not None and not isinstance(s, (cst.SimpleStatementLine, cst.If, cst.Try)):
                break
        if last is None:
            raise AnchorNotFound(f"{rel}: no top-level import to add the runtime import after")
        return cm.insert(module, last, cm.statements(IMPORT), after=True)

    def applied(module: cst.Module) -> bool:
        return any(isinstance(s, cst.SimpleStatementLine) and ALIAS in cm.code(s) and "patchkit_spec_disable" in cm.code(s)
                   for s in module.body)

    return Edit(rel, f"import the runtime module in {rel}", (Anchor(rel, "<module>", None, "imports"),), transform, applied,
                id=f"import-runtime:{rel}")


def _assign_edit(rel: str, cls: str, param: str) -> Edit:
    """``self.spec_disable_batch_threshold = ...`` in ``cls.__init__``, after the assignment of
    ``self.speculative_num_draft_tokens`` (else of ``self.server_args``). The field bug put it in
    another class's ``__init__``: ``cls`` exists so that a fixture can reproduce that on purpose."""
    shapes = (cm.assigns_self_attr("speculative_num_draft_tokens"), cm.assigns_self_attr("server_args"))
    src = f"self.{ATTR} = {ALIAS}.resolve_threshold({param})"

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(rel, module, cls, "__init__")
        for shape in shapes:
            if cm.contains_stmt(fn, shape):
                return cm.insert(module, cm.find_stmt(rel, fn, shape, f"{cls}.__init__"), cm.statements(src), after=True)
        raise AnchorNotFound(f"{rel}: {cls}.__init__ assigns neither self.speculative_num_draft_tokens "
                             f"nor self.server_args; nowhere to assign self.{ATTR}")

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(rel, module, cls, "__init__"), cm.assigns_self_attr(ATTR))
        except AnchorNotFound:
            return False

    return Edit(rel, f"assign self.{ATTR} in {cls}.__init__", (Anchor(rel, cls, "__init__", shapes[0].text),),
                transform, applied, id=f"assign-threshold:{cls}.__init__")


def _init_hook_edit(rel: str, cls: str, host: str, owner_expr: str) -> Edit:
    """``on_init`` at the end of ``cls.host`` (before a trailing ``return``)."""
    src = f"{ALIAS}.on_init(self, {owner_expr})"

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(rel, module, cls, host)
        last = fn.body.body[-1]
        is_return = isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Return)
        return cm.insert(module, last, cm.statements(src), after=not is_return)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(rel, module, cls, host), cm.contains_code(f"{ALIAS}.on_init(self"))
        except AnchorNotFound:
            return False

    return Edit(rel, f"build the zero-step state at the end of {cls}.{host}", (Anchor(rel, cls, host, "end of method"),),
                transform, applied, id=f"on-init:{cls}.{host}")


def _batch_param(module: cst.Module) -> str:
    fn = cm.find_method(WORKER, module, CLS, "forward_batch_generation")
    params = fn.params.params
    if len(params) < 2:
        raise AnchorNotFound(f"{WORKER}: {CLS}.forward_batch_generation takes no batch parameter")
    return params[1].name.value


def _decode_hook_edit(after_activate: bool) -> Edit:
    """Call the switch at the start of the decode branch of forward_batch_generation."""
    meth = "forward_batch_generation"
    shape = (cm.contains_code("self.activate_step_by_batch(") if after_activate
             else cm.contains_code(".spec_info is None", compound=True))

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(WORKER, module, CLS, meth)
        stmt = cm.find_stmt(WORKER, fn, shape, f"{CLS}.{meth}")
        src = f"if self.{ATTR} is not None:\n    {ALIAS}.on_decode(self, {_batch_param(module)})\n"
        return cm.insert(module, stmt, cm.statements(src), after=after_activate)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(WORKER, module, CLS, meth), cm.contains_code(f"{ALIAS}.on_decode("))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"switch the runtime state by batch size in {CLS}.{meth}",
                (Anchor(WORKER, CLS, meth, shape.text),), transform, applied, id=f"on-decode:{CLS}.{meth}")


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
        branch = cst.parse_statement(
            f"if self.speculative_num_steps == 0:\n"
            f"    verify_input = {ALIAS}.trivial_verify_input(self, {_batch_param(module)})\n"
            f"else:\n    pass\n")
        assert isinstance(branch, cst.If) and branch.orelse is not None
        new = branch.with_changes(orelse=branch.orelse.with_changes(
            body=branch.orelse.body.with_changes(body=[target.with_changes(leading_lines=[])])),
            leading_lines=target.leading_lines)
        return cm.insert(module, target, [new], replace=True)

    def applied(module: cst.Module) -> bool:
        try:
            return cm.contains_stmt(cm.find_method(WORKER, module, CLS, meth), cm.contains_code(f"{ALIAS}.trivial_verify_input("))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"route zero-step decode to the trivial verify in {CLS}.{meth}",
                (Anchor(WORKER, CLS, f"{meth}#draft", shape.text),), transform, applied,
                id=f"zero-step-branch:{CLS}.{meth}")


UPSTREAM_SKIP = "SGLANG_SPEC_SKIP_ZERO_STEP_DRAFT_EXTEND"
SKIP_HOOK = f"{ALIAS}.skip_draft_extend(self"
STUB_CALL = "self._stub_skipped_draft_extend"


class _OrSkipHook(cst.CSTTransformer):
    """``envs.SGLANG_SPEC_SKIP_ZERO_STEP_DRAFT_EXTEND.get()`` -> ``(hook or <that call>)``: the hook
    runs first, so it sees every zero-step decode step."""

    def __init__(self, hook: str) -> None:
        self.done = 0
        self.hook = hook

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if (isinstance(func, cst.Attribute) and func.attr.value == "get"
                and cm.code(func.value).endswith(UPSTREAM_SKIP)):
            self.done += 1
            return cst.parse_expression(f"({self.hook} or {cm.code(updated)})")
        return updated


def _stub_args(branch: cst.If) -> Optional[tuple[str, str]]:
    """The two arguments of the branch's ``self._stub_skipped_draft_extend(batch, batch_output)``:
    the step and its result, which the hook hands the runtime (``kv`` writes the draft's KV from them)."""
    for s in branch.body.body:
        if isinstance(s, cst.SimpleStatementLine):
            for part in s.body:
                call = getattr(part, "value", None)
                if isinstance(call, cst.Call) and cm.code(call.func) == STUB_CALL and len(call.args) == 2 and \
                        all(a.keyword is None and not a.star for a in call.args):
                    return cm.code(call.args[0].value), cm.code(call.args[1].value)
    return None


def _skip_condition(fn: cst.FunctionDef) -> Optional[cst.If]:
    for s in cm.walk_statements(fn):
        if isinstance(s, cst.If) and UPSTREAM_SKIP in cm.code(s.test) and "speculative_num_steps" in cm.code(s.test):
            return s
    return None


def _skip_extend_edit() -> Edit:
    """0.5.14+: upstream's zero-step branch stubs the draft extend under its own variable; the hook
    makes the patched worker skip it on disabled steps above the threshold (runtime.skip_draft_extend)."""
    meth = "forward_batch_generation"

    def transform(module: cst.Module) -> cst.Module:
        fn = cm.find_method(WORKER, module, CLS, meth)
        target = _skip_condition(fn)
        if target is None:
            raise AnchorNotFound(f"{WORKER}: {CLS}.{meth} has no 'if self.speculative_num_steps == 0 and "
                                 f"envs.{UPSTREAM_SKIP}.get():' (upstream drifted?)")
        args = _stub_args(target)
        if args is None:
            raise AnchorNotFound(f"{WORKER}: {CLS}.{meth}: the zero-step branch does not call {STUB_CALL}(batch, "
                                 f"result) (upstream drifted?)")
        t = _OrSkipHook(f"{SKIP_HOOK}, {args[0]}, {args[1]})")
        new_test = target.test.visit(t)
        if t.done != 1:
            raise AnchorNotFound(f"{WORKER}: {CLS}.{meth}: expected one call of envs.{UPSTREAM_SKIP}.get() "
                                 f"in the zero-step condition, found {t.done}")
        return cm.insert(module, target, [target.with_changes(test=new_test)], replace=True)

    def applied(module: cst.Module) -> bool:
        try:
            return SKIP_HOOK in cm.code(cm.find_method(WORKER, module, CLS, meth))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"skip the draft extend on disabled steps above the threshold in {CLS}.{meth}",
                (Anchor(WORKER, CLS, f"{meth}#skip-draft-extend", f"if ... envs.{UPSTREAM_SKIP}.get()"),),
                transform, applied, id=f"skip-draft-extend:{CLS}.{meth}")


PREFILL_CALL = "self.draft_worker._draft_extend_for_prefill"
PREFILL_HOOK = f"{ALIAS}.skip_draft_prefill("


class _OrPrefillHook(cst.CSTTransformer):
    """``self.draft_worker._draft_extend_for_prefill(batch, hidden, tokens, ...)`` ->
    ``(hook(self, batch, tokens, hidden_states) or <that call>)``: a stub draft input where the hook
    skips it (``kv``: after writing the draft's KV for the prompt from ``hidden_states``)."""

    def __init__(self) -> None:
        self.done = 0

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if cm.code(original.func) != PREFILL_CALL:
            return updated
        args = original.args
        if len(args) < 3 or any(a.keyword is not None or a.star for a in args[:3]):
            raise AnchorNotFound(f"{WORKER}: {CLS} calls {PREFILL_CALL}() without (batch, hidden_states, "
                                 f"next_token_ids) as its first three positional arguments (upstream drifted?)")
        self.done += 1
        return cst.parse_expression(
            f"({PREFILL_HOOK}self, {cm.code(args[0].value)}, {cm.code(args[2].value)}, {cm.code(args[1].value)}) "
            f"or {cm.code(updated)})")


def _prefill_statement(cls: cst.ClassDef) -> list:
    return [s for fn in cm.methods(cls).values() for s in cm.walk_statements(fn)
            if isinstance(s, cst.SimpleStatementLine) and f"{PREFILL_CALL}(" in cm.code(s)]


def _skip_prefill_edit() -> Edit:
    """0.5.14+: the draft model's extend over a prompt admitted while drafting is disabled above the
    threshold is skipped too under ``--speculative-disable-draft-extend skip`` (runtime.skip_draft_prefill)."""

    def transform(module: cst.Module) -> cst.Module:
        found = _prefill_statement(cm.find_class(WORKER, module, CLS))
        if len(found) != 1:
            raise AnchorNotFound(f"{WORKER}: {CLS}: expected one statement calling {PREFILL_CALL}(), "
                                 f"found {len(found)} (upstream drifted?)")
        t = _OrPrefillHook()
        new = found[0].visit(t)
        if t.done != 1:
            raise AnchorNotFound(f"{WORKER}: {CLS}: expected one call of {PREFILL_CALL}() in its statement, found {t.done}")
        return cm.insert(module, found[0], [new], replace=True)

    def applied(module: cst.Module) -> bool:
        try:
            return PREFILL_HOOK in cm.code(cm.find_class(WORKER, module, CLS))
        except AnchorNotFound:
            return False

    return Edit(WORKER, f"skip the draft prefill of prompts admitted while disabled above the threshold in {CLS}",
                (Anchor(WORKER, CLS, "forward_batch_generation#draft-prefill", f"{PREFILL_CALL}(...)"),),
                transform, applied, id=f"skip-draft-prefill:{CLS}")


def skips_draft_extend(module: cst.Module) -> bool:
    """The release's zero-step branch can stub the draft extend (``_stub_skipped_draft_extend``)."""
    return cm.has_method(module, CLS, "_stub_skipped_draft_extend") and \
        _skip_condition(cm.find_method(WORKER, module, CLS, "forward_batch_generation")) is not None


RESOLVE_HOOK = "_patchkit_resolve_on_host"


def _resolve_method(read: Reader) -> Optional[ast.FunctionDef]:
    """``FutureMap.resolve_seq_lens_cpu`` where it pulls the host lengths through
    ``needs_cpu_seq_lens`` (0.5.13+; hooked on 0.5.14+), else None (nothing to hook: the release has no such wait)."""
    node = _ast_class(read(OVERLAP) or "", "FutureMap")
    fn = next((f for f in (node.body if node else []) if isinstance(f, ast.FunctionDef)
               and f.name == "resolve_seq_lens_cpu"), None)
    if fn is None or len(fn.args.args) < 2 or fn.args.vararg or fn.args.kwarg:
        return None
    reads = any(isinstance(n, ast.Attribute) and n.attr == "needs_cpu_seq_lens" for n in ast.walk(fn))
    return fn if reads else None


def _resolve_hook_edit(fn: ast.FunctionDef) -> Edit:
    """The first statement of ``FutureMap.resolve_seq_lens_cpu`` asks the runtime to resolve the
    batch from the host (``runtime.resolve_on_host``); the method's other parameters pass through."""
    rel, cls, meth = OVERLAP, "FutureMap", "resolve_seq_lens_cpu"
    batch = fn.args.args[1].arg
    rest = [a.arg for a in fn.args.args[2:]] + [a.arg for a in fn.args.kwonlyargs]
    call = ", ".join([f"self, {batch}"] + [f"{a}={a}" for a in rest])
    src = (f"from sglang.srt.speculative.patchkit_spec_disable import resolve_on_host as {RESOLVE_HOOK}  "
           f"# patchkit: dynamic-spec-disable\n"
           f"if {RESOLVE_HOOK}({call}):\n    return\n")
    return _method_start_edit(rel, cls, meth, src, f"{RESOLVE_HOOK}(self",
                              "resolve the host lengths of a step after a disabled one", "resolve-hook")


# ----------------------------------------------------------------------------- subclasses
@dataclass(frozen=True)
class Subclass:
    """A worker class of the release that inherits the patched one (found from the code)."""

    file: str
    name: str
    #: how the class names its base (the expression the hook passes as ``owner``)
    base: str
    #: ``__init__`` defined and never runs the base's ``__init__``
    skips_init: bool
    #: the parameter (or ``self.server_args``) its ``__init__`` reads the server arguments from
    server_args: str
    #: defines the host method without chaining to the base's
    skips_host: bool
    #: overrides forward_batch_generation, so the switch never runs for it
    own_forward: bool

    def support(self) -> str:
        if self.own_forward:
            return f"{self.name}: refused at start-up with the flag (overrides forward_batch_generation)"
        return f"{self.name}: supported" + (" (assigns the threshold itself)" if self.skips_init else "")


def _worker_modules(read: Reader) -> list[str]:
    """Modules ``spec_info.py`` imports worker classes from (``create_worker``'s candidates)."""
    text = read(SPEC_INFO) or ""
    rels: list[str] = []
    for node in ast.walk(ast.parse(text)) if text else ():
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sglang.srt.speculative."):
            rel = node.module.replace(".", "/") + ".py"
            if rel != WORKER and rel not in rels:
                rels.append(rel)
    return rels


def _calls(fn: ast.FunctionDef, method: str, bases: set[str]) -> bool:
    """Whether ``fn`` calls ``super().method(`` or ``<Base>.method(``."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method:
            owner = n.func.value
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                return True
            if isinstance(owner, ast.Name) and owner.id in bases:
                return True
    return False


def subclasses(read: Reader, host: str) -> list[Subclass]:
    """Every worker class of the release whose bases reach EAGLEWorkerV2."""
    found: list[Subclass] = []
    known = {CLS}
    for rel in _worker_modules(read):
        text = read(rel)
        if not text:
            continue
        for node in ast.parse(text).body:
            if not isinstance(node, ast.ClassDef):
                continue
            names = [ast.unparse(b) for b in node.bases]
            hit = next((n for n in names if n.split(".")[-1] in known), None)
            if hit is None:
                continue
            known.add(node.name)
            fns = {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
            init = fns.get("__init__")
            bases = {n.split(".")[-1] for n in names}
            skips_init = init is not None and not _calls(init, "__init__", bases)
            params = [a.arg for a in init.args.args] if init else []
            hosted = fns.get(host)
            found.append(Subclass(
                rel, node.name, hit, skips_init, "server_args" if "server_args" in params else "self.server_args",
                hosted is not None and not _calls(hosted, host, bases), "forward_batch_generation" in fns))
    return found


def _subclass_edits(subs: list[Subclass], host: str) -> list[Edit]:
    edits: list[Edit] = []
    files: list[str] = []
    for s in subs:
        mine = []
        if s.skips_init:
            mine.append(_assign_edit(s.file, s.name, s.server_args))
        if s.skips_host:
            mine.append(_init_hook_edit(s.file, s.name, host, s.base))
        if mine and s.file not in files:
            files.append(s.file)
            edits.append(_import_edit(s.file))
        edits.extend(mine)
    return edits


# ----------------------------------------------------------------------------- decode kernels
TRITON = "sglang/srt/layers/attention/triton_backend.py"
FLASHINFER = "sglang/srt/layers/attention/flashinfer_backend.py"
FORWARD_INFO = "sglang/srt/model_executor/forward_batch_info.py"
#: backend class -> (file, what its source must show for ``runtime.convertible``'s guards)
DECODE_BACKENDS = {
    "TritonAttnBackend": (TRITON, ("self.num_draft_tokens =",)),
    "FlashInferAttnBackend": (FLASHINFER, ("self.dispatch_reason =", "self.decode_wrappers",
                                           "fast_decode_plan")),
}


def _backend_gaps(read: Reader, cls: str) -> list[str]:
    """What ``runtime.one_token_attention`` needs from one backend class and this release lacks."""
    path, markers = DECODE_BACKENDS[cls]
    text = read(path) or ""
    node = _ast_class(text, cls) if text else None
    if node is None:
        return [f"{path}: no class {cls}"]
    gaps: list[str] = []
    fns = {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
    for name in ("forward_decode", "forward_extend"):
        if name not in fns or "save_kv_cache" not in [a.arg for a in fns[name].args.args]:
            gaps.append(f"{path}: {cls}.{name}(..., save_kv_cache) not found")
    if "init_forward_metadata" not in fns:
        gaps.append(f"{path}: {cls}.init_forward_metadata not found")
    graph_ok = "init_forward_metadata_out_graph" in fns or all(
        n in fns and "forward_mode" in [a.arg for a in fns[n].args.args]
        for n in ("init_forward_metadata_capture_cuda_graph", "init_forward_metadata_replay_cuda_graph"))
    if not graph_ok:
        gaps.append(f"{path}: no CUDA-graph metadata method the conversion knows "
                    f"(init_forward_metadata_out_graph, or capture/replay with forward_mode)")
    for marker in markers:
        if marker not in text:
            gaps.append(f"{path}: {cls} source lacks '{marker}'")
    return gaps


def decode_kernel_backends(read: Reader) -> tuple[list[str], dict[str, list[str]]]:
    """(backends whose disabled steps run on their decode kernels, gaps of the others)."""
    ok, gaps = [], {}
    for cls in DECODE_BACKENDS:
        found = _backend_gaps(read, cls)
        if found:
            gaps[cls] = found
        else:
            ok.append(cls)
    return ok, gaps


def decode_kernel_gaps(read: Reader, upstream_builder: bool) -> list[str]:
    """What ``runtime.one_token_attention`` relies on and this release lacks, for the Triton backend
    and the release's modes and zero-state builder (empty: the disabled steps run on the Triton
    decode kernel). Read with ``ast``; nothing is imported."""
    gaps = _backend_gaps(read, "TritonAttnBackend")
    if gaps and gaps[0].endswith("no class TritonAttnBackend"):
        return gaps
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


# ----------------------------------------------------------------------------- runtime contract
def _runtime_names() -> dict:
    """``runtime.WORKER_MODULE_NAMES``, read from the shipped file (not imported twice)."""
    tree = ast.parse(runtime_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "WORKER_MODULE_NAMES" or \
                isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "WORKER_MODULE_NAMES" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("runtime.py defines no WORKER_MODULE_NAMES")


def module_names(text: str) -> set[str]:
    """Names a module binds at top level (imports, also under ``if``/``try``; classes, functions,
    assignments), by ``ast``."""
    out: set[str] = set()
    tree = ast.parse(text)
    for node in tree.body:
        for n in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else (node,):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                out.add(n.name)
            elif isinstance(n, ast.Assign):
                out.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return out


def missing_worker_names(worker_text: str, *uses: str) -> list[str]:
    """Names runtime.py takes from the worker module (for a strategy, or an optional edit such as
    ``skip-draft-prefill``) that this release's module does not bind."""
    need = _runtime_names()
    have = module_names(worker_text)
    return [n for n in need["always"] + sum((tuple(need.get(u, ())) for u in uses), ()) if n not in have]


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
    has_upstream_zero = cm.has_method(module, CLS, "_build_trivial_verify_input")
    if not has_upstream_zero and not cm.has_method(module, CLS, "_override_worker_state"):
        raise Refused(f"{WORKER}: {CLS} has neither '_build_trivial_verify_input' nor '_override_worker_state'; "
                      f"the zero-step state cannot be built")
    rel, fcls = _field_class(read)
    annotated = "speculative_num_steps: A[" in (read(rel) or "")
    edits = [new_file_edit(RUNTIME, runtime_text(), "add the runtime module", id="create:runtime-module"),
             new_file_edit(RUNTIME_KV, RUNTIME_KV_SOURCE.read_text(encoding="utf-8"),
                           "add the KV-only draft write (--speculative-disable-draft-extend kv)",
                           id="create:runtime-kv-module")]
    after_field, after_flag = "speculative_num_steps", "--speculative-num-steps"
    for flag, name, help_text, kind, _ in OPTIONS:  # each after the previous one
        edits.append(_field_edit(rel, fcls, annotated, name, help_text, after_field, kind))
        after_field = name
    if not annotated:
        for flag, name, help_text, kind, choices in OPTIONS:
            edits.append(_argparse_edit(flag, name, help_text, after_flag, kind, choices))
            after_flag = flag
    edits.append(_check_hook_edit())
    host = "init_cuda_graphs" if cm.has_method(module, CLS, "init_cuda_graphs") else "__init__"
    edits += [_import_edit(WORKER), _assign_edit(WORKER, init_class, "server_args"),
              _init_hook_edit(WORKER, CLS, host, CLS),
              _decode_hook_edit(after_activate=cm.has_method(module, CLS, "activate_step_by_batch"))]
    if not has_upstream_zero:
        edits.append(_branch_edit())
    skip_extend = has_upstream_zero and skips_draft_extend(module)
    skip_prefill = skip_extend and len(_prefill_statement(cm.find_class(WORKER, module, CLS))) == 1
    if skip_extend:
        edits.append(_skip_extend_edit())
    if skip_prefill:
        edits.append(_skip_prefill_edit())
    missing = missing_worker_names(worker, "reuse-upstream-zero-step" if has_upstream_zero else "bring-zero-step",
                                   *(["skip-draft-prefill"] if skip_prefill else []))
    if missing:
        raise AnchorNotFound(f"{WORKER}: the module no longer binds {', '.join(missing)} (renamed upstream?); "
                             f"patchkit_spec_disable.py takes it from there")
    # 0.5.14+ only: 0.5.13 has the same wait, but its one-token verify is patchkit's own
    # (trivial_verify_input) and no GPU run has proven the host lengths on it
    resolve = _resolve_method(read) if has_upstream_zero else None
    if resolve is not None:
        edits.append(_resolve_hook_edit(resolve))
    subs = subclasses(read, host)
    edits += _subclass_edits(subs, host)
    gaps = decode_kernel_gaps(read, upstream_builder=has_upstream_zero)
    converted, other = decode_kernel_backends(read)
    names = ", ".join(c.replace("AttnBackend", "") for c in converted)
    kernels = (f"on decode attention kernels ({names})" if not gaps else
               f"on the verify (extend) kernels: {gaps[0]}")
    if not gaps and other:
        kernels += f"; other backends keep their verify kernels ({next(iter(other.values()))[0]})"
    sub_line = "; subclasses: " + ", ".join(s.support() for s in subs) if subs else ""
    lens = "; host lengths after a disabled step: no GPU sync" if resolve is not None else ""
    extend = (f"draft extend every step ({DRAFT_EXTEND_FLAG} skip: only in the run-up to a resume"
              + (", and no draft prefill above T" if skip_prefill else "")
              + "; kv: the draft's KV cache alone above T)"
              if skip_extend else "draft extend every step")
    if has_upstream_zero:
        name = "reuse-upstream-zero-step"
        summary = f"above T: upstream _build_trivial_verify_input, 1 token, {extend}, {kernels}{lens}"
    else:
        name = "bring-zero-step"
        summary = f"above T: patchkit's trivial_verify_input, 1 token, {extend}, {kernels}{lens}"
    return Strategy(name, tuple(edits), f"{summary}; at/below T: EAGLE draft+verify{sub_line}")


def _ast_class(text: str, name: str):
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


# ----------------------------------------------------------------------------- gate invariants
def _flag_registered(read: Reader) -> Optional[str]:
    """The flags reach the argument parser the server uses (``ast``: the gate must stay fast)."""
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
        for name in (o[1] for o in OPTIONS):
            if name not in fields:
                return f"{rel}: class {cls} has no field '{name}'"
        if isinstance(fields[FIELD].annotation, ast.Subscript) and \
                getattr(fields[FIELD].annotation.value, "id", "") == "A":
            return None  # annotated fields generate their argparse arguments
        sa = _ast_class(read(SERVER_ARGS) or "", "ServerArgs")
        fn = next((f for f in (sa.body if sa else []) if isinstance(f, ast.FunctionDef) and f.name == "add_cli_args"), None)
        if fn is None:
            return f"{SERVER_ARGS}: ServerArgs has no add_cli_args"
        flags = {c.args[0].value for c in ast.walk(fn) if isinstance(c, ast.Call) and c.args
                 and isinstance(c.args[0], ast.Constant)}
        missing = [o[0] for o in OPTIONS if o[0] not in flags]
        return f"{SERVER_ARGS}: ServerArgs.add_cli_args does not register {missing[0]}" if missing else None
    return f"{SERVER_ARGS}: no class declares the field 'speculative_num_steps'"


def _assigns_threshold(fn: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and n.attr == ATTR
               and isinstance(n.value, ast.Name) and n.value.id == "self" for n in ast.walk(fn))


def _threshold_in_right_class(read: Reader) -> Optional[str]:
    node = _ast_class(read(WORKER) or "", CLS)
    init = next((f for f in (node.body if node else []) if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return f"{WORKER}: {CLS} has no __init__"
    return None if _assigns_threshold(init) else f"{WORKER}: {CLS}.__init__ does not assign self.{ATTR}"


def _every_subclass_assigns(read: Reader) -> Optional[str]:
    worker = read(WORKER) or ""
    host = "init_cuda_graphs" if "def init_cuda_graphs(" in (ast.get_source_segment(worker, _ast_class(worker, CLS)) or "") else "__init__"
    for s in subclasses(read, host):
        if not s.skips_init:
            continue
        init = next(f for f in _ast_class(read(s.file) or "", s.name).body
                    if isinstance(f, ast.FunctionDef) and f.name == "__init__")
        if not _assigns_threshold(init):
            return f"{s.file}: {s.name}.__init__ skips {CLS}.__init__ and does not assign self.{ATTR}"
    return None


#: before/after examples (our own miniatures of the files, in examples/): tests apply the patch to
#: <stem>_before.py, compare with <stem>_after.py, then apply again.
EXAMPLES = (
    Example("bring-zero-step", {WORKER: "worker_argparse", SERVER_ARGS: "server_args_argparse"}),
    Example("reuse-upstream-zero-step", {WORKER: "worker_upstream_zero", SERVER_ARGS: "server_args_annotated"}),
)

PATCH = Patch(
    name="dynamic-spec-disable",
    version="2.8.0",
    description="Skip EAGLE-3 draft+verify for decode batches above --speculative-disable-batch-threshold",
    distribution="sglang",
    specifier=SpecifierSet(">=0.5.6,<0.6"),
    select=select,
    examples=EXAMPLES,
    invariants=(
        (f"{FLAG}, {HYSTERESIS_FLAG} and {DRAFT_EXTEND_FLAG} are registered in the server's argument parser",
         _flag_registered),
        (f"self.{ATTR} is assigned in {CLS}.__init__", _threshold_in_right_class),
        (f"every subclass of {CLS} that skips its __init__ assigns self.{ATTR}", _every_subclass_assigns),
        BACKEND_READS,
    ),
)
