"""What every floor of the harness uses and none of them is about: the registry shape
(:mod:`infra.registry`), the disk cache (:mod:`infra.cache`), the in-memory memo
(:mod:`infra.memo`), the stage clock (:mod:`infra.stages`) and the process settings read
from the environment (:mod:`infra.settings`).

The lowest floor: it imports nothing of ``corpora``, ``systems`` or ``bench`` (DESIGN.md).
"""
