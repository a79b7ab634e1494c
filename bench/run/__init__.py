"""Steps one and two of a run, and the runner that chains all four.

* plan -- :mod:`bench.run.plan`: options -> systems, corpora, splits
  (:mod:`bench.run.protocols`), training and scored notes compared (:mod:`bench.run.overlap`),
  tasks of cells with their prediction-cache keys;
* execute -- :mod:`bench.run.cells`: cells -> outcomes, on the backend of
  :mod:`bench.run.execution`, costliest first (:mod:`bench.run.schedule`), with a progress
  line (:mod:`bench.run.progress`) and failures stripped of note text (:mod:`bench.run.scrub`);
* :mod:`bench.run.runner` chains plan, execute, score (:mod:`bench.score`) and the ledger;
  :mod:`bench.run.run_types` holds the dataclasses the steps hand each other.
"""
