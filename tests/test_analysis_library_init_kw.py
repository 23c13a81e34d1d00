"""A name handed by keyword to the ``__init__`` of a library base the analyzer cannot read is taken
to be stored by it. vllm-ascend 0.23.0's ``NPUWorker.__init__`` calls vLLM's
``WorkerBase.__init__(vllm_config=..., local_rank=local_rank, ...)`` (vLLM not installed) and later
sets ``self.local_rank`` again in ``_init_device``, which ``NPUWorker310`` overrides: a false
PK003 ("only assigned in NPUWorker._init_device, which NPUWorker310 overrides") of set AK. A name
not handed over, or a base the analyzer can read, is judged as before."""
from __future__ import annotations

from patchkit.analysis import analyse_source

WORKER = '''
from not_installed_engine import WorkerBase


class NPUWorker(WorkerBase):
    def __init__(self, config, local_rank, rank):
        super().__init__(vllm_config=config, {kw}=local_rank, rank=rank)

    def init_device(self):
        self._init_device()

    def _init_device(self):
        self.local_rank = self.local_rank
        self.device_id = 0


class NPUWorker310(NPUWorker):
    def _init_device(self):
        return "npu:%s:%s" % (self.local_rank, self.device_id)
'''


def _found(src):
    return {(f.code, f.cls, f.attr) for f in analyse_source("m.py", src) if f.severity.value in ("error", "warning")}


def test_a_name_handed_to_the_unreadable_initialiser_is_not_reported():
    got = _found(WORKER.format(kw="local_rank"))
    assert not any(a == "local_rank" for _c, _k, a in got)
    assert ("PK003", "NPUWorker310", "device_id") in got  # the other name is still judged


def test_a_name_not_handed_over_is_still_reported():
    got = _found(WORKER.format(kw="device_index"))
    assert ("PK003", "NPUWorker310", "local_rank") in got


def test_a_readable_base_is_read_instead():
    src = WORKER.format(kw="local_rank").replace(
        "from not_installed_engine import WorkerBase", "class WorkerBase:\n    def __init__(self, **kw):\n        self.kw = kw")
    assert ("PK003", "NPUWorker310", "local_rank") in _found(src)
