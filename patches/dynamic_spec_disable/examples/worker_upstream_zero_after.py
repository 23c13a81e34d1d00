# Our own miniature of sglang/srt/speculative/eagle_worker_v2.py as of 0.5.16 (the shapes the
# patch anchors on), not SGLang source. Used by the patch's before/after example tests.
import logging

from sglang.srt.environ import envs
from sglang.srt.speculative.adaptive_runtime_state import SpecRuntimeState
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative import patchkit_spec_disable as _patchkit_sd  # patchkit: dynamic-spec-disable

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
        self.spec_disable_batch_threshold = _patchkit_sd.resolve_threshold(server_args)
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
        _patchkit_sd.on_init(self, EAGLEWorkerV2)

    @property
    def draft_worker(self):
        return self._draft_worker

    def forward_batch_generation(self, batch, on_publish=None):
        if batch.forward_mode.is_extend():
            batch_output = self._target_worker.forward_batch_generation(batch)
            batch_output.next_draft_input = (_patchkit_sd.skip_draft_prefill(self, batch, batch_output.next_token_ids, batch_output.logits_output.hidden_states) or (
                self.draft_worker._draft_extend_for_prefill(
                    batch,
                    batch_output.logits_output.hidden_states,
                    batch_output.next_token_ids,
                )
            ))
            return batch_output
        else:
            self.activate_step_by_batch(batch.seq_lens.shape[0])
            if self.spec_disable_batch_threshold is not None:
                _patchkit_sd.on_decode(self, batch)
            if batch.spec_info is None:
                batch.spec_info = object()
            if self.speculative_num_steps == 0:
                verify_input = self._build_trivial_verify_input(batch)
            else:
                verify_input = self.draft_worker.draft(batch)
            batch.spec_info = verify_input
            batch_output = self.verify(batch)
            if (
                self.speculative_num_steps == 0
                and (_patchkit_sd.skip_draft_extend(self, batch, batch_output) or envs.SGLANG_SPEC_SKIP_ZERO_STEP_DRAFT_EXTEND.get())
            ):
                self._stub_skipped_draft_extend(batch, batch_output)
            else:
                self.draft_worker._draft_extend_for_decode(batch, batch_output)
            return batch_output

    def _build_trivial_verify_input(self, batch):
        return batch.spec_info

    def _stub_skipped_draft_extend(self, batch, batch_output):
        pass

    def activate_step_by_batch(self, batch_size):
        pass

    def build_adaptive_runtime_state(self, speculative_num_steps, speculative_num_draft_tokens):
        return SpecRuntimeState(speculative_num_steps, speculative_num_draft_tokens)

    def apply_runtime_state(self, state):
        self.speculative_num_steps = state.speculative_num_steps

    def verify(self, batch):
        return batch
