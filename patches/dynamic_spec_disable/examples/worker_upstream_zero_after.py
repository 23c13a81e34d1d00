# Our own miniature of sglang/srt/speculative/eagle_worker_v2.py as of 0.5.16 (the shapes the
# patch anchors on), not SGLang source. Used by the patch's before/after example tests.
import logging

logger = logging.getLogger(__name__)


class EagleDraftWorker:
    def __init__(self, server_args):
        self.server_args = server_args
        self.speculative_num_steps = server_args.speculative_num_steps
        self.speculative_num_draft_tokens = server_args.speculative_num_draft_tokens


class EAGLEWorkerV2:
    def __init__(self, server_args, target_worker):
        self.server_args = server_args
        self.topk = server_args.speculative_eagle_topk
        self.speculative_num_steps = server_args.speculative_num_steps
        self.speculative_num_draft_tokens = server_args.speculative_num_draft_tokens
        self.spec_disable_batch_threshold = _patchkit_spec_disable_threshold(server_args)
        self.spec_disabled_steps = 0
        self.spec_enabled_steps = 0
        self.spec_disable_switches = 0
        self._patchkit_spec_disabled = False
        self._patchkit_spec_states = None
        self.device = server_args.device
        self._target_worker = target_worker
        self._draft_worker = EagleDraftWorker(server_args)
        self.adaptive_controller = None
        if server_args.speculative_adaptive:
            self.adaptive_controller = object()

    def init_cuda_graphs(self):
        if self.adaptive_controller is not None:
            with (
                self._draft_worker.draft_tp_context(self._draft_worker.draft_runner.tp_group),
                speculative_moe_backend_context(),
            ):
                self.adaptive_controller.register(
                    SpecRuntimeState(
                        speculative_num_steps=self.speculative_num_steps,
                        speculative_num_draft_tokens=self.speculative_num_draft_tokens,
                    )
                )
        self._patchkit_init_spec_disable()

    @property
    def draft_worker(self):
        return self._draft_worker

    def forward_batch_generation(self, batch, on_publish=None):
        if batch.forward_mode.is_extend():
            return self._target_worker.forward_batch_generation(batch)
        else:
            self.activate_step_by_batch(batch.seq_lens.shape[0])
            self._patchkit_select_spec_state(batch)
            if batch.spec_info is None:
                batch.spec_info = object()
            if self.speculative_num_steps == 0:
                verify_input = self._build_trivial_verify_input(batch)
            else:
                verify_input = self.draft_worker.draft(batch)
            batch.spec_info = verify_input
            return self.verify(batch)

    def _patchkit_init_spec_disable(self):
        """patchkit dynamic-spec-disable: build the zero-step runtime state (one verify token) once."""
        if self.spec_disable_batch_threshold is None:
            return
        if self.adaptive_controller is not None:
            raise ValueError(
                "--speculative-disable-batch-threshold cannot be combined with --speculative-adaptive"
            )
        with (self._draft_worker.draft_tp_context(self._draft_worker.draft_runner.tp_group), speculative_moe_backend_context()):
            full = SpecRuntimeState(
                speculative_num_steps=self.speculative_num_steps,
                speculative_num_draft_tokens=self.speculative_num_draft_tokens,
                )
            zero = self._patchkit_build_upstream_zero_state()
        self.apply_runtime_state(full)
        self._patchkit_spec_states = {"full": full, "zero": zero}
        logger.info(
            "patchkit-spec-disable: ready threshold=%d steps=%d decode_attention=%s",
            self.spec_disable_batch_threshold,
            full.speculative_num_steps,
            getattr(zero, "_patchkit_decode_attention", None),
        )

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

    def _build_trivial_verify_input(self, batch):
        return batch.spec_info

    def activate_step_by_batch(self, batch_size):
        pass

    def build_adaptive_runtime_state(self, speculative_num_steps, speculative_num_draft_tokens):
        return SpecRuntimeState(speculative_num_steps, speculative_num_draft_tokens)

    def apply_runtime_state(self, state):
        self.speculative_num_steps = state.speculative_num_steps

    def verify(self, batch):
        return batch


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
