from __future__ import absolute_import

from optuna.distributions import BaseDistribution  # NOQA
from optuna.logging import get_logger
from optuna.pruners import BasePruner  # NOQA
from optuna.storages import BaseStorage  # NOQA
from optuna.storages import InMemoryStorage
from optuna.storages import RDBStorage
from optuna.structs import TrialPruned
from optuna.study import Study  # NOQA
from optuna.trial import Trial  # NOQA
from optuna import types
import warnings

if types.TYPE_CHECKING:
    from typing import Any  # NOQA
    from typing import Callable  # NOQA
    from typing import Dict  # NOQA
    from typing import Optional  # NOQA
    from typing import Tuple  # NOQA
    from typing import Type  # NOQA
    from typing import Union  # NOQA

try:
    from chainermn.communicators.communicator_base import CommunicatorBase  # NOQA
    _available = True
except ImportError as e:
    _import_error = e
    _available = False

class _ChainerMNTrial(Trial):
    def __init__(self, trial, comm):
        # type: (Trial, CommunicatorBase) -> None

        self.delegate = trial
        self.comm = comm
        self._trial_id = trial._trial_id

    def _suggest(self, name, distribution):
        # type: (str, BaseDistribution) -> Any

        if self.comm.rank == 0:
            try:
                result = self.delegate._suggest(name, distribution)
                self.comm.mpi_comm.bcast(result)
                return result
            except Exception as e:
                self.comm.mpi_comm.bcast(e)
                raise
        else:
            result = self.comm.mpi_comm.bcast(None)
            if isinstance(result, Exception):
                raise result
            return result

    def report(self, value, step=None):
        # type: (float, Optional[int]) -> None

        if self.comm.rank == 0:
            self.delegate.report(value, step)

    def should_prune(self, step):
        # type: (int) -> bool

        return self.delegate.should_prune(step)

    def set_user_attr(self, key, value):
        # type: (str, Any) -> None

        if self.comm.rank == 0:
            self.delegate.set_user_attr(key, value)

    def set_system_attr(self, key, value):
        # type: (str, Any) -> None

        if self.comm.rank == 0:
            self.delegate.set_system_attr(key, value)

    @property
    def number(self):
        # type: () -> int

        return self.delegate.number

    @property
    def trial_id(self):
        # type: () -> int

        warnings.warn(
            'The use of `_ChainerMNTrial.trial_id` is deprecated. '
            'Please use `_ChainerMNTrial.number` instead.', DeprecationWarning)
        return self.delegate.trial_id

    @property
    def params(self):
        # type: () -> Dict[str, Any]

        return self._get_attrs('params')

    @property
    def user_attrs(self):
        # type: () -> Dict[str, Any]

        return self._get_attrs('user_attrs')

    @property
    def system_attrs(self):
        # type: () -> Dict[str, Any]

        return self._get_attrs('system_attrs')

    def _get_attrs(self, name):
        # type: (str) -> Dict[str, Any]

        if self.comm.rank == 0:
            try:
                result = getattr(self.delegate, name)
                self.comm.mpi_comm.bcast(result)
                return result
            except Exception as e:
                self.comm.mpi_comm.bcast(e)
                raise
        else:
            result = self.comm.mpi_comm.bcast(None)
            if isinstance(result, Exception):
                raise result
            return result
