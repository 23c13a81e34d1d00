"""What the walkers know about calls by name, shared by every walker (construction flow, read
collection, class scan): calls that never return, the ``nn.Module`` registration methods that
assign an attribute by its string name, and calls that take the instance but never set anything on it."""
from __future__ import annotations

NORETURN_CALLS = {"sys.exit", "exit", "quit", "os._exit", "os.abort", "_exit", "abort",
                  "pytest.fail", "pytest.skip", "typing.assert_never", "assert_never"}
REGISTER_METHODS = {"register_buffer", "register_parameter", "add_module", "register_module"}
#: calls that take the instance and never set an attribute on it: ``hasattr(self, f"x_{i}")`` or
#: ``isinstance(self, X)`` does not let an outside function assign anything (unlike ``f(self)``)
NON_ASSIGNING_CALLS = {"hasattr", "isinstance", "issubclass", "id", "type", "len", "repr", "str", "hash", "bool",
                       "callable", "print", "format", "dir", "iter", "sorted", "list", "tuple", "weakref.ref",
                       "weakref.proxy", "weakref.WeakMethod", "copy.copy", "copy.deepcopy", "inspect.signature",
                       "inspect.getmodule", "inspect.getfile", "pickle.dumps", "json.dumps"}
