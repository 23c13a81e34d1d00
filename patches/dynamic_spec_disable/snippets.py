"""Code the dynamic-spec-disable patch inserts. Every piece carries the ``patchkit`` name so a
reader of the patched SGLang tree can tell it from upstream code."""

HELP = ("patchkit dynamic-spec-disable: for decode batches with more requests than this, skip EAGLE "
        "drafting and verify one token per request (a normal decode step). Default: "
        "$SGLANG_SPEC_DISABLE_BATCH_THRESHOLD, else off.")

FIELD_PLAIN = """
speculative_disable_batch_threshold: Optional[int] = None  # patchkit: dynamic-spec-disable
"""

FIELD_ANNOTATED = f"""
speculative_disable_batch_threshold: A[  # patchkit: dynamic-spec-disable
    Optional[int],
    "{HELP}",
] = None
"""

ARGPARSE = f"""
parser.add_argument(  # patchkit: dynamic-spec-disable
    "--speculative-disable-batch-threshold",
    type=int,
    default=ServerArgs.speculative_disable_batch_threshold,
    help="{HELP}",
)
"""

INIT_ATTRS = """
self.spec_disable_batch_threshold = _patchkit_spec_disable_threshold(server_args)
self.spec_disabled_steps = 0
self.spec_enabled_steps = 0
self.spec_disable_switches = 0
self._patchkit_spec_disabled = False
self._patchkit_spec_states = None
"""

RESOLVER_NAME = "_patchkit_spec_disable_threshold"

RESOLVER = '''
def _patchkit_spec_disable_threshold(server_args):
    """patchkit dynamic-spec-disable: the batch-size threshold from
    --speculative-disable-batch-threshold, else $SGLANG_SPEC_DISABLE_BATCH_THRESHOLD, else None (off)."""
    import os as _os

    value = getattr(server_args, "speculative_disable_batch_threshold", None)
    source = "--speculative-disable-batch-threshold"
    if value is None:
        raw = _os.environ.get("SGLANG_SPEC_DISABLE_BATCH_THRESHOLD", "").strip()
        if not raw:
            return None
        source = "SGLANG_SPEC_DISABLE_BATCH_THRESHOLD"
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(
                f"{source}={raw!r}: expected a non-negative integer batch size"
            ) from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{source}={value!r}: expected a non-negative integer batch size")
    return value
'''

INIT_METHOD = '''
def _patchkit_init_spec_disable(self):
    """patchkit dynamic-spec-disable: build the zero-step runtime state (one verify token) once."""
    if self.spec_disable_batch_threshold is None:
        return
    if self.adaptive_controller is not None:
        raise ValueError(
            "--speculative-disable-batch-threshold cannot be combined with --speculative-adaptive"
        )
    with ({with_items}):
        full = {state}
        zero = {zero_builder}
    self.apply_runtime_state(full)
    self._patchkit_spec_states = {{"full": full, "zero": zero}}
    logger.info(
        "patchkit-spec-disable: ready threshold=%d steps=%d decode_attention=%s",
        self.spec_disable_batch_threshold,
        full.speculative_num_steps,
        getattr(zero, "_patchkit_decode_attention", None),
    )
'''

SELECT_METHOD = '''
def _patchkit_select_spec_state(self, batch):
    """patchkit dynamic-spec-disable: above the threshold decode without drafting."""
    if self._patchkit_spec_states is None:
        return
    bs = int(batch.seq_lens.shape[0])
    disable = bs > self.spec_disable_batch_threshold
    if disable != self._patchkit_spec_disabled:
        self._patchkit_spec_disabled = disable
        self.spec_disable_switches += 1
        self.apply_runtime_state(self._patchkit_spec_states["zero" if disable else "full"])
        logger.info(
            "patchkit-spec-disable: %s batch_size=%d threshold=%d switches=%d "
            "disabled_steps=%d enabled_steps=%d",
            "OFF" if disable else "ON",
            bs,
            self.spec_disable_batch_threshold,
            self.spec_disable_switches,
            self.spec_disabled_steps,
            self.spec_enabled_steps,
        )
    if disable:
        self.spec_disabled_steps += 1
    else:
        self.spec_enabled_steps += 1
'''

ZERO_UPSTREAM = "self._patchkit_build_upstream_zero_state()"
ZERO_OWN = "self._patchkit_build_zero_state(full)"

#: 0.5.12-0.5.13 cannot build a multi-step draft backend for zero steps (TritonMultiStepDraftBackend
#: indexes attn_backends[0]); the zero state keeps the draft backends (unused at zero steps) and
#: builds only what a one-token verify and its draft extend need.
ZERO_STATE_METHOD = '''
def _patchkit_build_zero_state(self, full):
    """patchkit dynamic-spec-disable: runtime state for one verify token (no drafting)."""
    with self._override_worker_state(0, 1):
        runner = self._target_worker.model_runner
        backup_init = runner.init_new_workspace
        try:
            target_attn_backend = runner._get_attention_backend(init_new_workspace=True)
        finally:
            runner.init_new_workspace = backup_init
        converted = [_patchkit_one_token_attention(target_attn_backend)]
        target_graph_runner = None
        if not self.server_args.disable_cuda_graph:
            target_graph_runner = CudaGraphRunner(
                runner,
                attn_backend=target_attn_backend,
                speculative_num_steps=0,
                speculative_num_draft_tokens=1,
            )
        draft_extend_attn_backend = DraftBackendFactory(
            self.server_args, self._draft_worker.draft_runner, self.topk, 0
        ).create_draft_extend_backend()
        if draft_extend_attn_backend is not None:
            converted.append(_patchkit_one_token_attention(draft_extend_attn_backend))
    state = SpecRuntimeState(
        speculative_num_steps=0,
        speculative_num_draft_tokens=1,
        draft_attn_backend=full.draft_attn_backend,
        cuda_graph_runner=full.cuda_graph_runner,
        target_attn_backend=target_attn_backend,
        target_graph_runner=target_graph_runner,
        draft_extend_attn_backend=draft_extend_attn_backend,
        cuda_graph_runner_for_draft_extend=None,
    )
    state._patchkit_decode_attention = converted
    return state
'''

TRIVIAL_METHOD = '''
def _patchkit_trivial_verify_input(self, batch):
    """patchkit dynamic-spec-disable: one-node EagleVerifyInput at the previous bonus token."""
    # The equivalent of upstream's _build_trivial_verify_input (0.5.14+): the verify kernel
    # accepts the root and samples one new token from the target logits, a plain decode.
    if batch.forward_mode.is_idle():
        return EagleVerifyInput.create_idle_input(self.topk, 0, 1)
    draft_input = batch.spec_info
    bs = batch.seq_lens.shape[0]
    device = self.device
    retrieve_index = torch.arange(bs, dtype=torch.long, device=device).unsqueeze(1)
    retrieve_next_token = torch.full((bs, 1), -1, dtype=torch.long, device=device)
    retrieve_next_sibling = torch.full((bs, 1), -1, dtype=torch.long, device=device)
    attn_backend = self._target_worker.model_runner.attn_backend
    mask_buf, position_buf = attn_backend.get_verify_buffers_to_fill_after_draft()
    if mask_buf is not None:
        custom_mask = mask_buf
        custom_mask.fill_(True)
    else:
        if batch.seq_lens_sum is not None:
            seq_lens_sum = batch.seq_lens_sum
        elif batch.seq_lens_cpu is not None:
            seq_lens_sum = int(batch.seq_lens_cpu.sum())
        else:
            seq_lens_sum = int(batch.seq_lens.sum())
        custom_mask = torch.ones(seq_lens_sum + bs, dtype=torch.bool, device=device)
    if position_buf is not None:
        positions = position_buf
        positions[:bs].copy_(batch.seq_lens)
    else:
        positions = batch.seq_lens.to(torch.int64)
    return EagleVerifyInput(
        # int64 like the drafted path's tokens: the sampling verify kernel rejects int32
        draft_token=draft_input.bonus_tokens.to(torch.int64),
        custom_mask=custom_mask,
        positions=positions,
        retrieve_index=retrieve_index,
        retrieve_next_token=retrieve_next_token,
        retrieve_next_sibling=retrieve_next_sibling,
        retrieve_cum_len=None,
        spec_steps=0,
        topk=self.topk,
        draft_token_num=1,
        capture_hidden_mode=CaptureHiddenMode.FULL,
        seq_lens_sum=None,
        seq_lens_cpu=None,
    )
'''

UPSTREAM_ZERO_METHOD = '''
def _patchkit_build_upstream_zero_state(self):
    """patchkit dynamic-spec-disable: upstream's zero-step state, with its fresh one-token attention
    backends switched to decode kernels before its CUDA graphs are captured."""
    runner = self._target_worker.model_runner
    dw = self._draft_worker
    make_backend = runner._get_attention_backend
    init_draft_backends = dw.init_attention_backend
    converted = []

    def get_attention_backend(*args, **kwargs):
        backend = make_backend(*args, **kwargs)
        converted.append(_patchkit_one_token_attention(backend))
        return backend

    def init_attention_backend(*args, **kwargs):
        result = init_draft_backends(*args, **kwargs)
        if dw.draft_extend_attn_backend is not None:
            converted.append(_patchkit_one_token_attention(dw.draft_extend_attn_backend))
        return result

    runner._get_attention_backend = get_attention_backend
    dw.init_attention_backend = init_attention_backend
    try:
        state = self.build_adaptive_runtime_state(0, 1)
    finally:
        del runner._get_attention_backend
        del dw.init_attention_backend
    state._patchkit_decode_attention = converted
    return state
'''

ONE_TOKEN_NAME = "_patchkit_one_token_attention"

#: Measured on an H200 (bench/results/h200-8b/profile-*.json): at 128 requests a zero-step step spent
#: 31.7 of its 37.3 ms of GPU time in the Triton *extend* kernel (TARGET_VERIFY, one query token per
#: request), against 2.0 ms for the split-KV *decode* kernel of a plain decode step. One query token
#: per request whose KV slot is req_to_token[req, prefix_len] is a decode step over prefix_len + 1
#: tokens, so the zero-step state's own backends run those steps with the decode kernel.
ONE_TOKEN = '''
_PATCHKIT_ONE_TOKEN_CLASSES = {}


def _patchkit_one_token_attention(backend):
    """patchkit dynamic-spec-disable: make an attention backend that the zero-step state built for
    one verify token per request run TARGET_VERIFY and DRAFT_EXTEND_V2 steps with its decode kernel
    (metadata for prefix + 1 tokens). Only the Triton backend (no MLA, sliding window or DCP) is
    converted; returns whether it was. PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION=0 keeps the extend kernel."""
    import inspect as _inspect
    import os as _os

    from sglang.srt.model_executor.forward_batch_info import ForwardMode as _Mode

    if _os.environ.get("PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION", "1").strip() == "0":
        return False
    base = type(backend)
    if getattr(base, "_patchkit_one_token", False):
        return True
    if not any(k.__name__ == "TritonAttnBackend" for k in base.__mro__):
        return False
    if getattr(backend, "num_draft_tokens", None) != 1 or getattr(backend, "use_mla", False):
        return False
    if (getattr(backend, "sliding_window_size", None) or -1) > 0 or (getattr(backend, "dcp_size", 1) or 1) > 1:
        return False

    def extra_len(mode):
        # TARGET_VERIFY batches carry the prefix length, DRAFT_EXTEND_V2 ones the post-write length
        if mode is None:
            return None
        if mode.is_target_verify():
            return 1
        if mode.is_draft_extend_v2():
            return 0
        return None

    def as_decode(fb, extra, bound):
        saved = (fb.forward_mode, fb.seq_lens, fb.seq_lens_sum, fb.seq_lens_cpu, fb.spec_info)
        fb.forward_mode = _Mode.DECODE
        fb.spec_info = None
        if extra:
            if fb.seq_lens_sum is not None:
                fb.seq_lens_sum = fb.seq_lens_sum + extra * len(fb.seq_lens)
            fb.seq_lens = fb.seq_lens + extra
            if fb.seq_lens_cpu is not None:
                fb.seq_lens_cpu = fb.seq_lens_cpu + extra
        if bound is not None and fb.seq_lens_sum is None:
            # eager decode metadata sizes its index buffer by seq_lens_sum (0.5.12 needs it): the host
            # copy's sum, else an upper bound (what later releases allocate themselves); never a sync
            fb.seq_lens_sum = int(fb.seq_lens_cpu.sum()) if fb.seq_lens_cpu is not None else bound(fb)
        return saved

    def restore(fb, saved):
        fb.forward_mode, fb.seq_lens, fb.seq_lens_sum, fb.seq_lens_cpu, fb.spec_info = saved

    def batch_method(name, sized):
        inner = getattr(base, name)

        def method(self, forward_batch, *args, **kwargs):
            extra = extra_len(forward_batch.forward_mode)
            if extra is None:
                return inner(self, forward_batch, *args, **kwargs)
            bound = None
            if sized:
                def bound(fb):
                    return len(fb.seq_lens) * self.max_context_len
            saved = as_decode(forward_batch, extra, bound)
            try:
                return inner(self, forward_batch, *args, **kwargs)
            finally:
                restore(forward_batch, saved)

        return method

    def graph_method(name):
        inner = getattr(base, name)
        signature = _inspect.signature(inner)

        def method(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            a = bound.arguments
            extra = extra_len(a.get("forward_mode"))
            if extra is not None:
                a["forward_mode"] = _Mode.DECODE
                a["spec_info"] = None
                if extra:
                    a["seq_lens"] = a["seq_lens"] + extra
                    if a.get("seq_lens_sum") is not None:
                        a["seq_lens_sum"] = a["seq_lens_sum"] + extra * int(a["bs"])
                    if a.get("seq_lens_cpu") is not None:
                        a["seq_lens_cpu"] = a["seq_lens_cpu"] + extra
            return inner(*bound.args, **bound.kwargs)

        return method

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        metadata = getattr(self, "forward_metadata", None)
        if (
            extra_len(forward_batch.forward_mode) is None
            or k is None
            or getattr(metadata, "attn_logits", None) is None
            or any(value is not None for key, value in kwargs.items() if key != "sinks")
        ):
            return base.forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache, **kwargs)
        extra = {"sinks": kwargs["sinks"]} if kwargs.get("sinks") is not None else {}
        return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache=save_kv_cache, **extra)

    cls = _PATCHKIT_ONE_TOKEN_CLASSES.get(base)
    if cls is None:
        namespace = {"_patchkit_one_token": True, "forward_extend": forward_extend}
        for name, sized in (("init_forward_metadata", True), ("init_forward_metadata_out_graph", False)):
            if hasattr(base, name):
                namespace[name] = batch_method(name, sized)
        for name in ("init_forward_metadata_capture_cuda_graph", "init_forward_metadata_replay_cuda_graph"):
            if hasattr(base, name) and "forward_mode" in _inspect.signature(getattr(base, name)).parameters:
                namespace[name] = graph_method(name)
        cls = type("PatchkitOneToken" + base.__name__, (base,), namespace)
        _PATCHKIT_ONE_TOKEN_CLASSES[base] = cls
    backend.__class__ = cls
    return True
'''
