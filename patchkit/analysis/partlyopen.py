"""Classes open for some names only. A computed store named by an attribute
(``self.add_module(self.norm_name, m)``, mmcv's ConvModule) adds the attribute that one holds: any
name no literal store gives, never one that it does. A ``__getattr__`` that serves a configuration
store: it returns ``<store>[name]`` only when the name is a key of a store on the instance whose name says config (diffusers' ``ConfigMixin`` and
``ModelMixin``: ``self._internal_dict``, filled by ``@register_to_config`` from the constructor's
arguments), and otherwise raises AttributeError or hands the name to the base's ``__getattr__``.
Such a class is open only for its configuration keys, the parameters of the ``__init__`` methods of
its MRO and the keywords of its ``register_to_config(...)`` calls; every other attribute is judged
as in a closed class (diffusers 0.35.2's ``VisualClozeProcessor.height`` and 0.24.0's
``DEISMultistepScheduler.sigmas`` were real AttributeErrors the whole-class opening hid)."""
from __future__ import annotations

import ast

from .astutil import dotted, fast_walk, is_super, memo_on

#: words in a store's name that say it holds configuration
_CONFIG_WORDS = ("config", "_internal_dict")


def serves_config(fn: ast.FunctionDef) -> bool:
    """``fn`` (a ``__getattr__``) returns only ``<config store>[name]`` or the base's
    ``__getattr__(name)``, and ends by raising or delegating."""
    args = fn.args.args
    if len(args) != 2 or not fn.body:
        return False
    selfname, name = args[0].arg, args[1].arg
    returns = [n for n in fast_walk(fn) if isinstance(n, ast.Return)]
    if not returns or not all(_store_lookup(r.value, selfname, name) or _delegates(r.value, fn, name)
                              for r in returns):
        return False
    last = fn.body[-1]
    return isinstance(last, ast.Raise) or (isinstance(last, ast.Return) and _delegates(last.value, fn, name))


def _store_lookup(v, selfname: str, name: str) -> bool:
    """``self.<store>[name]`` or ``self.__dict__["<store>"][name]``, the store named for config."""
    if not (isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Name) and v.slice.id == name):
        return False
    text = ast.unparse(v.value)
    return text.startswith(f"{selfname}.") and any(w in text for w in _CONFIG_WORDS)


def _delegates(v, fn, name: str) -> bool:
    """``super().__getattr__(name)`` or ``Base.__getattr__(self, name)``."""
    if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "__getattr__"):
        return False
    return (is_super(v.func.value, fn) and [dotted(a) for a in v.args] == [name]) or \
        (len(v.args) == 2 and dotted(v.args[1]) == name)


def config_keys(classes) -> frozenset:
    """The names a config-serving ``__getattr__`` may answer for: every parameter of an
    ``__init__`` of ``classes`` and every keyword of a ``register_to_config(...)`` call in them."""
    return frozenset().union(*(memo_on(c, "_pk_config_keys", lambda c=c: _own_config_keys(c)) for c in classes))


def _own_config_keys(c) -> frozenset:
    """config_keys of one class, computed once per class (every subclass asks again)."""
    keys: set = set()
    init = c.methods.get("__init__")
    if init is not None:
        a = init.args
        keys |= {x.arg for x in a.posonlyargs + a.args[1:] + a.kwonlyargs}
    for fn in c.methods.values():
        for n in fast_walk(fn):
            if isinstance(n, ast.Call) and (dotted(n.func) or "").endswith("register_to_config"):
                keys |= {k.arg for k in n.keywords if k.arg}
    return frozenset(keys | _default_keys(c))


def _default_keys(c) -> set:
    """The keys of a dict display in ``c``'s class body that ``c.__init__`` copies into the store
    ``c.__getattr__`` serves (``self.config = self._defaults.copy()``: vllm-ascend's EplbConfig)."""
    getattr_fn, init = c.methods.get("__getattr__"), c.methods.get("__init__")
    literal = _class_dicts(c)
    if getattr_fn is None or init is None or not literal or not getattr_fn.args.args or not init.args.args:
        return set()
    gself = getattr_fn.args.args[0].arg
    served = {r.value.value.attr for r in fast_walk(getattr_fn) if isinstance(r, ast.Return)
              and isinstance(r.value, ast.Subscript) and isinstance(r.value.value, ast.Attribute)
              and isinstance(r.value.value.value, ast.Name) and r.value.value.value.id == gself}
    iself, cname = init.args.args[0].arg, c.qualname.split(".")[-1]
    out: set = set()
    for n in fast_walk(init):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) and \
                isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id == iself and n.targets[0].attr in served:
            src = _copied_dict(n.value, (iself, cname))
            if src in literal:
                out |= literal[src]
    return out


def _class_dicts(c) -> dict:
    """{name: its string keys} of the dict displays bound at the top of ``c``'s class body."""
    out = {}
    for st in c.node.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Dict):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            keys = {k.value for k in st.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            for t in targets:
                if isinstance(t, ast.Name):
                    out[t.id] = frozenset(keys)
    return out


def _copied_dict(v, owners: tuple) -> str:
    """``D`` of ``self.D.copy()``, ``dict(self.D)``, ``copy.(deep)copy(self.D)``, ``{**self.D}``
    (also ``Cls.D``; ``owners``: the instance's and the class's names), else ''."""
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "copy" and not v.args:
        inner = v.func.value
    elif isinstance(v, ast.Call) and (dotted(v.func) or "") in ("dict", "copy.copy", "copy.deepcopy", "deepcopy") \
            and len(v.args) == 1:
        inner = v.args[0]
    elif isinstance(v, ast.Dict) and len(v.keys) == 1 and v.keys[0] is None:
        inner = v.values[0]
    else:
        return ""
    return inner.attr if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and \
        inner.value.id in owners else ""


def narrow(classes, findings: list, assigned_anywhere) -> list:
    """The findings a partly open class (``classes``: its MRO) is still reported for."""
    own = [c for c in classes if not c.module.external]
    if any(c.attr_named for c in own):
        findings = [x for x in findings if x.attr in assigned_anywhere]
    if any(c.config_getattr for c in own):
        keys = config_keys(own)  # the __getattr__ answers for these
        findings = [x for x in findings if x.attr not in keys]
    return findings
