"""What the walkers know about calls by name, shared by every walker (construction flow, read
collection, class scan): calls that never return, the ``nn.Module`` registration methods that
assign an attribute by its string name, and calls that take the instance but never set anything on it."""
from __future__ import annotations

#: library functions that always raise, by the name they are imported under (py2neo's
#: ``from six import raise_from``): a call of one ends the path like ``raise``
LIBRARY_NORETURN = {"six.raise_from", "six.reraise", "future.utils.raise_from", "future.utils.raise_",
                    "future.utils.raise_with_traceback"}
NORETURN_CALLS = {"sys.exit", "exit", "quit", "os._exit", "os.abort", "_exit", "abort",
                  "pytest.fail", "pytest.skip", "typing.assert_never", "assert_never"} | LIBRARY_NORETURN
#: calls that keep, show or inspect what they are given and never call it (``log.debug("%r", f)``,
#: ``pending.append(f)``): handing them ``super().__init__`` does not run it
KEEPS_ARGUMENTS = frozenset({"append", "extend", "add", "insert", "put", "debug", "info", "warning", "warn", "error",
                             "exception", "critical", "log", "print", "repr", "str", "format", "id", "isinstance",
                             "callable", "getattr", "hasattr", "setattr", "type", "vars", "dir", "hash"})
REGISTER_METHODS = {"register_buffer", "register_parameter", "add_module", "register_module"}
#: their keyword names, in positional order (``register_parameter(name=..., param=...)``)
_REGISTER_KEYWORDS = (("name",), ("tensor", "param", "parameter", "module", "value"))


def register_args(call) -> list:
    """The arguments of a ``register_*``/``add_module`` call in positional order, keyword forms
    included: gpytorch's ``self.register_parameter(name='bias', parameter=...)``."""
    args = list(call.args)
    for names in _REGISTER_KEYWORDS[len(args):]:
        kw = next((k.value for k in call.keywords if k.arg in names), None)
        if kw is None:
            break
        args.append(kw)
    return args
#: calls that take the instance and never set an attribute on it: ``hasattr(self, f"x_{i}")`` or
#: ``isinstance(self, X)`` does not let an outside function assign anything (unlike ``f(self)``)
NON_ASSIGNING_CALLS = {"hasattr", "isinstance", "issubclass", "id", "type", "len", "repr", "str", "hash", "bool",
                       "callable", "print", "format", "dir", "iter", "sorted", "list", "tuple", "weakref.ref",
                       "weakref.proxy", "weakref.WeakMethod", "copy.copy", "copy.deepcopy", "inspect.signature",
                       "inspect.getmodule", "inspect.getfile", "pickle.dumps", "json.dumps"}


def setattr_on(call, selfname: str):
    """(name node, value node or None) when ``call`` sets an attribute on the instance by name:
    ``setattr(self, name, v)``, ``object.__setattr__(self, name, v)``, ``Base.__setattr__(self,
    name, v)``, ``super().__setattr__(name, v)`` / ``super(Cls, self).__setattr__(name, v)``
    (scapy's ciphers store their key this way, around their own ``__setattr__``),
    ``self.__setattr__(name, v)``, ``self.__dict__.setdefault(name, v)``; else None."""
    import ast
    from .astutil import is_super_call
    func = call.func
    args = call.args
    if isinstance(func, ast.Attribute) and func.attr == "setdefault" and isinstance(func.value, ast.Attribute) and \
            func.value.attr == "__dict__" and isinstance(func.value.value, ast.Name) and func.value.value.id == selfname:
        # self.__dict__.setdefault("x", v): x is there afterwards (unsloth-zoo's _media_checks)
        return (args[0], args[1] if len(args) > 1 else None) if args else None
    if isinstance(func, ast.Name) and func.id == "setattr":
        rest = args
    elif isinstance(func, ast.Attribute) and func.attr == "__setattr__":
        v = func.value
        if is_super_call(v) or isinstance(v, ast.Name) and v.id == selfname:
            # super().__setattr__("x", v); self.__setattr__("x", v), which is self.x = v spelled out
            # (demucs' CrossTransformerEncoderLayer.mask)
            return (args[0], args[1] if len(args) > 1 else None) if args else None
        rest = args  # object.__setattr__(self, ...), Base.__setattr__(self, ...)
    else:
        return None
    if len(rest) >= 2 and isinstance(rest[0], ast.Name) and rest[0].id == selfname:
        return rest[1], rest[2] if len(rest) > 2 else None
    return None
