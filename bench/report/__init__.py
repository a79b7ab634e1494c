"""Step four of a run, and what reads a finished one.

:mod:`~bench.report.outputs` writes a run's directory (tables, run.json, plots) and
:mod:`~bench.report.render` its report.md; :mod:`~bench.report.ledger` keeps, per set of
notes, every configuration scored on it; :mod:`~bench.report.profile` adds up where a
saved run's time went.
"""
