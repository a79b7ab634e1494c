"""Looks at test notes counted from saved reports, for runs made before the ledger existed.

Why.  The selection ledger (:mod:`bench.report.ledger`) counts the configurations a cache
directory has scored, but it starts empty on every machine and knows nothing of the runs
behind the committed reports.  Those runs were looks too: a configuration chosen after 34
others were scored on the same patients is the best of 35.  Each saved ``run.json`` names
its test corpora (with the fingerprint of their notes), its systems with their registered
class and parameters, and the options that decide what was trained and scored.  This
module reads them in the order they were started and says, for each report, how many
distinct configurations had been scored on the same test notes before it.

A configuration here is the ledger's (:func:`bench.report.ledger.configuration`) as far
as run.json records it: the registered system, its parameters, its wrappers, and the
protocol options (protocol, folds, seed, grouping, training corpus, tuning objective and
inner folds, augmentation, extra training, dictionaries).  Test notes are identified by
the fingerprints run.json stores for each scored corpus, so a corpus read under another
path is the same notes: the corpus fingerprint, and, where the run kept its ledger, the
fingerprint of the notes' texts.  The corpus fingerprint also covers the notes'
annotation flags, so a new rule for "not found in dictionaries" gives the same texts a
new one; a run that recorded both links them (:class:`_NoteSets`), and the reports made
before and after such a change count as looks at the same notes.  Only reports whose
run.json is given are counted: a run whose report was not kept is a look this count
cannot see.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from bench.report.ledger import configuration_id

#: The options of a run that change what a system is trained on or scored on.
PROTOCOL_KEYS = (
    "protocol",
    "folds",
    "seed",
    "group_by",
    "train_corpus",
    "tune",
    "objective",
    "inner_folds",
    "augment",
    "extra_training",
)


def run_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``run.json`` named, or found under a named directory."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.rglob("run.json")) if p.is_dir() else [p])
    return out


def _dictionaries(command: Any) -> str | None:
    """The ``--dictionaries`` directory of a saved command line (its last component only,
    so the same lists read from another checkout are the same configuration)."""
    if not isinstance(command, list):
        return None
    for flag, value in itertools.pairwise(command):
        if flag == "--dictionaries":
            return Path(str(value)).name
    for flag in command:
        if str(flag).startswith("--dictionaries="):
            return Path(str(flag).split("=", 1)[1]).name
    return None


def configurations(run: Mapping[str, Any]) -> dict[str, str]:
    """The configuration id of each system of a saved run, by the name it ran under."""
    protocol = {k: run.get(k) for k in PROTOCOL_KEYS}
    protocol["dictionaries"] = _dictionaries(run.get("command"))
    out = {}
    for name, system in (run.get("systems") or {}).items():
        # a system's own augmentation (--param NAME.augment) replaces the run's
        own = {"augment": system["augment"]} if "augment" in system else {}
        if system.get("augment_choices"):  # a range of copies for tuning to choose from
            own["augment_choices"] = system["augment_choices"]
        if "objective" in system:  # a preset's own objective replaces the run's
            own["objective"] = system["objective"]
        conf = {
            "registered": system.get("registered", name),
            "params": system.get("params", {}),
            "wrappers": system.get("wrappers", []),
            # a system that is not trained labels each note alone (as in the ledger)
            "protocol": {**protocol, **own} if system.get("requires_training", True) else {},
        }
        out[name] = configuration_id(conf)
    return out


def scored_corpora(run: Mapping[str, Any]) -> dict[str, str]:
    """The fingerprint of each corpus a saved run scored, by name (a training corpus given
    with ``--train-corpus`` is not scored)."""
    corpora = run.get("corpora") or {}
    train = run.get("train_corpus")
    return {
        name: str(info.get("fingerprint", name))
        for name, info in corpora.items()
        if name != train and isinstance(info, Mapping)
    }


def note_ids(run: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The identifiers of each corpus a saved run scored, by name: its corpus fingerprint,
    then the fingerprint of its notes' texts where the run's ledger recorded one."""
    ledger = run.get("ledger")
    recorded = ledger.get("corpora") if isinstance(ledger, Mapping) else None
    out = {}
    for name, fingerprint in scored_corpora(run).items():
        entry = recorded.get(name) if isinstance(recorded, Mapping) else None
        notes = entry.get("notes") if isinstance(entry, Mapping) else None
        out[name] = (fingerprint, f"notes:{notes}") if notes else (fingerprint,)
    return out


class _NoteSets:
    """Which identifiers name the same set of test notes: those recorded together for one
    scored corpus of one run, and, through them, every other run that recorded one of
    them (union-find; a set is named by the identifier first met)."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}  # in the order the identifiers were met

    def find(self, key: str) -> str:
        parent = self._parent.setdefault(key, key)
        while parent != key:
            grand = self._parent[parent]
            self._parent[key] = grand
            key, parent = parent, grand
        return key

    def link(self, keys: Iterable[str]) -> None:
        roots = set(map(self.find, keys))
        order = list(self._parent)
        first = min(roots, key=order.index)
        for other in roots - {first}:
            self._parent[other] = first


def _note_sets(runs: Iterable[Mapping[str, Any]]) -> _NoteSets:
    """:class:`_NoteSets` over the identifiers every readable run recorded."""
    sets = _NoteSets()
    for run in runs:
        for ids in note_ids(run).values():
            sets.link(ids)
    return sets


def looks(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Per set of test notes, the saved runs that scored it in the order they started:
    each with its configurations, how many were new, and how many distinct configurations
    had been scored on those notes before it."""
    runs = []
    for path in run_files(paths):
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: not a readable run.json ({exc})") from None
        runs.append((str(run.get("started", "")), str(path.parent), run))
    runs.sort(key=lambda r: (r[0], r[1]))
    sets = _note_sets(run for _, _, run in runs)
    groups: dict[str, dict[str, Any]] = {}
    for started, report, run in runs:
        confs = configurations(run)
        for corpus, ids in note_ids(run).items():
            root = sets.find(ids[0])
            group = groups.setdefault(
                root,
                {"notes": root, "corpora": [], "seen": set(), "reports": []},
            )
            if corpus not in group["corpora"]:
                group["corpora"].append(corpus)
            ids = set(confs.values())
            group["reports"].append(
                {
                    "report": report,
                    "started": started,
                    "systems": sorted(confs),
                    "configurations": len(ids),
                    "new": len(ids - group["seen"]),
                    "before": len(group["seen"]),
                }
            )
            group["seen"] |= ids
    out = []
    for group in groups.values():
        group["distinct"] = len(group.pop("seen"))
        out.append(group)
    return out


def scored_before(
    reports_dir: str | Path,
    fingerprints: Mapping[str, str],
    started: str,
    notes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What the saved reports in ``reports_dir`` (the directory a run's ``--out`` is in;
    reports one or two levels down) had scored on each of a run's test corpora before it
    started: per corpus name, the distinct configurations and the reports.

    Why in a report: the ledger starts empty with each cache, so on a new machine a run
    would say "0 configurations before" of notes that committed reports had looked at
    dozens of times.  ``fingerprints`` maps a corpus name to its corpus fingerprint (as
    run.json stores it), ``notes`` to the fingerprint of its notes' texts (the ledger's):
    a saved run that scored the same texts under other annotation flags counts.  A
    run.json that cannot be read is counted as unreadable, not an error: the run's results
    stand."""
    unreadable = 0
    root = Path(reports_dir)
    # a report's directory, or a directory of them one level down (reports/recommended-dev)
    paths = sorted([*root.glob("*/run.json"), *root.glob("*/*/run.json")])
    saved: list[tuple[Mapping[str, Any], set[str], dict[str, tuple[str, ...]]]] = []
    for path in paths:
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
            saved.append((run, set(configurations(run).values()), note_ids(run)))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            unreadable += 1
    sets = _note_sets(run for run, _, _ in saved)
    for name, fingerprint in fingerprints.items():
        text = (notes or {}).get(name)
        sets.link([fingerprint, *([f"notes:{text}"] if text else [])])
    wanted = {sets.find(fp): name for name, fp in fingerprints.items()}  # notes -> name
    seen: dict[str, set[str]] = {root: set() for root in wanted}
    reports: dict[str, int] = dict.fromkeys(wanted, 0)
    for run, confs, scored in saved:
        if str(run.get("started", "")) > started:  # to the second: the same second counts
            continue
        for root in {sets.find(ids[0]) for ids in scored.values()} & set(wanted):
            seen[root] |= confs
            reports[root] += 1
    return {
        "directory": str(reports_dir),
        "unreadable": unreadable,
        "corpora": {
            name: {"configurations": len(seen[root]), "reports": reports[root]}
            for root, name in wanted.items()
        },
    }
