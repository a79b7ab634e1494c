"""Run options that change how a learned system trains, each a wrapper around it
(:class:`systems.base.Wrapper`) that the plan composes, innermost first:
:mod:`~bench.training.augment` (transformed copies of the training notes),
:mod:`~bench.training.extra_training` (another corpus's notes) and
:mod:`~bench.training.tuning` (hyperparameters and threshold chosen by inner
cross-validation).
"""
