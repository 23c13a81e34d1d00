import sys

import optuna
from optuna._imports import try_import
from optuna.integration import _lightgbm_tuner as tuner

class LightGBMPruningCallback(object):
    """Callback for LightGBM to prune unpromising trials.

    See `the example <https://github.com/optuna/optuna-examples/blob/main/
    lightgbm/lightgbm_integration.py>`__
    if you want to add a pruning callback which observes AUC
    of a LightGBM model.

    Args:
        trial:
            A :class:`~optuna.trial.Trial` corresponding to the current evaluation of
            the objective function.
        metric:
            An evaluation metric for pruning, e.g., ``binary_error`` and ``multi_error``.
            Please refer to
            `LightGBM reference
            <https://lightgbm.readthedocs.io/en/latest/Parameters.html#metric>`_
            for further details.
        valid_name:
            The name of the target validation.
            Validation names are specified by ``valid_names`` option of
            `train method
            <https://lightgbm.readthedocs.io/en/latest/Python-API.html#lightgbm.train>`_.
            If omitted, ``valid_0`` is used which is the default name of the first validation.
            Note that this argument will be ignored if you are calling
            `cv method <https://lightgbm.readthedocs.io/en/latest/Python-API.html#lightgbm.cv>`_
            instead of train method.
        interval:
            Check if trial should be reported for pruning every n-th epoch.
            By default ``interval=1`` and reporting is performed after every epoch.
            Notes that pruning itself is performed according to the interval definition
            of the pruner.
    """

    def __init__(
        self,
        trial: optuna.trial.Trial,
        metric: str,
        valid_name: str = "valid_0",
        interval: int = 1,
    ) -> None:

        _imports.check()

        self._trial = trial
        self._valid_name = valid_name
        self._metric = metric
        self._interval = interval

    def __call__(self, env: "CallbackEnv") -> None:

        if (env.iteration + 1) % self._interval == 0:
            # If this callback has been passed to `lightgbm.cv` function,
            # the value of `is_cv` becomes `True`. See also:
            # https://github.com/Microsoft/LightGBM/blob/v2.2.2/python-package/lightgbm/engine.py#L329
            # Note that `5` is not the number of folds but the length of sequence.
            is_cv = len(env.evaluation_result_list) > 0 and len(env.evaluation_result_list[0]) == 5
            if is_cv:
                target_valid_name = "cv_agg"
            else:
                target_valid_name = self._valid_name

            for evaluation_result in env.evaluation_result_list:
                valid_name, metric, current_score, is_higher_better = evaluation_result[:4]
                if valid_name != target_valid_name or metric != self._metric:
                    continue

                if is_higher_better:
                    if self._trial.study.direction != optuna.study.StudyDirection.MAXIMIZE:
                        raise ValueError(
                            "The intermediate values are inconsistent with the objective values"
                            "in terms of study directions. Please specify a metric to be minimized"
                            "for LightGBMPruningCallback."
                        )
                else:
                    if self._trial.study.direction != optuna.study.StudyDirection.MINIMIZE:
                        raise ValueError(
                            "The intermediate values are inconsistent with the objective values"
                            "in terms of study directions. Please specify a metric to be"
                            "maximized for LightGBMPruningCallback."
                        )

                self._trial.report(current_score, step=env.iteration)

            raise ValueError(
                'The entry associated with the validation name "{}" and the metric name "{}" '
                "is not found in the evaluation result list {}.".format(
                    target_valid_name, self._metric, str(env.evaluation_result_list)
                )
            )

        if self._trial.should_prune():
            message = "Trial was pruned at iteration {}.".format(env.iteration)
            raise optuna.TrialPruned(message)

        return None
