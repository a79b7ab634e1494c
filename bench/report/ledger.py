"""The selection ledger: every (configuration, test notes) pair this harness has scored.

Why.  A figure chosen as the best of many configurations scored on the same test notes is
optimistic: the choice was made by looking at those notes.  Nothing in one run's report
shows how many looks came before it.  So every run appends what it scored to a ledger, and
its report states how many distinct configurations had been scored on the same notes
before it (run.json lists them).  ``python -m bench ledger`` prints the history per set of
notes.

Test notes are identified by their texts, not their ids or file names
(:func:`notes_fingerprint`, over :attr:`corpora.model.Document.text_key`: case-folded,
white space collapsed), so the same notes renamed, copied or read under another spec are
the same notes.  A variant of them (``foreign:...``) is another set of notes.  Sets that
share some notes (the whole corpus and its ``evaluation:`` patients) are counted apart, as
"on other sets sharing notes": each set's note hashes are kept beside the ledger.

A configuration (:func:`configuration`) is what changes the scores: the system's registered
class and parameters, its wrappers (tuning, augmentation, extra training, with their
options) and the protocol options that decide what is trained and scored (protocol, folds,
``--seed``, which also places notes in folds and draws augmentation copies, grouping, the
training corpus, learning-curve fractions, ``--dictionaries``; for a system that is not
trained only ``--dictionaries``, since it labels each note alone).  Not part of it: the name a
system runs under, ``--jobs``, the backend, ``--alpha``, ``--shuffles``, ``--resamples``.
The code version of the system (:func:`infra.cache.source_fingerprint`) is recorded too
and counted separately: a rule edited after looking at the scores is another look.

Where and how.  ``<cache>/ledger/selection.jsonl`` (the cache directory of
:func:`infra.cache.cache_root`, ``DEID_BENCH_CACHE``), owner-only: 0700 directories,
0600 files.  One JSON object per line, appended under an exclusive ``flock`` in one
``O_APPEND`` write, so concurrent runs never interleave or lose lines; a reader takes a
shared lock and skips a line it cannot parse (counted).  The ledger is a record, not a
cache: ``--no-cache`` still reads and appends it.  A ledger that cannot be written (a
read-only cache) leaves the run to finish; its report says the run was not recorded.
Only hashes, names of systems, corpora and options, and counts go in: no note text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra import cache

if TYPE_CHECKING:
    from bench.run.run_types import RunResult, SystemSpec
    from corpora.model import Document

#: The ledger's place under the cache directory, and its note sets' directory.
LEDGER_DIR = "ledger"
LEDGER_FILE = "selection.jsonl"
SETS_DIR = "sets"
#: Version of a ledger line's layout.
FORMAT = 1


def ledger_path() -> Path:
    """``<cache root>/ledger/selection.jsonl`` (not created here)."""
    return cache.cache_root() / LEDGER_DIR / LEDGER_FILE


# --------------------------------------------------------------------------- identities


def note_keys(documents: Iterable[Document]) -> list[str]:
    """The sorted, distinct text keys of ``documents``."""
    return sorted({d.text_key for d in documents})


def notes_fingerprint(keys: Sequence[str]) -> str:
    """A hash of a set of notes' text keys (:func:`note_keys`)."""
    return hashlib.blake2b("\n".join(keys).encode(), digest_size=16).hexdigest()


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _plain(value: Any) -> Any:
    """``value`` as canonical JSON data: mappings with sorted string keys, sequences as
    lists, sets sorted, classes by qualified name, anything else by its ``repr`` without
    memory addresses (so one configuration always hashes the same)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value else "nan"
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return _ADDRESS.sub("", repr(value))


def _wrapper_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """A wrapper's parameters, a corpus named by its content fingerprint where it has one
    (the same extra training corpus under another path is the same configuration)."""
    out = dict(params)
    if "fingerprint" in out:
        out.pop("corpus", None)
    return out


def protocol_options(result: RunResult, corpus: str, trained: bool = True) -> dict[str, Any]:
    """The options of ``result``'s run that decide what was trained and scored on
    ``corpus`` (see the module docstring).  A system that is not trained labels each note
    alone, so for it folds, seed, grouping and training notes change nothing: only the
    word lists it is given."""
    config = result.config
    options: dict[str, Any] = {}
    dictionaries = config.dictionaries or os.environ.get("DEID_BENCH_DICTIONARIES")
    if dictionaries:
        options["dictionaries"] = str(Path(dictionaries).resolve())
    if not trained:
        return options
    splits = result.splits.get(corpus) or []
    protocol = splits[0].protocol if splits else config.protocol
    if protocol == "variant":  # the models of the corpus it is a variant of
        base = result.splits.get(splits[0].train_corpus) or splits
        protocol = base[0].protocol
    options.update(protocol=protocol, seed=config.seed)
    if protocol in ("cv", "learning-curve"):
        options.update(folds=config.folds, group_by=config.group_by)
    if protocol == "learning-curve":
        options["fractions"] = list(config.fractions)
    if config.train_corpus and config.train_corpus in result.corpora:
        keys = note_keys(result.corpora[config.train_corpus].documents)
        options["train_notes"] = notes_fingerprint(keys)
    return options


def configuration(spec: SystemSpec, protocol: Mapping[str, Any]) -> dict[str, Any]:
    """What makes a configuration (the module docstring), as canonical JSON data."""
    cls = spec.cls
    return _plain(
        {
            "class": cls,
            "registered": cls.name,
            "params": dict(spec.params),
            "wrappers": [{"wrapper": w, "params": _wrapper_params(p)} for w, p in spec.wrappers],
            "protocol": dict(protocol),
        }
    )


def configuration_id(conf: Mapping[str, Any]) -> str:
    """A short stable hash of a :func:`configuration`."""
    text = json.dumps(conf, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def changed_params(spec: SystemSpec) -> dict[str, Any] | None:
    """The parameters of ``spec`` that differ from its registry entry's (what a reader
    needs to tell two configurations apart); ``None`` if the defaults cannot be built."""
    try:
        entry_params = dict(spec.entry.params) if spec.entry is not None else {}
        defaults = spec.cls(**entry_params).get_params()
    except Exception:  # a system whose constructor needs more: show every parameter
        return None
    return {k: v for k, v in spec.params.items() if k not in defaults or defaults[k] != v}


def describe(entry: Mapping[str, Any]) -> str:
    """One line naming a ledger entry's configuration: the registered system, its changed
    parameters, its wrappers and protocol options."""
    conf = entry.get("configuration_detail") or {}
    changed = entry.get("changed")
    params = changed if changed is not None else conf.get("params", {})
    parts = [str(conf.get("registered", entry.get("system", "?")))]
    if params:
        parts.append(", ".join(f"{k}={_short(v)}" for k, v in sorted(params.items())))
    for wrapper in conf.get("wrappers", []):
        name = str(wrapper.get("wrapper", "")).rsplit(".", 1)[-1]
        inner = ", ".join(f"{k}={_short(v)}" for k, v in sorted(wrapper["params"].items()))
        parts.append(f"{name}({inner})")
    protocol = conf.get("protocol", {})
    parts.append(", ".join(f"{k}={_short(v)}" for k, v in sorted(protocol.items())))
    return "; ".join(p for p in parts if p)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:16] + "…" + text[-8:]


# --------------------------------------------------------------------------- this run


def run_entries(
    result: RunResult, specs: Mapping[str, SystemSpec]
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The ledger lines of ``result`` -- one per system with a complete result on a scored
    corpus -- and the note keys of each scored set, by fingerprint."""
    from bench.score.scoring import headline_subset

    df = result.results
    lines: list[dict[str, Any]] = []
    sets: dict[str, list[str]] = {}
    for corpus in result.splits:
        keys = note_keys(result.corpora[corpus].documents)
        fingerprint = notes_fingerprint(keys)
        protocols = {t: protocol_options(result, corpus, t) for t in (True, False)}
        for name, spec in specs.items():
            rows = df[
                (df.system == name)
                & (df.corpus == corpus)
                & (df.level == "token")
                & (df.subset == headline_subset(spec))
                & (df.label == "PHI")
            ]
            if rows.empty:
                continue  # failed, skipped or not run here: nothing was scored
            sets[fingerprint] = keys
            conf = configuration(spec, protocols[spec.tags.requires_training])
            row = rows.iloc[0]
            lines.append(
                {
                    "format": FORMAT,
                    "time": result.started,
                    "run_id": result.run_id,
                    "corpus": corpus,
                    "notes": fingerprint,
                    "n_notes": len(keys),
                    "configuration": configuration_id(conf),
                    "code": cache.source_fingerprint(spec.cls.__module__),
                    "system": name,
                    "configuration_detail": conf,
                    "changed": _plain(changed_params(spec)),
                    "tp": int(row.tp),
                    "fp": int(row.fp),
                    "fn": int(row.fn),
                }
            )
    return lines, sets


# --------------------------------------------------------------------------- the file


@contextlib.contextmanager
def _locked(path: Path, flags: int, lock: int) -> Iterator[int]:
    """``path`` opened with ``flags`` (created 0600) and ``flock``-ed with ``lock``."""
    import fcntl

    fd = os.open(path, flags, cache.PRIVATE_FILE_MODE)
    try:
        fcntl.flock(fd, lock)
        yield fd
    finally:
        os.close(fd)  # closing releases the lock


def read_entries(path: Path | None = None) -> tuple[list[dict[str, Any]], int]:
    """Every parseable line of the ledger, and how many lines could not be read (a
    missing ledger is empty)."""
    import fcntl

    path = path or ledger_path()
    try:
        with _locked(path, os.O_RDONLY, fcntl.LOCK_SH) as fd, os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return [], 0
    entries, bad = [], 0
    for line in raw.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(entry, dict) and "notes" in entry and "configuration" in entry:
            entries.append(entry)
        else:
            bad += 1
    return entries, bad


def append_entries(
    lines: Sequence[Mapping[str, Any]], sets: Mapping[str, Sequence[str]], path: Path | None = None
) -> None:
    """Write each note set beside the ledger (atomically, once), then append ``lines`` in
    one write under an exclusive lock.  Raises ``OSError`` or :class:`CacheError`."""
    import fcntl

    path = path or ledger_path()
    cache.make_private_dirs(path.parent / SETS_DIR)
    for fingerprint, keys in sets.items():
        target = path.parent / SETS_DIR / f"{fingerprint}.txt"
        if not target.exists():
            data = ("\n".join(keys) + "\n").encode()
            cache.atomic_write_bytes(target, data, mode=cache.PRIVATE_FILE_MODE)
    if not lines:
        return
    data = "".join(json.dumps(line, sort_keys=True, ensure_ascii=True) + "\n" for line in lines)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    with _locked(path, flags, fcntl.LOCK_EX) as fd:
        view = memoryview(data.encode())
        while view:
            view = view[os.write(fd, view) :]


def _set_keys(fingerprint: str, path: Path) -> frozenset[str]:
    """The note keys of a set recorded beside the ledger (empty if its file is gone)."""
    try:
        text = (path.parent / SETS_DIR / f"{fingerprint}.txt").read_text()
    except OSError:
        return frozenset()
    return frozenset(text.split())


# --------------------------------------------------------------------------- summaries


def _configurations(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The distinct configurations of ``entries``, first scored first: how each was
    named, when and how often it was scored, and its last precision and recall."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for e in sorted(entries, key=lambda e: str(e.get("time", ""))):
        by.setdefault(str(e["configuration"]), []).append(e)
    out = []
    for cid, group in by.items():
        last = group[-1]
        tp, fp, fn = (int(last.get(k, 0)) for k in ("tp", "fp", "fn"))
        out.append(
            {
                "configuration": cid,
                "description": describe(last),
                "systems": sorted({str(e.get("system", "")) for e in group}),
                "first": group[0].get("time"),
                "last": last.get("time"),
                "times": len({e.get("run_id") for e in group}),
                "code_versions": len({e.get("code") for e in group}),
                "precision": tp / (tp + fp) if tp + fp else None,
                "recall": tp / (tp + fn) if tp + fn else None,
            }
        )
    return out


def summarize(
    lines: Sequence[Mapping[str, Any]],
    sets: Mapping[str, Sequence[str]],
    history: Sequence[Mapping[str, Any]],
    path: Path,
) -> dict[str, dict[str, Any]]:
    """Per corpus of this run: the configurations ``history`` (the ledger before this run)
    had scored on the same notes, and how many on other sets sharing some of them."""
    out: dict[str, dict[str, Any]] = {}
    other_sets: dict[str, frozenset[str]] = {}
    for corpus in dict.fromkeys(str(line["corpus"]) for line in lines):
        mine = [line for line in lines if line["corpus"] == corpus]
        fingerprint = mine[0]["notes"]
        keys = frozenset(sets[fingerprint])
        same = [e for e in history if e["notes"] == fingerprint]
        before = {e["configuration"] for e in same}
        sharing: set[str] = set()
        for e in history:
            if e["notes"] == fingerprint or e["configuration"] in before:
                continue
            if e["notes"] not in other_sets:
                other_sets[e["notes"]] = _set_keys(e["notes"], path)
            if other_sets[e["notes"]] & keys:
                sharing.add(e["configuration"])
        out[corpus] = {
            "notes": fingerprint,
            "n_notes": len(keys),
            "before": len(before),
            "before_counting_code_versions": len(
                {(e["configuration"], e.get("code")) for e in same}
            ),
            "runs_before": len({e.get("run_id") for e in same}),
            "on_sets_sharing_notes": len(sharing),
            "this_run": [
                {
                    "system": line["system"],
                    "configuration": line["configuration"],
                    "scored_before": line["configuration"] in before,
                }
                for line in mine
            ],
            "configurations": _configurations(same),
        }
    return out


def _reason(exc: BaseException) -> str:
    return str(exc.strerror if isinstance(exc, OSError) and exc.strerror else exc)


def record(result: RunResult, specs: Mapping[str, SystemSpec]) -> dict[str, Any]:
    """Read the ledger, summarize what was scored on this run's notes before it, and
    append this run's lines: what run.json keeps under ``ledger``.  A ledger that cannot
    be read or written is said so, never an error: the run's results stand."""
    path = ledger_path()
    lines, sets = run_entries(result, specs)
    info: dict[str, Any] = {"path": str(path), "recorded": False}
    info["no_cache"] = not cache.caching_enabled()  # said in the report: still recorded
    try:
        history, info["unreadable_lines"] = read_entries(path)
    except OSError as exc:
        history, info["unreadable_lines"] = [], 0
        info["read_error"] = _reason(exc)
    history = [e for e in history if e.get("run_id") != result.run_id]
    info["corpora"] = summarize(lines, sets, history, path)
    try:
        append_entries(lines, sets, path)
        info["recorded"] = True
    except (OSError, cache.CacheError) as exc:
        info["not_recorded"] = _reason(exc)
    return info


# --------------------------------------------------------------------------- report


def report_section(info: Mapping[str, Any]) -> list[str]:
    """The report's lines on the ledger: per corpus, how many configurations had been
    scored on its notes before this run (from run.json's ``ledger``)."""
    from bench.report.markdown import md_table

    ledger = info.get("ledger") or {}
    corpora = ledger.get("corpora") or {}
    if not ledger:
        return []
    if ledger.get("recorded"):
        status = "This run's configurations were appended to the ledger"
        if ledger.get("no_cache"):
            status += " (`--no-cache` recomputes results; it does not skip the ledger)"
    else:
        status = (
            f"**This run was not recorded**: the ledger could not be written "
            f"({ledger.get('not_recorded', 'unknown reason')}), so a later run will not "
            "count it"
        )
    if ledger.get("read_error"):
        status += f"; the ledger could not be read ({ledger['read_error']}), so the counts "
        status += "below are 0 for want of a history, not a measured 0"
    if ledger.get("unreadable_lines"):
        status += f"; {ledger['unreadable_lines']} unreadable ledger line(s) were skipped"
    saved = ledger.get("saved_reports") or {}
    in_saved = saved.get("corpora") or {}
    rows = [
        [
            corpus,
            f"{c['n_notes']:,}",
            str(c["before"]),
            f"{sum(t['scored_before'] for t in c['this_run'])} of {len(c['this_run'])}",
            str(c["before_counting_code_versions"]),
            str(c["on_sets_sharing_notes"]),
            *([_saved_cell(in_saved.get(corpus))] if saved else []),
        ]
        for corpus, c in corpora.items()
    ]
    if saved.get("unreadable"):
        status += f"; {saved['unreadable']} saved run.json file(s) could not be read"
    out = [
        "## Looks at these test notes (selection ledger)",
        "",
        "Distinct configurations -- system class, parameters, wrappers (tuning, "
        "augmentation, extra training) and the protocol options that change what is scored "
        "-- that this harness had scored on the same notes before this run.  Notes are "
        "identified by their texts, so a renamed copy counts.  A figure chosen as the best of "
        "many of them is optimistic by the choice; `run.json` lists them, and "
        "`python -m bench ledger` prints the history.",
        "",
    ]
    if rows:
        headers = ["Corpus", "Notes", "Configurations before this run"]
        headers += ["This run's among them", "Counting code versions apart"]
        headers += ["Others on sets sharing notes"]
        if saved:
            headers += [f"In saved reports before it (`{Path(saved['directory']).name}/`)"]
            out += [
                "The ledger is this cache's (`DEID_BENCH_CACHE`), which starts empty on a "
                "new machine; the last column counts the distinct configurations that the "
                "reports saved beside this one (their run.json files, "
                "`python -m bench ledger --reports`) had scored on the same notes before "
                "this run started.",
                "",
            ]
        out += [md_table(rows, headers), ""]
    return [*out, status + ".", ""]


def _saved_cell(counts: Mapping[str, Any] | None) -> str:
    """ "42 (in 17 reports)", or "0" where no saved report scored these notes."""
    if not counts or not counts.get("reports"):
        return "0"
    n = counts["reports"]
    return f"{counts['configurations']} (in {n} report{'s' if n != 1 else ''})"


# --------------------------------------------------------------------------- command


def history(entries: Sequence[Mapping[str, Any]], corpus: str | None = None) -> list[dict]:
    """Per set of notes (first scored first): the corpus names it was scored under, its
    number of notes and runs, and its configurations (:func:`_configurations`)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for e in sorted(entries, key=lambda e: str(e.get("time", ""))):
        groups.setdefault(str(e["notes"]), []).append(e)
    out = []
    for fingerprint, group in groups.items():
        names = list(dict.fromkeys(str(e.get("corpus", "")) for e in group))
        if corpus and not any(corpus in n for n in names):
            continue
        out.append(
            {
                "notes": fingerprint,
                "n_notes": group[0].get("n_notes"),
                "corpora": names,
                "runs": len({e.get("run_id") for e in group}),
                "configurations": _configurations(group),
            }
        )
    return out
