"""PK001 maybe-unassigned (default: error). An attribute read on `self` may be unassigned: some construction path leaves it out.

Logic (three links of the read chain in ``judge.py``): ``on_some_paths``, the attribute is assigned on
some construction paths and not on others; ``lost_track``, the walk had too many paths to keep each
one's conditions, or construction deletes the attribute again; ``on_no_path``, a base's ``__init__``
assigns it only under a test of its own parameters, and the subclass's call never takes that branch
(``super().__init__(use_cache=False)``)."""
from __future__ import annotations

from ...ftypes import Severity
from ..trace import NEXT
from ..callerfirst import callers_store_first
from ...rules import Rule
from .base import finding as _finding
from .examples import pk001 as _examples

RULE = Rule(
    'PK001', 'maybe-unassigned', 'error',
    summary='An attribute read on `self` may be unassigned: some construction path leaves it out.',
    text=(
        'Every path through construction (`__init__`, the helpers it calls, `super().__init__()`) is '
        'followed. When one of them ends without assigning `self.x` and a method reads `self.x`, that '
        'read raises AttributeError on objects built along that path. The message names the path (the '
        'branch and its line). A split on a configuration value (a mode, a platform flag) is a '
        'warning, not an error, because callers often guard such reads; `--strict` makes it an error. '
        'In a package written for TorchScript, a read in `forward` that only a test of a module flag '
        'keeps off the paths that lack the attribute is a warning too: `torch.jit.script` compiles '
        'every branch, so scripting a module built along such a path fails.'),
    example="""
class Worker:
    def __init__(self, path):
        try:
            self.cache = load(path)
        except OSError:
            pass                     # the exception is swallowed, self.cache never assigned

    def lookup(self, key):
        return self.cache.get(key)   # PK001
""",
    fix=(
        'Assign the attribute on every path (`self.cache = {}` in the `except` branch or before the '
        '`try`), or give it a class-level default (`cache = None` in the class body).'),
    message='self.{attr} may be unassigned when {cls} is used',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK001 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def scripted(site, test: str, value: bool, strict: bool):
    """A read in a TorchScript package's ``forward`` that a test of a module attribute keeps off the
    construction paths lacking it (torchscript.py): Python never reaches it there, ``torch.jit.script``
    compiles it anyway. A warning (an error with ``--strict``): only scripting the module fails."""
    t = site.trace
    state = "true" if value else "false"
    why = (f"TorchScript compiles every branch of forward: torch.jit.script on a {t.ci.qualname} built "
           f"with `{test}` {state} fails, although Python skips the read there") + site.inherited
    return finding(site.rel, site.node, t.ci.qualname, site.attr, why,
                   f"assign self.{site.attr} = None on the construction path that skips it",
                   Severity.ERROR if strict else Severity.WARNING)


def on_no_path(an, site):
    """Assigned only in ``__init__`` methods construction of the class does run, but on a branch
    none of its construction paths takes: a subclass hands its base a constant that turns the
    store off (``super().__init__(use_cache=False)``), so the read raises on every instance. The
    base alone, whose callers choose, is a mode (a warning); the subclass has chosen."""
    p, t, attr = site.placed, site.trace, site.attr
    if p is None or p.live or p.init_not_run or p.shadowed or attr in t.ever_in_ctor or not site.live:
        return NEXT
    ran = [(c, ln) for c, m, ln in t.assigned_anywhere[attr] if m == "__init__" and f"{c}.__init__" in t.inlined]
    names = [k.qualname for k in t.facts.classes]
    ran = [(c, ln) for c, ln in ran if c != t.ci.qualname]  # a base's: the class itself chose its arguments
    if not ran or any(names.count(c) > 1 for c, _ln in ran):
        return NEXT  # a subclass named like its base (espnet's MultiHeadedAttention): whose __init__ ran is unclear
    c, ln = ran[0]
    init = an._cls_by_name(t.ci, c).methods.get("__init__")
    if init is None or site.read.conds or not _param_branch(init, ln):
        # only an unguarded read of a store under a test of the initialiser's own parameters: a
        # store the walk dropped for another reason (a closure __init__ hands on, an instance
        # attribute whose value a deep call sets, a guard property such as mmdet's ``with_rpn``)
        # may still happen
        return NEXT
    under = _enclosing(init, ln)
    return finding(site.rel, site.node, t.ci.qualname, attr,
                   f"{c}.__init__ assigns it ({an._at(t.ci, c, site.rel, ln)}){under}, and no construction path "
                   f"of {t.ci.qualname} reaches that store" + site.inherited, "", Severity.ERROR)


def _param_branch(fn, line: int) -> bool:
    """The store at ``line`` sits in a branch of an ``if`` of ``fn``'s own body (not a nested
    function's) whose test reads only ``fn``'s parameters (``if use_cache:``, ``if head is not None:``)."""
    import ast
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args[1:] + fn.args.kwonlyargs}
    todo = list(fn.body)
    while todo:
        st = todo.pop()
        if isinstance(st, ast.If) and st.lineno < line <= (st.end_lineno or st.lineno):
            names = [n for n in ast.walk(st.test) if isinstance(n, ast.Name)]
            if names and all(n.id in params for n in names) and \
                    not any(isinstance(n, (ast.Call, ast.Attribute, ast.Subscript)) for n in ast.walk(st.test)):
                return True
        if isinstance(st, (ast.If, ast.For, ast.While, ast.Try, ast.With)):
            todo.extend(x for f in ("body", "orelse", "finalbody") for x in getattr(st, f, []))
            todo.extend(x for h in getattr(st, "handlers", []) for x in h.body)
    return False


def _enclosing(fn, line: int) -> str:
    """`` only under `if <test>:` (line N)`` for the innermost compound statement of ``fn`` around
    ``line`` (an ``if``, a loop, a ``try``), or ''."""
    import ast
    best = None
    todo = list(fn.body)
    while todo:
        st = todo.pop()
        if not isinstance(st, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With)):
            continue
        if st.lineno < line <= (st.end_lineno or st.lineno):
            if best is None or st.lineno > best.lineno:
                best = st
            todo.extend(x for field in ("body", "orelse", "finalbody") for x in getattr(st, field, []))
            todo.extend(x for h in getattr(st, "handlers", []) for x in h.body)
    if best is None:
        return ""
    if isinstance(best, ast.If):
        test = ast.unparse(best.test)
        test = test if len(test) <= 60 else test[:57] + "..."
        inside = line <= (best.body[-1].end_lineno or line)
        return f" only under `if {test}:` being {'true' if inside else 'false'} (line {best.lineno})"
    kind = {ast.For: "a loop", ast.AsyncFor: "a loop", ast.While: "a loop", ast.Try: "a try statement",
            ast.With: "a with statement"}[type(best)]
    return f" only inside {kind} (line {best.lineno})"


def on_some_paths(an, site):
    """A read of an attribute some construction path assigns: an error on the paths that lack it,
    a warning when they differ from the others only by a configuration choice (a mode)."""
    from ..severity import _branch_only, _mode_split, _why
    t, attr = site.trace, site.attr
    if attr not in t.ever_in_ctor:
        return NEXT
    live, terminal = list(site.live), list(t.terminal)
    why = _why(live[0], terminal, attr)
    mode = not t.strict and (_mode_split(live, terminal, attr) or _branch_only(live, terminal, attr, an._flags(t.ci)))
    if mode and not _opted_in(site):
        # a mode; when it is the one the constructor's defaults choose and the read does not wait
        # for the caller to opt in (``if g is not None: self.cond(g)``), the message says so. Still
        # a warning: on 116 labelled codebases such reads were real or latent bugs in 12 of 30
        # error groups (analyzer-precision-session15.md, in bench/results/
        # analyzer-precision-history.tar.xz), below the error bar
        state, default = _default_path(an, site, live, terminal, attr, t.init, site.read.conds)
        if default:
            why = f"{_why(state, terminal, attr)}, the path the constructor's defaults take ({default})"
    return finding(site.rel, site.node, t.ci.qualname, attr, why + site.inherited,
                   "", Severity.WARNING if mode else Severity.ERROR)


def _opted_in(site) -> bool:
    """The read sits under a test of one of its method's own parameters (``if g is not None:``,
    ``if lang_emb:``), or of a local computed from one (diffusers' ``gligen_kwargs =
    cross_attention_kwargs.pop("gligen", None)``): the caller passes it when the object was
    built for it."""
    import ast
    fn = site.owner.methods.get(site.mname)
    if fn is None:
        return True
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args[1:] + fn.args.kwonlyargs}
    if fn.args.vararg:
        params.add(fn.args.vararg.arg)
    if fn.args.kwarg:
        params.add(fn.args.kwarg.arg)
    from ..astutil import walk
    for n in walk(fn):  # one step of data flow: locals whose value mentions a parameter
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                any(isinstance(x, ast.Name) and x.id in params for x in ast.walk(n.value)):
            params.add(n.targets[0].id)
    for key, _pol in site.read.conds:
        k = key[4:] if key.startswith("not ") else key
        for suffix in (" is not None", " is None"):
            if k.endswith(suffix):
                k = k[:-len(suffix)]
        if k in params:
            return True
    return False


def _default_path(an, site, live, terminal, attr, init, read_conds) -> tuple:
    """(the path, the defaults) that lead construction down one of the ``live`` paths (which lack
    ``attr``), or (None, '').
    Not when every call of the read's method inside the class sits under a test the defaults
    decide against (diffusers' ``if self.remap is not None: ... self.remap_to_used(...)``)."""
    from ..defaults import defaults_take, never_under_defaults
    if not init or init[2] != "method":
        return None, ""
    classes = site.trace.facts.classes
    sites = an._call_sites(classes, site.mname, site.trace.inlined)
    if sites and all(never_under_defaults(conds, init[1]) for conds in sites):
        return None, ""
    if not sites and any(site.mname in refs for c in classes for m, refs in c.self_refs.items() if m != site.mname):
        return None, ""  # handed out as a callback (``connect("resize", self._on_resize)``): run who knows when
    having = [s for s in terminal if attr in s.assigned]
    common = set.intersection(*(set((c.key, c.holds) for c in s.conds) for s in having)) if having else set()
    # an optional part left out (``cuzinf=None``) counts only where the read itself asks whether it
    # is there (``if self.cuzinf is not None:``): the author expected it to exist, as None
    flag_only = not _read_is_presence_test(site)
    for s in live:
        got = defaults_take(s, common, init[1], read_conds, flag_only)
        if got:
            return s, got
    return None, ""


def _read_is_presence_test(site) -> bool:
    """The read is ``self.x is None`` / ``is not None`` / ``== None``, or the whole test of an
    ``if``/``while``/conditional expression, or the operand of ``not`` / ``and`` / ``or``."""
    import ast
    fn = site.owner.methods.get(site.mname)
    node = site.node
    if fn is None:
        return False
    from ..astutil import walk
    for p in walk(fn):
        if isinstance(p, ast.Compare) and p.left is node and len(p.ops) == 1 and \
                isinstance(p.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and \
                isinstance(p.comparators[0], ast.Constant) and p.comparators[0].value is None:
            return True
        if isinstance(p, (ast.If, ast.While, ast.IfExp)) and p.test is node:
            return True
        if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not) and p.operand is node:
            return True
        if isinstance(p, ast.BoolOp) and node in p.values:
            return True
    return False


def lost_track(an, site):
    """Construction assigns the attribute somewhere but the walk lost the paths' conditions (a
    warning), or deletes it again before construction ends (an error)."""
    t, attr = site.trace, site.attr
    locs = t.assigned_anywhere.get(attr)
    if not locs:
        return NEXT
    rel, ci = site.rel, t.ci
    if attr in t.seen and attr not in t.deleted:
        c, m, ln = locs[0]
        return finding(rel, site.node, ci.qualname, attr,
                       f"not assigned on every construction path ({c}.{m} assigns it at {an._at(ci, c, rel, ln)})"
                       + site.inherited, "", Severity.ERROR if t.strict else Severity.WARNING)
    ran = [(c, m, ln) for c, m, ln in locs if f"{c}.{m}" in t.inlined]
    if ran and attr in t.deleted:
        c, m, ln = ran[0]
        if callers_store_first(t.facts.classes, site.mname, attr):  # gone after construction, restored for each call
            return finding(rel, site.node, ci.qualname, attr,
                           f"assigned in {c}.{m} ({an._at(ci, c, rel, ln)}) and deleted again before construction "
                           f"ends; every caller of {site.mname} stores it first" + site.inherited, "", Severity.WARNING)
        return finding(rel, site.node, ci.qualname, attr,
                       f"assigned in {c}.{m} ({an._at(ci, c, rel, ln)}) but deleted again before construction ends"
                       + site.inherited)
    return NEXT
