"""Bad input from the command line: exit code 2, one line on stderr, never a traceback, and
nothing written -- for every subcommand, option and kind of bad file a careful user tries.

Each case runs the CLI in this process and stops before any expensive work: option values
are checked when parsed or in :func:`bench.cli.validate`, corpus files when read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli import main
from corpora.readers.jsonl import write_jsonl
from tests.bench.toy import make_corpus

FAST = ["--folds", "3", "--quiet", "--resamples", "20", "--shuffles", "20", "--jobs", "1"]


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    """Files and directories the cases point at, good and bad."""
    good = tmp_path / "toy.jsonl"
    write_jsonl(make_corpus(9), good)
    write_jsonl(make_corpus(1), tmp_path / "one.jsonl")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_bytes(b"\n\n  \n")
    (tmp_path / "binary.jsonl").write_bytes(bytes(range(256)) * 4)
    latin1 = '{"id": "a", "text": "Patient José seen."}\n'.encode("latin-1")
    (tmp_path / "latin1.jsonl").write_bytes(latin1)
    (tmp_path / "utf16.jsonl").write_bytes('{"id": "a", "text": "x"}\n'.encode("utf-16"))
    (tmp_path / "empty.xml").write_bytes(b"")
    (tmp_path / "a-dir").mkdir()
    (tmp_path / "a-file.txt").write_text("not a directory\n")
    nonempty = tmp_path / "someone-elses-dir"
    nonempty.mkdir()
    (nonempty / "notes.txt").write_text("keep me\n")
    brat = tmp_path / "brat"
    brat.mkdir()
    (brat / "1-1.txt").write_text("Seen by Dr. Ames.\n")
    (brat / "1-1.ann").write_text("T1\tNURSE 12 16\tAmes\n")
    return {
        "jsonl": str(good),
        "one": str(tmp_path / "one.jsonl"),
        "empty": str(tmp_path / "empty.jsonl"),
        "blank": str(tmp_path / "blank.jsonl"),
        "binary": str(tmp_path / "binary.jsonl"),
        "latin1": str(tmp_path / "latin1.jsonl"),
        "utf16": str(tmp_path / "utf16.jsonl"),
        "emptyxml": str(tmp_path / "empty.xml"),
        "dir": str(tmp_path / "a-dir"),
        "file": str(tmp_path / "a-file.txt"),
        "nonempty": str(nonempty),
        "brat": str(brat),
        "out": str(tmp_path / "report"),
        "missing": str(tmp_path / "no-such-file"),
    }


RUN = ["run", "--systems", "toy-capitals", "--corpora", "jsonl:{jsonl}", *FAST, "--out", "{out}"]

# (argv, a substring of the one-line error)
CASES: dict[str, tuple[list[str], str]] = {
    # -- the command line itself
    "no-command": ([], "required"),
    "unknown-command": (["bogus"], "invalid choice"),
    "unknown-option": (["list", "--bogus"], "unrecognized arguments"),
    # -- systems and their parameters
    "no-systems": ([*RUN, "--systems", ","], "no systems chosen"),
    "unknown-system": ([*RUN, "--systems", "no-such-system"], "unknown system"),
    "unknown-parameter": ([*RUN, "--systems", "heuristic", "--param", "heuristic.X=1"], "'X'"),
    "parameter-of-unchosen-system": ([*RUN, "--param", "nosuch.X=1"], "not among the chosen"),
    "parameter-without-value": ([*RUN, "--param", "heuristic"], "SYSTEM.NAME=VALUE"),
    "parameter-without-name": ([*RUN, "--param", "=1"], "SYSTEM.NAME=VALUE"),
    # -- numbers
    "n-documents-negative": ([*RUN, "--n-documents", "-1"], "at least 1"),
    "n-documents-zero": ([*RUN, "--n-documents", "0"], "at least 1"),
    "n-documents-word": ([*RUN, "--n-documents", "many"], "not a whole number"),
    "n-documents-underscore": ([*RUN, "--n-documents", "1_0"], "not a whole number"),
    "n-documents-arabic-digits": ([*RUN, "--n-documents", "١٠"], "not a whole number"),
    "phi-rate-nan": ([*RUN, "--phi-rate", "nan"], "finite"),
    "phi-rate-inf": ([*RUN, "--phi-rate", "inf"], "finite"),
    "phi-rate-zero": ([*RUN, "--phi-rate", "0"], "more than 0"),
    "phi-rate-word": ([*RUN, "--phi-rate", "high"], "not a number"),
    "category-weight-inf": ([*RUN, "--category-weight", "DATE=inf"], "--category-weight"),
    "category-weight-nan": ([*RUN, "--category-weight", "DATE=nan"], "--category-weight"),
    "category-weight-negative": ([*RUN, "--category-weight", "DATE=-1"], "--category-weight"),
    "category-weight-no-value": ([*RUN, "--category-weight", "DATE"], "--category-weight"),
    "category-weight-unknown": ([*RUN, "--category-weight", "NAME=2"], "--category-weight"),
    "folds-one": ([*RUN, "--folds", "1"], "at least 2"),
    "folds-negative": ([*RUN, "--folds", "-3"], "at least 2"),
    "folds-too-many": ([*RUN, "--folds", "50"], "corpus jsonl:"),
    "seed-negative": ([*RUN, "--seed", "-1"], "between 0 and"),
    "seed-too-large": ([*RUN, "--seed", str(2**32)], "between 0 and"),
    "jobs-zero": ([*RUN, "--jobs", "0"], "positive"),
    "jobs-minus-two": ([*RUN, "--jobs", "-2"], "positive"),
    "alpha-five": ([*RUN, "--alpha", "5"], "between 0 and 1"),
    "alpha-zero": ([*RUN, "--alpha", "0"], "between 0 and 1"),
    "alpha-nan": ([*RUN, "--alpha", "nan"], "finite"),
    "resamples-negative": ([*RUN, "--resamples", "-1"], "between 0 and"),
    "resamples-huge": ([*RUN, "--resamples", "1000000000"], "between 0 and"),
    "shuffles-negative": ([*RUN, "--shuffles", "-1"], "at least 1"),
    "shuffles-zero": ([*RUN, "--shuffles", "0"], "at least 1"),
    # -- choices and combinations
    "backend-unknown": ([*RUN, "--backend", "spark"], "invalid choice"),
    "group-by-unknown": ([*RUN, "--group-by", "ward"], "invalid choice"),
    "objective-unknown": ([*RUN, "--tune", "--objective", "f3"], "unknown objective"),
    "objective-level": ([*RUN, "--tune", "--objective", "precision@recall=1.5"], "0 < R < 1"),
    "protocol-unknown": ([*RUN, "--protocol", "holdout"], "invalid choice"),
    "augment-unknown": ([*RUN, "--augment", "shuffled"], "--augment"),
    "inner-folds-one": ([*RUN, "--tune", "--inner-folds", "1"], "must be at least 2"),
    "augment-zero-copies": ([*RUN, "--augment", "unseen:0"], "whole number >= 1"),
    "augment-reserved-for-testing": (
        [*RUN, "--augment", "unseen,foreign"],
        "'foreign' variant is reserved for testing generalization",
    ),
    "system-augment-reserved-for-testing": (
        [*RUN, "--systems", "toy-memory", "--param", "toy-memory.augment=foreign"],
        "--param toy-memory.augment: the 'foreign' variant is reserved",
    ),
    "augment-copies-not-a-number": ([*RUN, "--augment", "unseen:x"], "whole number >= 1"),
    "system-augment-unknown": (
        [*RUN, "--param", "toy-capitals.augment=shuffled"],
        "--param toy-capitals.augment=shuffled",
    ),
    "system-augment-zero-copies": (
        [*RUN, "--param", "toy-capitals.augment=unseen:0"],
        "whole number >= 1",
    ),
    "system-augment-not-trained": (
        [*RUN, "--param", "toy-capitals.augment=unseen"],
        "'toy-capitals' is not trained",
    ),
    "extra-training-missing": (
        [*RUN, "--extra-training", "jsonl:{missing}"],
        "--extra-training jsonl:",
    ),
    "extra-training-empty": ([*RUN, "--extra-training", "jsonl:{blank}"], "--extra-training"),
    "extra-training-is-the-corpus": (
        [*RUN, "--systems", "toy-recording", "--extra-training", "jsonl:{jsonl}"],
        "shares 9 document(s)",
    ),
    "generator-option-without-embedded-corpus": (
        [*RUN, "--n-documents", "40", "--phi-rate", "2"],
        "--n-documents 40; --phi-rate 2.0: shape the embedded corpora, and none is chosen",
    ),
    "extra-training-for-rules-only": (
        [*RUN, "--extra-training", "jsonl:{one}"],
        "--extra-training: none of the chosen systems (toy-capitals) learns",
    ),
    "extra-training-with-train-corpus": (
        [*RUN, "--train-corpus", "jsonl:{one}", "--extra-training", "jsonl:{one}"],
        "--extra-training works with cross-validation only",
    ),
    "test-variant-unknown": ([*RUN, "--test-variant", "reversed"], "invalid choice"),
    "test-variant-with-split": (
        [*RUN, "--test-variant", "unseen", "--protocol", "split"],
        "cross-validation only",
    ),
    "group-by-patient-without-patients": ([*RUN, "--group-by", "patient"], "patient"),
    # -- dask
    "dask-without-scheduler": ([*RUN, "--backend", "dask"], "--scheduler"),
    "dask-scheduler-not-an-address": (
        [*RUN, "--backend", "dask", "--scheduler", "not a url"],
        "not a dask scheduler address",
    ),
    "dask-scheduler-http": (
        [*RUN, "--backend", "dask", "--scheduler", "http://localhost:8786"],
        "not a dask scheduler address",
    ),
    "scheduler-without-dask": ([*RUN, "--scheduler", "tcp://127.0.0.1:8786"], "only with"),
    # -- output paths
    "errors-is-a-directory": ([*RUN, "--errors", "{dir}"], "is a directory"),
    "errors-is-a-device": ([*RUN, "--errors", "/dev/null"], "not a regular file"),
    "errors-under-a-file": ([*RUN, "--errors", "{file}/errors.tsv"], "is not a directory"),
    "errors-inside-out": ([*RUN, "--errors", "{out}/errors.tsv"], "may not be written into"),
    "errors-unwritable": ([*RUN, "--errors", "/sys/errors.tsv"], "cannot write in /sys"),
    "out-unwritable": ([*RUN[:-1], "/sys/report"], "cannot write in /sys"),
    "out-is-a-file": ([*RUN[:-1], "{file}"], "is not a directory"),
    "out-under-a-file": ([*RUN[:-1], "{file}/report"], "is not a directory"),
    "out-is-someone-elses-dir": ([*RUN[:-1], "{nonempty}"], "this harness did not write"),
    "out-name-too-long": ([*RUN[:-1], "{dir}/" + "x" * 300], "File name too long"),
    "errors-name-too-long": ([*RUN, "--errors", "{dir}/" + "x" * 300], "File name too long"),
    "corpus-name-too-long": ([*RUN, "--corpora", "jsonl:{dir}/" + "x" * 300], "too long"),
    "dictionaries-name-too-long": ([*RUN, "--dictionaries", "{dir}/" + "x" * 300], "too long"),
    # -- dictionaries
    "dictionaries-missing": ([*RUN, "--dictionaries", "{missing}"], "not a directory"),
    "dictionaries-is-a-file": ([*RUN, "--dictionaries", "{file}"], "not a directory"),
    # -- corpora
    "no-corpora": ([*RUN, "--corpora", ","], "no corpora chosen"),
    "unknown-corpus": ([*RUN, "--corpora", "nowhere"], "unknown corpus"),
    "unknown-corpus-kind": ([*RUN, "--corpora", "bogus:x"], "unknown corpus kind"),
    "unknown-variant-base": ([*RUN, "--corpora", "unseen:nowhere"], "unknown corpus"),
    "corpus-missing": ([*RUN, "--corpora", "jsonl:{missing}"], "missing file"),
    "corpus-is-a-directory": ([*RUN, "--corpora", "jsonl:{dir}"], "directory"),
    "corpus-is-a-device": ([*RUN, "--corpora", "jsonl:/dev/null"], "not a regular file"),
    "corpus-empty": ([*RUN, "--corpora", "jsonl:{empty}"], "no documents"),
    "corpus-brat-unknown-type": ([*RUN, "--corpora", "brat:{brat}"], "unknown category in"),
    "corpus-blank-lines": ([*RUN, "--corpora", "jsonl:{blank}"], "no documents"),
    "corpus-binary": ([*RUN, "--corpora", "jsonl:{binary}"], "line 1"),
    "corpus-latin1": ([*RUN, "--corpora", "jsonl:{latin1}"], "not valid utf-8"),
    "corpus-utf16": ([*RUN, "--corpora", "jsonl:{utf16}"], "not valid utf-8"),
    "corpus-binary-lenient": ([*RUN, "--lenient", "--corpora", "jsonl:{binary}"], "no documents"),
    "physionet-empty-directory": ([*RUN, "--corpora", "physionet:{dir}"], "missing file"),
    "physionet-a-file": ([*RUN, "--corpora", "physionet:{file}"], "file"),
    "i2b2-2006-empty-file": ([*RUN, "--corpora", "i2b2-2006:{emptyxml}"], "malformed XML"),
    "i2b2-2014-empty-directory": ([*RUN, "--corpora", "i2b2-2014:{dir}"], "no .xml files"),
    "train-corpus-unknown": ([*RUN, "--train-corpus", "nowhere"], "unknown corpus"),
    # -- learning-curve
    "fractions-empty": (["learning-curve", "--fractions", ","], "at least one fraction"),
    "fractions-word": (["learning-curve", "--fractions", "half"], "numbers like"),
    "fractions-zero": (["learning-curve", "--fractions", "0,1"], "(0, 1]"),
    "fractions-above-one": (["learning-curve", "--fractions", "0.5,1.5"], "(0, 1]"),
    "fractions-nan": (["learning-curve", "--fractions", "nan"], "(0, 1]"),
    "learning-curve-unknown-system": (
        ["learning-curve", "--systems", "nosuch", "--corpora", "jsonl:{jsonl}", "--out", "{out}"],
        "unknown system",
    ),
    # -- corpus stats
    "stats-without-corpus": (["corpus", "stats"], "required"),
    "stats-unknown-corpus": (["corpus", "stats", "bogus:x"], "unknown corpus kind"),
    "stats-n-documents-negative": (["corpus", "stats", "authentic", "--n-documents", "-1"], "1"),
    "stats-phi-rate-nan": (["corpus", "stats", "authentic", "--phi-rate", "nan"], "finite"),
    "stats-corpus-missing": (["corpus", "stats", "jsonl:{missing}"], "missing file"),
    # -- the SVM analyses
    "ablation-without-corpus": (["ablation"], "required"),
    "ablation-mode-unknown": (["ablation", "authentic", "--mode", "half"], "invalid choice"),
    "ablation-folds-one": (["ablation", "authentic", "--folds", "1"], "at least 2"),
    "ablation-corpus-missing": (["ablation", "jsonl:{missing}"], "missing file"),
    "ablation-more-folds-than-documents": (["ablation", "jsonl:{jsonl}"], "cannot make 10 folds"),
    "kernels-one-document": (["kernels", "jsonl:{one}"], "at least 2 documents"),
    "infogain-top-negative": (["infogain", "authentic", "--top", "-1"], "at least 0"),
    "infogain-csv-directory": (["infogain", "authentic", "--csv", "{dir}"], "is a directory"),
    "kernels-train-documents-zero": (
        ["kernels", "authentic", "--train-documents", "0"],
        "at least 1",
    ),
    "kernels-csv-device": (["kernels", "authentic", "--csv", "/dev/null"], "not a regular"),
    "infogain-generator-option-on-a-file": (
        ["infogain", "jsonl:{jsonl}", "--n-documents", "5"],
        "--n-documents 5: shapes the embedded corpora, and none is chosen",
    ),
    "corpus-stats-generator-option-on-a-file": (
        ["corpus", "stats", "jsonl:{jsonl}", "--category-weight", "DATE=2"],
        "--category-weight DATE=2: shapes the embedded corpora",
    ),
    "infogain-has-no-folds": (["infogain", "authentic", "--folds", "3"], "--folds 3"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    case: str, paths: dict[str, str], toy_systems, capsys
) -> None:
    argv, message = CASES[case]
    assert main([a.format(**paths) for a in argv]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert message in err
    assert not Path(paths["out"]).exists()  # nothing was run, nothing written
    assert sorted(p.name for p in Path(paths["nonempty"]).iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ("{file}/cache", "is not a directory"),
        ("/proc/no-such-process/cache", "cannot create the cache directory"),
        ("{dir}/" + "x" * 300, "too long"),
    ],
)
def test_a_cache_directory_that_cannot_be_made_is_one_line(
    env: str, message: str, paths: dict[str, str], toy_systems, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("DEID_BENCH_CACHE", env.format(**paths))
    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "0")  # restored after --no-cache sets it
    argv = [a.format(**paths) for a in RUN]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and message in err
    # without the cache, the same run works
    assert main([*argv, "--no-cache"]) == 0


def test_dictionaries_from_the_environment_are_checked_too(
    paths, toy_systems, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("DEID_BENCH_DICTIONARIES", paths["missing"])
    assert main([a.format(**paths) for a in RUN]) == 2
    err = capsys.readouterr().err
    assert "DEID_BENCH_DICTIONARIES" in err and err.count("\n") == 1


def test_unreadable_dask_timeout_is_one_line(paths, toy_systems, monkeypatch, capsys) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setenv("DEID_BENCH_DASK_TIMEOUT", "soon")
    argv = [a.format(**paths) for a in RUN]
    assert main([*argv, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "DEID_BENCH_DASK_TIMEOUT" in err and err.count("\n") == 1
