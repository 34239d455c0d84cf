"""A model file says where its model came from: corpus files with sizes and SHA-256, tokviz version, date.

Files written before provenance existed still load, and an unknown key never stops a reader.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

from tokviz.core.errors import ModelFileError
from tokviz.core.formats.model_file import load_model, model_details, model_file_bytes, save_model
from tokviz.core.formats.provenance import corpus_record, make_provenance, provenance_lines, utc_now
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import train_bpe


@pytest.fixture
def corpus(tmp_path: Path) -> list[Path]:
    files = []
    for name, text in (
        ("a.txt", "the cat sat on the mat\n" * 40),
        ("b.md", "# The hat\n\nthe cat in the hat\n" * 30),
    ):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        files.append(path)
    return files


def test_the_model_file_records_each_corpus_file_with_its_size_and_sha256(
    corpus: list[Path], tmp_path: Path
) -> None:
    result = train_bpe(files=corpus, vocab_size=270, workers=1)
    provenance = make_provenance(corpus_record([str(p) for p in corpus]), {"include": ["*.txt", "*.md"]})
    path = tmp_path / "m.json"
    save_model(path, result.tokenizer("cats"), result.settings(), result.history, provenance)

    loaded = load_model(path)
    files = loaded.provenance["corpus"]["files"]
    assert [f["path"] for f in files] == [str(p) for p in corpus]
    assert [f["bytes"] for f in files] == [p.stat().st_size for p in corpus]
    assert [f["sha256"] for f in files] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in corpus]
    assert loaded.provenance["corpus"]["total_bytes"] == sum(p.stat().st_size for p in corpus)
    assert loaded.provenance["tokviz_version"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", loaded.provenance["created"])
    assert loaded.provenance["selection"] == {"include": ["*.txt", "*.md"]}
    assert loaded.settings["tie_break"] == "lexicographic"
    # One corpus file per line keeps the file diffable.
    text = path.read_text(encoding="utf-8")
    assert sum(1 for line in text.splitlines() if '"sha256"' in line) == len(corpus)

    # Whoever loads the file through the registry (tokviz info, the GUI) sees the same details.
    tok = load_tokenizer(path)
    details = model_details(tok)
    assert details is not None and details.provenance == loaded.provenance
    assert model_details(load_tokenizer("gpt2")) is None


def test_text_corpora_are_recorded_by_description_size_and_hash() -> None:
    record = corpus_record(text="héllo", description="Editor text")
    assert record == {
        "text": "Editor text",
        "bytes": 6,
        "sha256": hashlib.sha256("héllo".encode()).hexdigest(),
    }


def test_an_old_model_file_without_provenance_still_loads(tmp_path: Path) -> None:
    result = train_bpe(text="hello hello world " * 20, vocab_size=262)
    data = json.loads(model_file_bytes(result.tokenizer("old"), result.settings(), result.history))
    assert "provenance" not in data and data["version"] == 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_model(path)
    assert loaded.provenance == {} and loaded.tokenizer.merges == result.merges


def test_a_provenance_that_is_not_an_object_is_refused_with_the_reason(tmp_path: Path) -> None:
    result = train_bpe(text="hello hello world " * 20, vocab_size=262)
    data = json.loads(model_file_bytes(result.tokenizer("m"), result.settings()))
    data["provenance"] = ["a.txt"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelFileError, match="bad.json: the provenance must be a JSON object, not an array"):
        load_model(path)


def test_source_date_epoch_fixes_the_date_for_reproducible_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert utc_now() == "2023-11-14T22:13:20Z"


def test_provenance_reads_as_lines_for_people(corpus: list[Path]) -> None:
    provenance = make_provenance(
        corpus_record([str(p) for p in corpus]), {"exclude": ["tests/"], "skipped": "skipped 2 binary files"}
    )
    lines = provenance_lines(provenance, limit=1)
    assert lines[0].startswith("trained:        ") and "with tokviz" in lines[0]
    assert lines[1] == "corpus:         2 files, 1.8 kB"
    assert lines[2].startswith(f"  {corpus[0]}  920 bytes  sha256 ")
    assert lines[3] == "  … and 1 more (tokviz info --format json lists them all)"
    assert lines[4] == "selection:      --exclude tests/; skipped 2 binary files"


def _big_corpus(tmp_path: Path) -> tuple[Path, bytes]:
    data = "".join(f"line {i} of a corpus that is long enough to be read in blocks\n" for i in range(50_000))
    path = tmp_path / "big.txt"
    path.write_text(data, encoding="utf-8")
    assert path.stat().st_size > 2 << 20  # several read blocks
    return path, data.encode()


def test_a_corpus_cut_short_while_training_reads_it_is_an_error_that_names_it(tmp_path: Path) -> None:
    from tokviz.core.errors import CorpusError
    from tokviz.core.training.train import train_iter

    path, _ = _big_corpus(tmp_path)
    steps = train_iter(files=[path], vocab_size=270, workers=1, report_every=0)
    with pytest.raises(
        CorpusError, match=r"big\.txt changed while it was read \(3,.* bytes when reading began"
    ):
        for step in steps:
            if step.phase == "pre-tokenizing" and step.done and path.stat().st_size > 1_000_000:
                with open(path, "r+b") as fh:
                    fh.truncate(1_000_000)  # another program cuts the file in the middle of the run


def test_the_provenance_holds_the_hash_of_the_bytes_trained_on_not_of_the_file_later(tmp_path: Path) -> None:
    path, data = _big_corpus(tmp_path)
    result = train_bpe(files=[path], vocab_size=270, workers=1)
    path.write_text("a different corpus now\n", encoding="utf-8")  # changed once training has read it
    record = corpus_record(read=result.files_read)
    assert record["files"] == [
        {"path": str(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    ]
    assert record["total_bytes"] == len(data)


def test_a_count_table_records_the_hash_of_the_bytes_it_counted(tmp_path: Path) -> None:
    import gzip

    from tokviz.core.training.counts import count_corpus

    path, data = _big_corpus(tmp_path)
    packed = tmp_path / "big.txt.gz"
    packed.write_bytes(gzip.compress(data))
    table = count_corpus(files=[path, packed], workers=1)
    stored = [path.read_bytes(), packed.read_bytes()]
    assert [(f.size, f.sha256) for f in table.files] == [
        (len(b), hashlib.sha256(b).hexdigest()) for b in stored
    ]


@pytest.mark.skipif(os.name != "posix" or sys.platform == "darwin", reason="file names are bytes on Linux")
def test_a_corpus_file_whose_name_is_not_utf8_is_saved_and_read_back_exactly(tmp_path: Path) -> None:
    odd = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"z\xff.txt"))
    with open(odd, "wb") as f:
        f.write(b"hello hello hello")
    tok = train_bpe(text="hello hello hello", vocab_size=258, pretokenizer="none").tokenizer()
    # What the GUI's Save model… and tokviz train both do: the provenance of the files read.
    save_model(tmp_path / "m.json", tok, provenance=make_provenance(corpus_record([odd])))
    listed = json.loads((tmp_path / "m.json").read_bytes())["provenance"]["corpus"]["files"][0]
    assert listed["path"].endswith("z\\xff.txt") and "path_bytes" in listed
    (entry,) = load_model(tmp_path / "m.json").provenance["corpus"]["files"]
    assert entry["path"] == odd and entry["sha256"] == hashlib.sha256(b"hello hello hello").hexdigest()


@pytest.mark.skipif(os.name != "posix" or sys.platform == "darwin", reason="file names are bytes on Linux")
def test_the_bytes_trained_on_are_recorded_under_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    odd = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"z\xff.txt"))
    with open(odd, "wb") as f:
        f.write(b"hello hello hello")
    result = train_bpe(files=[odd], vocab_size=258, workers=1)
    save_model(
        tmp_path / "m.json",
        result.tokenizer(),
        provenance=make_provenance(corpus_record(read=result.files_read)),
    )
    (entry,) = load_model(tmp_path / "m.json").provenance["corpus"]["files"]
    assert entry["path"] == odd and entry["sha256"] == hashlib.sha256(b"hello hello hello").hexdigest()


def test_the_apps_training_keeps_the_hashes_of_the_bytes_it_trained_on(tmp_path: Path) -> None:
    """The app trains through ``train_source_iter`` and saves the model later: a file rewritten in
    between must not lend its new hash to a model trained on the old bytes."""
    from tokviz.core.training.counts import train_source_iter
    from tokviz.core.training.train import run_to_end

    path = tmp_path / "notes.txt"
    original = b"low lower lowest newer wider " * 50
    path.write_bytes(original)
    kept: dict[str, object] = {}
    run_to_end(train_source_iter([str(path)], vocab_size=270, kept=kept), None)
    path.write_bytes(b"something else entirely " * 50)

    (counted,) = kept["count_table"].files  # type: ignore[attr-defined]
    assert counted.sha256 == hashlib.sha256(original).hexdigest()
