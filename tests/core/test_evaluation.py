"""Evaluating tokenizers on a folder: exact totals, groups by folder or category, names, rounding.

The token counts are checked against tiktoken itself (an oracle that shares no code with tokviz),
on files read in pieces, so streaming never changes a count.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.analysis.evaluation import (
    EVAL_FIELDS,
    OTHER_CATEGORY,
    TOTAL_GROUP,
    Categories,
    by_folder,
    evaluate,
    id_space,
    rounded,
    tokenizer_label,
    unique_labels,
)
from tokviz.core.corpus.fileselect import select_files
from tokviz.core.errors import Cancelled, InvalidArgument
from tokviz.core.formats.model_file import model_file_bytes
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import train_bpe

CODE = "def square(x: int) -> int:\n    return x * x  # the square\n\n" * 40
PROSE = "The exchange rate between text and sequence length decides what fits a context.\n" * 30
CHINESE = "你好，世界！分词器把文字切成片段。\n" * 20


def write(root: Path, relative: str, text: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.fixture()
def heldout(tmp_path: Path) -> Path:
    root = tmp_path / "heldout"
    write(root, "src/app.py", CODE)
    write(root, "src/util.py", CODE[:500] + "😀 emoji in a comment\n")
    write(root, "docs/guide.md", PROSE)
    write(root, "docs/zh.md", CHINESE)
    write(root, "docs/empty.md", "")
    write(root, "docs/old.md.gz", gzip.compress(PROSE.encode() * 3))
    write(root, "README.txt", PROSE[:200])
    write(root, "build/lib.so", b"\x7fELF\x00\x00" + bytes(range(256)) * 8)
    return root


def file_texts(root: Path) -> list[str]:
    names = ["README.txt", "docs/guide.md", "docs/old.md.gz", "docs/zh.md", "src/app.py", "src/util.py"]
    texts = {n: (root / n).read_bytes() for n in names}
    texts["docs/old.md.gz"] = gzip.decompress(texts["docs/old.md.gz"])
    return [texts[n].decode() for n in names]


@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_totals_equal_tiktokens_counts(
    heldout: Path, name: str, gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    oracle = {"gpt2": gpt2_tiktoken, "cl100k": cl100k_tiktoken}[name]
    result = evaluate(select_files([heldout]), [load_tokenizer(name)])

    total = result.totals[0]
    texts = file_texts(heldout)
    ids = [i for t in texts for i in oracle.encode(t)]
    assert total.tokens == len(ids)
    assert total.bytes == sum(len(t.encode()) for t in texts)
    assert total.files == 6 and result.empty_files == 1  # the empty file makes no row
    assert total.vocab_used == len(set(ids))
    assert total.bytes_per_token == total.bytes / total.tokens
    assert total.mean_token_bytes == pytest.approx(
        sum(len(oracle.decode_single_token_bytes(i)) for i in set(ids)) / len(set(ids))
    )


def test_streaming_small_blocks_gives_the_same_counts_as_one_piece(
    tmp_path: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    big = (PROSE + CODE + CHINESE) * 60  # well over one encode_iterable block
    write(tmp_path, "big.txt", big)
    result = evaluate(select_files([tmp_path]), [load_tokenizer("gpt2")], per_file=True)
    assert result.files[0].tokens == len(gpt2_tiktoken.encode(big))


def test_groups_by_folder_and_the_best_tokenizer(heldout: Path) -> None:
    selection = select_files([heldout])
    toks = [load_tokenizer("gpt2"), load_tokenizer("cl100k")]
    result = evaluate(selection, toks, ["GPT-2", "cl100k"], group_of=by_folder(selection))

    groups = {(r.group, r.tokenizer): r for r in result.groups}
    assert {g for g, _ in groups} == {"heldout", "docs", "src"}  # README.txt sits at the top
    assert groups[("docs", "GPT-2")].files == 3  # empty.md left out
    for name in ("GPT-2", "cl100k"):
        assert sum(groups[(g, name)].tokens for g in ("heldout", "docs", "src")) == next(
            r.tokens for r in result.totals if r.tokenizer == name
        )
    best = {r.tokenizer: r.relative_tokens for r in result.totals}
    assert best["cl100k"] == 1.0 and best["GPT-2"] > 1.0
    assert [r.group for r in result.rows()][-2:] == [TOTAL_GROUP, TOTAL_GROUP]


def test_categories_from_a_file(heldout: Path) -> None:
    categories = Categories.parse("# what the files are\ncode: *.py\nchinese: zh.md\nprose: docs/ *.txt\n")
    selection = select_files([heldout])
    result = evaluate(
        selection,
        [load_tokenizer("gpt2")],
        group_of=categories.group_of,
        group_order=categories.names,
    )
    assert [r.group for r in result.groups] == ["code", "chinese", "prose"]
    assert {r.group: r.files for r in result.groups} == {"code": 2, "chinese": 1, "prose": 3}
    assert Categories.parse('{"py": "*.py"}').group_of(selection.files[0]) == OTHER_CATEGORY
    with pytest.raises(InvalidArgument, match="line 1"):
        Categories.parse("no colon here")


def test_share_of_the_vocabulary_used(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "aaaa bbbb")
    tok = load_tokenizer("bytes")
    row = evaluate(select_files([tmp_path]), [tok]).totals[0]
    assert (row.vocab_used, row.vocab_tokens) == (3, 256)  # a, b and the space
    assert row.vocab_used_share == 3 / 256 and row.mean_token_bytes == 1.0


def test_tokenizers_are_named_as_the_app_names_them(tmp_path: Path) -> None:
    trained = train_bpe(text=PROSE, vocab_size=270).tokenizer("py8k")
    model = tmp_path / "models" / "py8k.json"
    model.parent.mkdir()
    model.write_bytes(model_file_bytes(trained))
    assert tokenizer_label("gpt2", load_tokenizer("gpt2")) == "GPT-2"
    assert tokenizer_label("r50k_base", load_tokenizer("r50k_base")) == "GPT-2"
    assert tokenizer_label(str(model), load_tokenizer(str(model))) == "py8k"
    export = tmp_path / "py32k" / "tokenizer.json"
    export.parent.mkdir()
    assert tokenizer_label(str(export), trained) == "py32k"  # the stem only names the format
    assert unique_labels(["a/m.json", "a/m.tiktoken"], [trained, trained]) == ["m.json", "m.tiktoken"]
    assert unique_labels(["a/x.json", "b/x.json"], [trained, trained]) == ["a/x.json", "b/x.json"]


def test_the_id_space_counts_gaps_in_the_ids() -> None:
    cl100k = load_tokenizer("cl100k")
    assert (cl100k.vocab_size, id_space(cl100k)) == (100_261, 100_277)
    assert id_space(load_tokenizer("gpt2")) == 50_257


def test_numbers_written_to_files_are_rounded() -> None:
    assert rounded("bytes_per_token", 17 / 3) == 5.667
    assert rounded("vocab_used_share", 14715 / 32000) == 0.4598
    assert rounded("tokens", 12) == 12 and rounded("bytes_per_token", None) is None
    assert EVAL_FIELDS[:2] == ("group", "tokenizer")


def test_cancel_and_progress(heldout: Path) -> None:
    seen = []
    evaluate(select_files([heldout]), [load_tokenizer("gpt2")], progress=seen.append)
    assert seen[-1].done == seen[-1].total and seen[-1].files_done == seen[-1].files_total
    with pytest.raises(Cancelled):
        evaluate(select_files([heldout]), [load_tokenizer("gpt2")], cancel=lambda: True)
