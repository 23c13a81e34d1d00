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
            zero = self.build_adaptive_runtime_state(0, 1)
        self.apply_runtime_state(full)
        self._patchkit_spec_states = {"full": full, "zero": zero}
        logger.info(
            "patchkit-spec-disable: ready threshold=%d steps=%d",
            self.spec_disable_batch_threshold,
            full.speculative_num_steps,
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
