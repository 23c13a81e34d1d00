"""What bases outside the analysed code provide: the kinds of library base the analyzer
knows without reading their source (``nn.Module``, exceptions, threads, field-generating
bases), and the attributes each kind sets up."""
from __future__ import annotations

import builtins
from dataclasses import dataclass

ORDINARY = {"object", "ABC", "abc.ABC", "Generic", "typing.Generic"}
TORCH_MODULE_ATTRS = frozenset("""training _parameters _buffers _non_persistent_buffers_set _backward_pre_hooks
_backward_hooks _is_full_backward_hook _forward_hooks _forward_hooks_with_kwargs _forward_hooks_always_called
_forward_pre_hooks _forward_pre_hooks_with_kwargs _state_dict_hooks _state_dict_pre_hooks
_load_state_dict_pre_hooks _load_state_dict_post_hooks _modules call_super_init forward register_buffer
register_parameter add_module register_module get_submodule get_parameter get_buffer get_extra_state
set_extra_state apply cuda ipu xpu mtia cpu type float double half bfloat16 to_empty to
register_full_backward_pre_hook register_backward_hook register_full_backward_hook register_forward_pre_hook
register_forward_hook state_dict load_state_dict parameters named_parameters buffers named_buffers children
named_children modules named_modules train eval requires_grad_ zero_grad share_memory extra_repr compile
dump_patches _version _apply _call_impl _wrapped_call_impl _get_name _load_from_state_dict _save_to_state_dict
_named_members _register_state_dict_hook _register_load_state_dict_pre_hook register_load_state_dict_post_hook
_replicate_for_data_parallel __call__ __dict__ __class__ __getattr__ __setattr__ __delattr__ __dir__
__setstate__ __getstate__ __repr__ register_load_state_dict_pre_hook register_state_dict_pre_hook
register_state_dict_post_hook set_submodule _compiled_call_impl _get_backward_hooks _get_backward_pre_hooks
_slow_forward _maybe_warn_non_full_backward_hook _state_dict_impl""".split())
EXC_ATTRS = frozenset("args with_traceback add_note __traceback__ __cause__ __context__ __suppress_context__ __notes__ "
                      "errno strerror filename filename2 msg lineno offset text name obj path code value "
                      "winerror characters_written encoding reason object start end end_lineno end_offset "
                      "print_file_and_line exceptions message derive split subgroup".split())
THREAD_ATTRS = frozenset("name daemon ident native_id start run join is_alive isDaemon setDaemon getName setName "
                         "_target _args _kwargs _name _daemonic _started _is_stopped _stderr _invoke_excepthook "
                         "_tstate_lock _ident".split())
FIELD_BASE_ATTRS = frozenset("""_replace _asdict _fields _make _field_defaults count index
model_dump model_dump_json model_copy model_fields model_config model_validate model_post_init
model_fields_set model_extra dict json copy parse_obj schema __fields__ __fields_set__ __struct_fields__
__struct_config__ __pydantic_fields_set__ __pydantic_extra__ __pydantic_private__ __pydantic_fields__
__pydantic_decorators__ __pydantic_validator__ __pydantic_serializer__ __pydantic_core_schema__
model_computed_fields model_json_schema model_validate_json model_construct
__config__ __validators__ __pre_root_validators__ __post_root_validators__ __schema_cache__ __json_encoder__
__custom_root_type__ __private_attributes__ __class_vars__ __signature__ __exclude_fields__ __include_fields__
parse_raw parse_file from_orm construct schema_json update_forward_refs
__repr_name__ __repr_args__ __repr_str__ __repr_recursion__ __pretty__ __rich_repr__ model_rebuild
model_parametrized_name model_post_init __get_pydantic_core_schema__ __get_pydantic_json_schema__""".split())  # pydantic v1's metaclass; pydantic's Representation mixin (v1 and v2)
OBJECT_ATTRS = frozenset(dir(object())) | {"__dict__", "__class__", "__module__", "__weakref__", "__orig_class__"}
FIELD_BASES = {"BaseModel": "pydantic", "BaseSettings": "pydantic", "RootModel": "pydantic",
               "Struct": "msgspec", "NamedTuple": "namedtuple"}
SKIP_BASES = {"TypedDict", "Protocol", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}
#: (``builtins`` itself: in an imported module ``__builtins__`` is the builtins *dict*, whose dir()
#: lists dict methods; reading it that way left this set empty and every exception class unknown)
BUILTIN_EXC = {n for n in dir(builtins)
               if n.endswith(("Error", "Exception", "Warning", "Exit", "Interrupt", "Group")) or n == "StopIteration"}

#: library classes whose state is known without their source (torch's, when torch is not installed
#: here to be read): closed classes, with the names their ``__init__`` and class body give an
#: instance. A subclass's read of anything else is its own business (fairseq's SubsampleDataset
#: reads a ``self.shuffle`` that neither it nor ``torch.utils.data.Dataset`` sets).
_OPTIMIZER = frozenset("""defaults state param_groups step zero_grad state_dict load_state_dict add_param_group
register_step_pre_hook register_step_post_hook register_state_dict_pre_hook register_state_dict_post_hook
register_load_state_dict_pre_hook register_load_state_dict_post_hook profile_hook_step""".split())
_LR_SCHEDULER = frozenset("""optimizer base_lrs last_epoch verbose get_lr get_last_lr step state_dict load_state_dict
print_lr _last_lr _step_count _get_lr_called_within_step _initial_step""".split())
#: numpy's ndarray (C, no source): what an instance of a subclass has from it
_NDARRAY = frozenset("""T base ctypes data device dtype flags flat imag itemsize mT nbytes ndim real shape size
strides all any argmax argmin argpartition argsort astype byteswap choose clip compress conj conjugate copy
cumprod cumsum diagonal dot dump dumps fill flatten getfield item itemset max mean min newbyteorder nonzero
partition prod ptp put ravel repeat reshape resize round searchsorted setfield setflags sort squeeze std sum
swapaxes take tobytes tofile tolist tostring trace transpose var view to_device __array__ __array_finalize__
__array_function__ __array_interface__ __array_priority__ __array_struct__ __array_ufunc__ __array_wrap__
__array_namespace__ __dlpack__ __dlpack_device__ __len__ __getitem__ __setitem__ __iter__ __contains__ __bool__
__int__ __float__ __complex__ __index__ __copy__ __deepcopy__ __setstate__ __reduce__ __reduce_ex__ __class_getitem__
__delitem__ __buffer__ __matmul__ __rmatmul__ __imatmul__ __abs__ __neg__ __pos__ __invert__""".split()) | OBJECT_ATTRS | \
    frozenset(f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift",
                                          "and", "or", "xor", "divmod") for p in ("", "r", "i")) | \
    frozenset(f"__{op}__" for op in ("lt", "le", "eq", "ne", "gt", "ge"))
#: builtin types a class may derive from: no source to read, and an instance holds only what their
#: type gives it (a ``namedtuple(...)`` base is a tuple)
_BUILTIN_TYPES = ("tuple", "list", "dict", "set", "frozenset", "str", "bytes", "bytearray", "int", "float", "complex")
BUILTIN_BASES = frozenset(f"{p}{n}" for n in _BUILTIN_TYPES for p in ("", "builtins."))
CLOSED_BASES = {
    **{name: frozenset(dir(getattr(builtins, name.split(".")[-1]))) for name in BUILTIN_BASES},
    "torch.utils.data.Dataset": frozenset(), "torch.utils.data.dataset.Dataset": frozenset(),
    "torch.utils.data.IterableDataset": frozenset(), "torch.utils.data.dataset.IterableDataset": frozenset(),
    "torch.utils.data.Sampler": frozenset(), "torch.utils.data.sampler.Sampler": frozenset(),
    "torch.optim.Optimizer": _OPTIMIZER, "torch.optim.optimizer.Optimizer": _OPTIMIZER,
    "torch.optim.lr_scheduler.LRScheduler": _LR_SCHEDULER, "torch.optim.lr_scheduler._LRScheduler": _LR_SCHEDULER,
    "numpy.ndarray": _NDARRAY, "np.ndarray": _NDARRAY,
}


@dataclass
class External:
    name: str
    kind: str  # ordinary | module | exception | thread | field | skip | closed | unknown
    #: for a closed base: the names it gives its instances
    provides: frozenset = frozenset()

    @property
    def key(self):
        return ("<external>", self.name)



#: where a qualified field base must come from (mmengine's ``BaseModel`` is an nn.Module, not pydantic)
FIELD_BASE_MODULES = {"pydantic": ("pydantic", "pydantic_settings", "sqlmodel", "beanie", "odmantic"),
                      "msgspec": ("msgspec",), "namedtuple": ("typing", "typing_extensions", "collections")}


def _from_library(name: str, library: str) -> bool:
    """A bare name (its import not resolved) may be the library's; a qualified one must come from it."""
    if "." not in name:
        return True
    return name.split(".")[0] in FIELD_BASE_MODULES.get(library, (library,))


def classify_external(name: str) -> External:
    last = name.split(".")[-1]
    if name in ORDINARY or last in ("object", "ABC", "Generic"):
        return External(name, "ordinary")
    if last == "Module" and (name in ("Module", "nn.Module") or name.startswith(("torch.", "oneflow."))):
        # torch's (or a mirror of its API); ``mlx.nn.Module`` is a dict whose __setattr__ stores
        # anything: none of torch's registries, none of its rules
        return External(name, "module")
    if last in FIELD_BASES and _from_library(name, FIELD_BASES[last]):
        return External(name, "field")
    if last in SKIP_BASES:
        return External(name, "skip")
    if last in BUILTIN_EXC and (name == last or name.startswith("builtins.")):
        return External(name, "exception")
    if last == "Thread":
        return External(name, "thread")
    if name in CLOSED_BASES:
        return External(name, "closed", CLOSED_BASES[name])
    return External(name, "unknown")


def known_without_source(name: str) -> bool:
    """A qualified base name that is, for certain, a library class whose state the analyzer knows
    without reading it (torch's ``nn.Module``, pydantic's models, ``threading.Thread``, the closed
    torch classes, builtin exceptions): not a class of that name from somewhere else."""
    kind = classify_external(name).kind
    if kind == "thread":
        return name == "threading.Thread"
    return kind in ("module", "field", "closed", "exception") and "." in name


def builtin_passes_on(base: str, name: str) -> bool:
    """The builtin type ``base`` has no ``name`` or takes it from ``object`` (its MRO defines none):
    ``str``, ``int``, ``tuple``, ``frozenset`` and ``bytes`` build themselves in ``__new__`` and
    define no ``__init__``, so ``super().__init__()`` from a subclass passes them by for the next
    class of the MRO (as ``super().setup()`` does for a name ``str`` lacks). False for a name the
    type defines (``list.__init__``, ``str.__eq__``), for ``object`` itself, and for any base that
    is not a builtin type."""
    short = base[len("builtins."):] if base.startswith("builtins.") else base
    t = getattr(builtins, short, None) if "." not in short else None
    if not isinstance(t, type) or t is object:
        return False
    return not hasattr(t, name) or hasattr(object, name) and getattr(t, name) is getattr(object, name)
