"""A file whose header promises little and whose body holds millions: refused at the first excess.

A tokviz model file lists its vocabulary, then merges and history records, one per token at most;
a count table's metadata says how many rows it has and what they add up to. A model file of 256
tokens with 3,000,000 merges took 6.6 s and 776 MB before it was refused, and a count table
saying 4 rows but holding 3,000,000 trained for 13 s in 1.6 GB. Each runs here in a child process
capped at the command's peak on an honest file plus 300 MB, and must end with one line naming
the file and the first item too many.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import assert_one_line_error, cap_above_normal, needs_proc_status, run_capped

pytestmark = needs_proc_status

BYTES_VOCAB = {str(i): f"{i:02x}" for i in range(256)}
HEAD = {"format": "tokviz-model", "version": 1, "name": "m", "pretokenizer": "gpt2", "special_tokens": {}}


def write_model(path: Path, merges: int, merges_first: bool = False) -> Path:
    """A model of the 256 bytes with ``merges`` copies of one merge, one per line as tokviz writes."""
    listed = '"merges": [\n' + ",\n".join(['    ["61", "62"]'] * merges) + "\n  ]"
    vocab = f'"vocab": {json.dumps(BYTES_VOCAB)}'
    head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in HEAD.items())
    members = [listed, head, vocab] if merges_first else [head, vocab, listed]
    path.write_text("{" + ",\n".join([*members, '"history": []']) + "}\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("merges_first", [False, True], ids=["vocabulary-first", "merges-first"])
def test_a_model_file_with_3_million_merges_for_256_tokens_is_refused_at_the_first_excess(
    tmp_path: Path, merges_first: bool
) -> None:
    honest = write_model(tmp_path / "honest.json", 0)
    write_model(tmp_path / "m.json", 3_000_000, merges_first)
    cap = cap_above_normal(tmp_path, "info", honest.name)

    done = run_capped(cap, tmp_path, "info", "m.json")

    assert done.returncode == 1, done.stderr[-2000:]
    assert_one_line_error(done.stderr, "m.json: more than 256 merges cannot fit a vocabulary of 256 entries")


def count_table(tmp_path: Path) -> tuple[Path, str, str]:
    """An honest count table of a short text, and its metadata line and column header."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat\n", encoding="utf-8")
    table = tmp_path / "honest.tsv"
    counted = run_capped(0, tmp_path, "count", corpus.name, "-o", table.name)
    assert counted.returncode == 0, counted.stderr
    meta, header, _rows = table.read_text(encoding="utf-8").split("\n", 2)
    return table, meta, header


@pytest.mark.slow
def test_a_count_table_with_3_million_rows_where_its_metadata_says_7_is_refused_at_row_8(
    tmp_path: Path,
) -> None:
    honest, meta, header = count_table(tmp_path)
    liar = tmp_path / "liar.tsv"
    with liar.open("w", encoding="utf-8") as fh:
        fh.write(f"{meta}\n{header}\n")
        fh.writelines(f"1\tw{i}\n" for i in range(3_000_000))
    argv = ["train", "--from-counts", "{t}", "--vocab-size", "300", "-o", "{t}.json"]
    cap = cap_above_normal(tmp_path, *[a.format(t=honest.name) for a in argv])

    done = run_capped(cap, tmp_path, *[a.format(t=liar.name) for a in argv])

    assert done.returncode == 1, done.stderr[-2000:]
    assert_one_line_error(
        done.stderr, "liar.tsv: line 10: the metadata says 7 unique pre-tokens, and this row is one more"
    )
    assert not (tmp_path / "liar.tsv.json").exists()


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        (["1\tthe", "1\t cat"], "the metadata says 7 unique pre-tokens, but the table has 2 rows"),
        (
            ["1000\tthe", "1\t cat", "1\t sat", "1\t on", "1\t mat", "1\t the", "1\t\\n"],
            "line 3: the counts add up to more than the metadata's total of 7",
        ),
        (
            ["1\tthe", "1\t cat", "1\t sat", "1\t on", "1\t mat", "1\t the", "0\t\\n"],
            "line 9: the count '0' is not a whole number",
        ),
    ],
    ids=["fewer-rows", "larger-total", "zero-count"],
)
def test_a_count_table_whose_rows_are_not_what_its_metadata_says_is_refused(
    tmp_path: Path, rows: list[str], said: str
) -> None:
    _honest, meta, header = count_table(tmp_path)
    liar = tmp_path / "liar.tsv"
    liar.write_text("\n".join([meta, header, *rows]) + "\n", encoding="utf-8")

    done = run_capped(0, tmp_path, "train", "--from-counts", liar.name, "--vocab-size", "300", "-o", "m.json")

    assert done.returncode == 1, done.stderr
    assert_one_line_error(done.stderr.rsplit("\n", 2)[0], "liar.tsv: ", said)
