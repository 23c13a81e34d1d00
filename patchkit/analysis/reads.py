"""Every ``self.x`` read in a method, with the facts known at the read: enclosing branch
tests, early exits before it, hasattr/getattr guards and ``except AttributeError``."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from .conditions import Fact, _catches_attribute_error, conjuncts, norm_test
from .presence import implied_attrs
from .calltables import REGISTER_METHODS, register_args
from .astutil import COMPREHENSIONS, children, dotted, fast_walk, outer_scope_parts, terminates, walk


@dataclass(frozen=True)
class Read:
    attr: str
    node: ast.AST
    conds: frozenset   # {Fact(key, holds)}
    known: frozenset   # attrs implied present by guards
    guarded: bool
    #: attrs assigned earlier in the same method on every path to the read (local init)
    local: frozenset


def predicates_of(methods) -> dict:
    """{method: {truth: attributes it implies present}} for the methods of one class whose whole
    body returns a guard (``def supports_progress_bar(self): return hasattr(self, "_progress_handler")``):
    ``if self.supports_progress_bar():`` guards a read as the ``hasattr`` itself would (igraph's Shell)."""
    out: dict = {}
    for name, fn in methods.items():
        body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None or \
                fn.decorator_list or not fn.args.args:
            continue
        sn = fn.args.args[0].arg
        got = {True: frozenset(implied_attrs(body[0].value, True, sn)),
               False: frozenset(implied_attrs(body[0].value, False, sn))}
        if got[True] or got[False]:
            out[name] = got
    return out


class ReadCollector:
    def __init__(self, selfname: str, predicates: Optional[dict] = None):
        self.selfname = selfname
        #: the class's guard methods (predicates_of): ``if self.has_x():`` implies x
        self.predicates = predicates or {}
        self.reads: list[Read] = []
        #: locals bound to getattr(self, "x", default): ``if v:`` then implies x exists
        self.aliases: dict[str, str] = {}
        #: locals holding a guard's result: ``has = hasattr(self, "x")``, ``ok = n > 0 and
        #: getattr(self, "x", None) is not None`` -> {truth: attrs implied present}
        self.flags: dict[str, dict[bool, frozenset]] = {}
        #: aliases whose getattr default is None: ``v is not None`` then implies the attribute exists
        self.none_default: set[str] = set()
        #: locals bound to the instance's dict (``attrs = vars(self)``): ``"x" in attrs`` implies x
        self.instance_dicts: set[str] = set()

    def implied(self, test: ast.expr, pol: bool) -> set:
        out = set(implied_attrs(test, pol, self.selfname))
        if self.predicates:
            for node, p in conjuncts(test, pol):
                if isinstance(node, ast.Call) and not node.args and not node.keywords and \
                        isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
                        node.func.value.id == self.selfname and node.func.attr in self.predicates:
                    out |= self.predicates[node.func.attr][p]
        if self.instance_dicts:
            for node, p in conjuncts(test, pol):
                if p and isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In) and \
                        isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) and \
                        isinstance(node.comparators[0], ast.Name) and node.comparators[0].id in self.instance_dicts:
                    out.add(node.left.value)
        if self.flags:
            for node, p in conjuncts(test, pol):
                if isinstance(node, ast.Name) and node.id in self.flags:
                    out |= self.flags[node.id][p]
        if self.aliases:
            for node, p in conjuncts(test, pol):
                if p and isinstance(node, ast.Name) and node.id in self.aliases:
                    out.add(self.aliases[node.id])
                # `v is not None` (conjuncts: `v is None` false) with v = getattr(self, "x", None)
                if not p and isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Is) \
                        and isinstance(node.left, ast.Name) and node.left.id in self.none_default \
                        and node.left.id in self.aliases and isinstance(node.comparators[0], ast.Constant) \
                        and node.comparators[0].value is None:
                    out.add(self.aliases[node.left.id])
                # len(v) == 1 / len(v) > 0 with v = getattr(self, "x", []): the default is empty
                if p and isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                        isinstance(node.left, ast.Call) and dotted(node.left.func) == "len" and \
                        len(node.left.args) == 1 and isinstance(node.left.args[0], ast.Name) and \
                        node.left.args[0].id in self.aliases and isinstance(node.comparators[0], ast.Constant) and \
                        isinstance(node.comparators[0].value, int) and (
                            (isinstance(node.ops[0], ast.Eq) and node.comparators[0].value >= 1) or
                            (isinstance(node.ops[0], ast.Gt) and node.comparators[0].value >= 0)):
                    out.add(self.aliases[node.left.args[0].id])
        return out

    def facts(self, test: ast.expr, pol: bool) -> frozenset:
        return frozenset(Fact(norm_test(n, self.selfname), p) for n, p in conjuncts(test, pol))

    def _case_fact(self, subject: ast.expr, pattern: ast.pattern) -> frozenset:
        """``case Kind.X:`` under ``match subject:`` is the fact ``subject == Kind.X``."""
        values = [pattern] if isinstance(pattern, ast.MatchValue) else \
            list(pattern.patterns) if isinstance(pattern, ast.MatchOr) else []
        if not values or not all(isinstance(v, ast.MatchValue) for v in values):
            return frozenset()
        subj = norm_test(subject, self.selfname)
        texts = [ast.unparse(v.value) for v in values]
        return frozenset({Fact(f"{subj} == {texts[0]}" if len(texts) == 1 else f"{subj} in ({', '.join(texts)})", True)})

    # statements ------------------------------------------------------------
    def block(self, body, conds, known, guarded, local) -> frozenset:
        for s in body:
            local = self.stmt(s, conds, known, guarded, local)
            if terminates([s]):
                break  # what follows a return/raise (or an if whose every branch leaves) never runs
            if isinstance(s, ast.If):
                if terminates(s.body) and not terminates(s.orelse):
                    conds = conds | self.facts(s.test, False)
                    known = known | self.implied(s.test, False)
                elif terminates(s.orelse) and not terminates(s.body):
                    conds = conds | self.facts(s.test, True)
                    known = known | self.implied(s.test, True)
            elif isinstance(s, ast.Assert):
                conds = conds | self.facts(s.test, True)
                known = known | self.implied(s.test, True)
            elif isinstance(s, ast.Try) and s.handlers and all(terminates(h.body) for h in s.handlers) and \
                    any(_catches_attribute_error(h) for h in s.handlers):
                # `try: stream = self.stream / except AttributeError: return`: past it, stream exists
                # (and so does what every assignment of it assigns too: coassign reads the fact)
                got = self._read_plainly(s.body)
                known = known | got
                conds = conds | {Fact(f"hasattr({self.selfname}, {a!r})", True) for a in got}
        return local

    def _read_plainly(self, body) -> frozenset:
        """``self.<a>`` loads in the plain assignments and expression statements of ``body`` (not
        under a branch, a lambda or a comprehension): each one ran if the block finished."""
        sn, out = self.selfname, set()
        for st in body:
            if not isinstance(st, (ast.Assign, ast.AnnAssign, ast.Expr)) or st.value is None:
                continue
            stack = [st.value]
            while stack:
                n = stack.pop()
                if isinstance(n, (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.SetComp, ast.DictComp,
                                  ast.GeneratorExp)):
                    continue
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == sn and \
                        isinstance(n.ctx, ast.Load):
                    out.add(n.attr)
                stack.extend(ast.iter_child_nodes(n))
        return frozenset(out)

    def stmt(self, s, conds, known, guarded, local) -> frozenset:
        sn = self.selfname
        if isinstance(s, ast.If):
            self.expr(s.test, conds, known, guarded, local)
            l1 = self.block(s.body, conds | self.facts(s.test, True),
                            known | self.implied(s.test, True), guarded, local)
            l2 = self.block(s.orelse, conds | self.facts(s.test, False),
                            known | self.implied(s.test, False), guarded, local)
            if terminates(s.body):
                return l2
            if terminates(s.orelse):
                return l1
            # an attribute a branch's test proves present counts as set on that branch:
            # `if not hasattr(self, "x"): self.x = ...` leaves x set either way
            return (l1 | self.implied(s.test, True)) & (l2 | self.implied(s.test, False))
        if isinstance(s, ast.While):
            self.expr(s.test, conds, known, guarded, local)
            self.block(s.body, conds | self.facts(s.test, True), known | self.implied(s.test, True), guarded, local)
            self.block(s.orelse, conds, known, guarded, local)
            return local
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.expr(s.iter, conds, known, guarded, local)
            self.block(s.body, conds, known, guarded, local | self._stores(s.target))
            self.block(s.orelse, conds, known, guarded, local)
            return local
        if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            g = guarded or any(_catches_attribute_error(h) for h in s.handlers)
            l1 = self.block(s.body, conds, known, g, local)
            for h in s.handlers:
                self.block(h.body, conds, known, guarded, local)
            l1 = self.block(s.orelse, conds, known, guarded, l1)
            self.block(s.finalbody, conds, known, guarded, local)
            return l1 if not s.handlers else local
        if isinstance(s, (ast.With, ast.AsyncWith)):
            g = guarded
            for item in s.items:
                self.expr(item.context_expr, conds, known, guarded, local)
                name = (dotted(item.context_expr) or "").split(".")[-1].lower()
                if "suppress" in name:
                    g = True
            return self.block(s.body, conds, known, g, local)
        if isinstance(s, ast.Match):
            self.expr(s.subject, conds, known, guarded, local)
            for c in s.cases:
                if c.guard is not None:
                    self.expr(c.guard, conds, known, guarded, local)
                self.block(c.body, conds | self._case_fact(s.subject, c.pattern), known, guarded, local)
            return local
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if self._rebinds_self(s.args) or self._assigns_self(s):
                return local
            for d in s.decorator_list:
                self.expr(d, conds, known, guarded, local)
            self.block(s.body, conds, known, guarded, local)  # closures run later with the same self
            return local
        if isinstance(s, ast.ClassDef):
            return local
        if isinstance(s, ast.Assign):
            self.expr(s.value, conds, known, guarded, local)
            v = s.value
            for t in s.targets:
                if isinstance(t, ast.Name):
                    flag = {True: frozenset(self.implied(v, True)), False: frozenset(self.implied(v, False))}
                    if flag[True] or flag[False]:
                        self.flags[t.id] = flag
                    else:
                        self.flags.pop(t.id, None)
                    if isinstance(v, ast.Call) and dotted(v.func) == "getattr" and len(v.args) == 3 and \
                            isinstance(v.args[0], ast.Name) and v.args[0].id == sn and \
                            isinstance(v.args[1], ast.Constant) and isinstance(v.args[1].value, str):
                        self.aliases[t.id] = v.args[1].value
                        if isinstance(v.args[2], ast.Constant) and v.args[2].value is None:
                            self.none_default.add(t.id)
                        else:
                            self.none_default.discard(t.id)
                    else:
                        self.aliases.pop(t.id, None)
                    # attrs = vars(self) / self.__dict__: `"x" in attrs` then implies x (mercurial's workingfilectx)
                    if (isinstance(v, ast.Call) and dotted(v.func) == "vars" and len(v.args) == 1 and
                            isinstance(v.args[0], ast.Name) and v.args[0].id == sn) or dotted(v) == f"{sn}.__dict__":
                        self.instance_dicts.add(t.id)
                    else:
                        self.instance_dicts.discard(t.id)
            for t in s.targets:
                self.target(t, conds, known, guarded, local)
                local = local | self._stores(t)
            return local
        if isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.expr(s.value, conds, known, guarded, local)
                self.target(s.target, conds, known, guarded, local)
                local = local | self._stores(s.target)
            return local
        if isinstance(s, ast.AugAssign):
            self.expr(s.value, conds, known, guarded, local)
            self.expr(s.target if not isinstance(s.target, ast.Attribute) else
                      ast.Attribute(value=s.target.value, attr=s.target.attr, ctx=ast.Load(),
                                    lineno=s.target.lineno, col_offset=s.target.col_offset),
                      conds, known, guarded, local)
            return local | self._stores(s.target)
        if isinstance(s, ast.Delete):
            for t in s.targets:
                self.target(t, conds, known, guarded, local)
            return local
        for child in children(s):
            if isinstance(child, ast.expr):
                self.expr(child, conds, known, guarded, local)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            f = dotted(s.value.func) or ""
            reg = register_args(s.value) if f.startswith(sn + ".") and f.split(".")[-1] in REGISTER_METHODS else ()
            if reg and isinstance(reg[0], ast.Constant):
                local = local | {str(reg[0].value)}
            if f in ("setattr",) and len(s.value.args) >= 2 and isinstance(s.value.args[0], ast.Name) and \
                    s.value.args[0].id == sn and isinstance(s.value.args[1], ast.Constant):
                local = local | {str(s.value.args[1].value)}
        return local

    def _assigns_self(self, fn) -> bool:
        """A nested function binding the name itself (pip's cachecontrol: ``self = weak_self()``)."""
        sn = self.selfname
        return any(isinstance(n, ast.Name) and n.id == sn and isinstance(n.ctx, ast.Store) for n in fast_walk(fn))

    def _rebinds_self(self, args: ast.arguments) -> bool:
        names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        return self.selfname in names

    def _stores(self, t) -> frozenset:
        sn = self.selfname
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == sn:
            return frozenset({t.attr})
        if isinstance(t, (ast.Tuple, ast.List)):
            out = frozenset()
            for e in t.elts:
                out |= self._stores(e.value if isinstance(e, ast.Starred) else e)
            return out
        return frozenset()

    def target(self, t, conds, known, guarded, local):
        # stores to self.x are not reads; self.x.y = / self.x[i] = read self.x
        if isinstance(t, ast.Attribute):
            if isinstance(t.value, ast.Name) and t.value.id == self.selfname:
                return
            self.expr(t.value, conds, known, guarded, local)
        elif isinstance(t, ast.Subscript):
            self.expr(t.value, conds, known, guarded, local)
            self.expr(t.slice, conds, known, guarded, local)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                self.target(e.value if isinstance(e, ast.Starred) else e, conds, known, guarded, local)

    # expressions -------------------------------------------------------------
    def expr(self, e, conds, known, guarded, local):
        sn = self.selfname
        if isinstance(e, ast.Attribute):
            if isinstance(e.value, ast.Name) and e.value.id == sn and isinstance(e.ctx, ast.Load):
                self.reads.append(Read(e.attr, e, conds, frozenset(known), guarded, local))
                return
            self.expr(e.value, conds, known, guarded, local)
            return
        if isinstance(e, ast.BoolOp):
            pol = isinstance(e.op, ast.And)
            for v in e.values:
                self.expr(v, conds, known, guarded, local)
                conds = conds | self.facts(v, pol)
                known = known | self.implied(v, pol)
            return
        if isinstance(e, ast.IfExp):
            self.expr(e.test, conds, known, guarded, local)
            self.expr(e.body, conds | self.facts(e.test, True), known | self.implied(e.test, True), guarded, local)
            self.expr(e.orelse, conds | self.facts(e.test, False), known | self.implied(e.test, False), guarded, local)
            return
        if isinstance(e, ast.Lambda):
            if self._rebinds_self(e.args):
                return
            self.expr(e.body, conds, known, guarded, local)
            return
        if isinstance(e, COMPREHENSIONS):
            outer = outer_scope_parts(e, sn)
            if outer is not None:  # a loop target rebinds the instance's name: later parts read it
                for part in outer:
                    self.expr(part, conds, known, guarded, local)
                return
        if isinstance(e, ast.Call):
            f = dotted(e.func) or ""
            if f == "getattr" and len(e.args) == 2 and isinstance(e.args[0], ast.Name) and e.args[0].id == sn \
                    and isinstance(e.args[1], ast.Constant) and isinstance(e.args[1].value, str):
                self.reads.append(Read(e.args[1].value, e, conds, frozenset(known), guarded, local))
                return
            if f in ("hasattr", "getattr", "setattr", "delattr") and e.args and isinstance(e.args[0], ast.Name) \
                    and e.args[0].id == sn:
                for a in e.args[1:]:
                    self.expr(a, conds, known, guarded, local)
                return
        for child in children(e):
            if isinstance(child, ast.expr):
                self.expr(child, conds, known, guarded, local)
            elif isinstance(child, (ast.comprehension, ast.keyword)):
                for sub in children(child):
                    if isinstance(sub, ast.expr):
                        self.expr(sub, conds, known, guarded, local)


def collect_reads(fn: ast.FunctionDef, selfname: str, predicates: Optional[dict] = None) -> list[Read]:
    rc = ReadCollector(selfname, predicates)
    rc.block(fn.body, frozenset(), frozenset(), False, frozenset())
    dead = _always_none(fn)
    if not dead:
        return rc.reads
    return [r for r in rc.reads if not any(
        r.node.lineno > line and any(c.key in (f"{name} is None", name) and c.holds is (c.key == name) for c in r.conds)
        for name, line in dead.items())]


def _always_none(fn) -> dict:
    """{local: line} for a local bound once, to None, by a statement of the function's own body,
    and never rebound (no other store, no ``nonlocal``/``global`` of it anywhere): a read under
    ``if local is not None:`` or ``if local:`` after that line is dead code (modelscope's
    ``mask_dict = None`` left behind when the branch that set it was removed)."""
    top: dict = {}
    for st in fn.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                isinstance(st.value, ast.Constant) and st.value.value is None:
            top.setdefault(st.targets[0].id, []).append(st)
    if not top:
        return {}
    stores: dict = {}
    for n in walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and n.id in top:
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (ast.Nonlocal, ast.Global)):
            for name in n.names:
                stores[name] = stores.get(name, 0) + 2
        elif isinstance(n, ast.NamedExpr) and n.target.id in top:
            stores[n.target.id] = stores.get(n.target.id, 0) + 2
    return {name: sts[0].lineno for name, sts in top.items() if len(sts) == 1 and stores.get(name) == 1}
