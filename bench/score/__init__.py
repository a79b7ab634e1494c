"""Step three of a run: outcomes -> tables and tests.

:mod:`~bench.score.scoring` pools a run's folds and builds its tables from the measures of
:mod:`~bench.score.metrics` (token, entity, per category) and the tests of
:mod:`~bench.score.significance`; :mod:`~bench.score.dominance`,
:mod:`~bench.score.generalization` and :mod:`~bench.score.peer_comparison` each answer one
further question of the same outcomes.
"""
