"""Embedding indicators from a model's safetensors file: one tensor read, tokens ranked and marked."""

from __future__ import annotations

import json
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.core.test_audit import tiny_bpe
from tokviz.core.analysis.audit import audit_vocabulary
from tokviz.core.analysis.embedding_audit import embedding_indicators
from tokviz.core.analysis.embedding_file import EmbeddingTensor, WeightsError, find_embedding, list_tensors
from tokviz.core.errors import Cancelled


def write_safetensors(
    path: Path, tensors: dict[str, np.ndarray], bf16: tuple[str, ...] = (), keep_dtype: bool = False
) -> Path:
    """The file format written by hand: an 8-byte header length, the JSON header, the raw data.

    Tensors named in ``bf16`` are stored as bfloat16 (the top half of each float32); the others
    as float32, or (``keep_dtype``) in their own float type.
    """
    header: dict[str, object] = {}
    blobs: list[bytes] = []
    offset = 0
    names = {np.dtype("<f2"): "F16", np.dtype("<f4"): "F32", np.dtype("<f8"): "F64"}
    for name, array in tensors.items():
        if name in bf16:
            data = (np.ascontiguousarray(array, dtype="<f4").view("<u4") >> 16).astype("<u2").tobytes()
            dtype = "BF16"
        else:
            stored = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<") if keep_dtype else "<f4")
            data = stored.tobytes()
            dtype = names[stored.dtype]
        header[name] = {
            "dtype": dtype,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))
    return path


def trained_and_untrained(rows: int, untrained: list[int], dim: int = 16) -> np.ndarray:
    """Trained rows point every way with norm ~4; untrained rows sit together near one small vector."""
    rng = np.random.default_rng(7)
    matrix = rng.normal(size=(rows, dim))
    common = rng.normal(size=dim) * 0.3
    matrix[untrained] = common + rng.normal(size=(len(untrained), dim)) * 0.01
    return matrix.astype(np.float32)


def test_close_to_the_unused_mean_is_marked_and_ranked_first(tmp_path: Path) -> None:
    tok = tiny_bpe()  # 261 ids; 258 ("abc") is unreachable
    untrained = [258, 100, 101, 102, 103]
    path = write_safetensors(tmp_path / "model.safetensors", {"wte": trained_and_untrained(261, untrained)})
    audit = audit_vocabulary(tok)
    found = embedding_indicators(audit, path, reference=[258, 100, 101])
    assert found.tensor == "wte" and found.has_reference
    assert set(found.likely_ids().tolist()) == set(untrained)
    ranks = dict(zip(found.ids.tolist(), found.ranks().tolist()))
    assert sorted(ranks[i] for i in untrained) == [1, 2, 3, 4, 5]
    assert "known-unused" in found.rule()


def test_without_a_reference_a_small_norm_marks_a_token(tmp_path: Path) -> None:
    matrix = np.random.default_rng(1).normal(size=(261, 64)).astype(np.float32)  # norms near 8
    matrix[[5, 6]] *= 0.01
    path = write_safetensors(tmp_path / "m.safetensors", {"emb": matrix})
    found = embedding_indicators(audit_vocabulary(tiny_bpe()), path, reference=[])
    assert not found.has_reference
    assert sorted(found.likely_ids().tolist()) == [5, 6]
    assert np.allclose(found.norms, np.linalg.norm(matrix, axis=1), rtol=1e-5)


def test_the_embedding_is_found_by_shape_and_bf16_is_read(tmp_path: Path) -> None:
    matrix = trained_and_untrained(261, [258, 100, 101, 102])
    path = write_safetensors(
        tmp_path / "m.safetensors",
        {
            "layers.0.mlp": np.zeros((16, 16), dtype=np.float32),
            "lm_head.weight": matrix,
            "model.embed_tokens.weight": matrix,
        },
        bf16=("model.embed_tokens.weight",),
    )
    assert find_embedding(list_tensors(path), 261).name == "model.embed_tokens.weight"
    rows = np.concatenate([b for _, b in EmbeddingTensor(path, "model.embed_tokens.weight").rows(block=100)])
    assert np.allclose(rows, matrix, rtol=1e-2, atol=1e-2)
    found = embedding_indicators(audit_vocabulary(tiny_bpe()), path, reference=[258, 100, 101])
    assert found.tensor == "model.embed_tokens.weight"
    assert {258, 100, 101, 102} <= set(found.likely_ids().tolist())


def test_a_padded_embedding_is_found_and_a_short_one_refused(tmp_path: Path) -> None:
    padded = write_safetensors(tmp_path / "p.safetensors", {"w": np.ones((320, 4), dtype=np.float32)})
    assert find_embedding(list_tensors(padded), 261).name == "w"
    short = write_safetensors(tmp_path / "s.safetensors", {"w": np.ones((200, 4), dtype=np.float32)})
    with pytest.raises(WeightsError, match="no tensor has one row per token"):
        embedding_indicators(audit_vocabulary(tiny_bpe()), short)
    with pytest.raises(WeightsError, match="200 rows"):
        embedding_indicators(audit_vocabulary(tiny_bpe()), short, "w")


def test_bad_files_and_names_are_one_clear_line(tmp_path: Path) -> None:
    audit = audit_vocabulary(tiny_bpe())
    with pytest.raises(WeightsError, match="no such file"):
        embedding_indicators(audit, tmp_path / "missing.safetensors")
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\xff" * 64)
    with pytest.raises(WeightsError, match="not a readable safetensors file"):
        embedding_indicators(audit, junk)
    path = write_safetensors(tmp_path / "m.safetensors", {"w": np.ones((261, 4, 2), dtype=np.float32)})
    with pytest.raises(WeightsError, match="has no tensor 'x'"):
        embedding_indicators(audit, path, "x")
    with pytest.raises(WeightsError, match="two dimensions"):
        embedding_indicators(audit, path, "w")


@pytest.mark.parametrize(
    ("limit", "value", "said"),
    [
        ("MAX_TENSOR_BYTES", 1000, "more than"),
        ("MAX_EMBEDDING_DIM", 3, "rows of 4 numbers, wider than the 3 an embedding has"),
    ],
)
def test_a_tensor_past_a_limit_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str, value: int, said: str
) -> None:
    import tokviz.core.analysis.embedding_file as embedding_file

    monkeypatch.setattr(embedding_file, limit, value)
    path = write_safetensors(tmp_path / "m.safetensors", {"w": np.ones((261, 4), dtype=np.float32)})
    with pytest.raises(WeightsError, match=said):
        EmbeddingTensor(path, "w")


def test_the_indicators_show_as_an_html_table(tmp_path: Path) -> None:
    path = write_safetensors(
        tmp_path / "m.safetensors", {"wte": trained_and_untrained(261, [258, 100, 101, 102])}
    )
    found = embedding_indicators(audit_vocabulary(tiny_bpe()), path, reference=[258, 100, 101])
    assert "<table" in found.to_html() and "likely under-trained" in found.to_html()
    assert getattr(found, "_repr_html_")() == found.to_html()  # noqa: B009 - the hook Jupyter calls


def test_a_matrix_with_nothing_to_tell_marks_nothing_and_cancel_stops(tmp_path: Path) -> None:
    path = write_safetensors(tmp_path / "m.safetensors", {"wte": np.ones((261, 8), dtype=np.float32)})
    audit = audit_vocabulary(tiny_bpe())
    found = embedding_indicators(audit, path, reference=[1, 2, 3])
    assert not found.likely.any() and not found.has_reference
    with pytest.raises(Cancelled):
        embedding_indicators(audit, path, cancel=lambda: True)
    seen: list[tuple[int, int]] = []
    embedding_indicators(audit, path, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1]


def test_rows_read_in_blocks_equal_what_the_safetensors_library_reads(tmp_path: Path) -> None:
    safetensors = pytest.importorskip("safetensors")
    rng = np.random.default_rng(3)
    tensors = {
        "half": rng.normal(size=(37, 5)).astype(np.float16),
        "single": rng.normal(size=(41, 3)).astype(np.float32),
        "double": rng.normal(size=(29, 4)),
        "brain": rng.normal(size=(23, 6)).astype(np.float32),
    }
    path = write_safetensors(tmp_path / "m.safetensors", tensors, bf16=("brain",), keep_dtype=True)

    with safetensors.safe_open(str(path), framework="numpy") as f:
        for name in tensors:
            expected = f.get_tensor(name).astype(np.float32) if name != "brain" else None
            blocks = list(EmbeddingTensor(path, name).rows(block=7))
            assert [start for start, _ in blocks] == list(range(0, len(tensors[name]), 7))
            rows = np.concatenate([b for _, b in blocks])
            assert rows.dtype == np.float32
            if expected is not None:
                assert np.array_equal(rows, expected)
            else:
                assert np.allclose(rows, tensors[name], rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_rows_that_are_not_finite_are_a_class_of_their_own(tmp_path: Path, bad: float) -> None:
    matrix = trained_and_untrained(261, [258, 100, 101, 102, 103])
    matrix[[7, 8]] = bad  # whole rows
    matrix[9, 3] = bad  # one value is enough
    path = write_safetensors(tmp_path / "m.safetensors", {"wte": matrix})

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may reach standard error as a library warning
        found = embedding_indicators(audit_vocabulary(tiny_bpe()), path, reference=[258, 100, 101])

    assert found.not_finite_ids().tolist() == [7, 8, 9]
    assert not found.likely[found.not_finite].any()
    assert set(found.likely_ids().tolist()) == {258, 100, 101, 102, 103}
    assert np.isfinite(found.norm_threshold) and "nan" not in found.rule()
    assert "3 rows not finite" in found.to_html()


def test_a_row_of_the_largest_finite_numbers_still_has_a_norm(tmp_path: Path) -> None:
    matrix = trained_and_untrained(261, [])
    matrix[10] = 3e38  # finite, though its square overflows float32
    path = write_safetensors(tmp_path / "m.safetensors", {"wte": matrix})
    found = embedding_indicators(audit_vocabulary(tiny_bpe()), path, reference=[])
    assert not found.not_finite.any()
    assert np.isfinite(found.norms[10]) and found.norms[10] > 1e38


def test_a_matrix_of_nothing_but_nan_says_there_is_nothing_to_compare(tmp_path: Path) -> None:
    path = write_safetensors(tmp_path / "m.safetensors", {"wte": np.full((261, 8), np.nan, dtype=np.float32)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = embedding_indicators(audit_vocabulary(tiny_bpe()), path, reference=[1, 2, 3])
    assert not found.likely.any() and found.not_finite.all()
    assert found.rule() == "nothing to compare: every audited row holds a NaN or an infinite value"


def _header_file(path: Path, header: object, data: bytes = b"", claimed: int | None = None) -> Path:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw) if claimed is None else claimed) + raw + data)
    return path


@pytest.mark.parametrize(
    ("header", "data", "claimed", "said"),
    [
        ({}, b"", 2**40, "the header claims 1,099,511,627,776 bytes, more than the 16 MB tokviz reads"),
        ({}, b"", 5000, "the header claims 5,000 bytes, more than the file holds"),
        (
            {"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}},
            b"\0" * 8,
            None,
            "outside the file's 8 bytes",
        ),
        (
            {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 16]}},
            b"\0" * 16,
            None,
            "is F32 [2, 3], which is not its 16 bytes",
        ),
        (
            {"w": {"dtype": "F32", "shape": "2x2", "data_offsets": [0, 16]}},
            b"\0" * 16,
            None,
            "not a list of sizes",
        ),
        (
            {"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [16, 0]}},
            b"\0" * 16,
            None,
            "data offsets [16, 0]",
        ),
        ([1, 2], b"", None, "the header is not a table of tensors"),
    ],
    ids=[
        "huge-header",
        "header-past-the-end",
        "data-past-the-end",
        "shape-not-size",
        "shape-not-list",
        "offsets-reversed",
        "not-a-table",
    ],
)
def test_a_hostile_header_is_one_line_naming_the_file(
    tmp_path: Path, header: object, data: bytes, claimed: int | None, said: str
) -> None:
    path = _header_file(tmp_path / "m.safetensors", header, data, claimed)
    with pytest.raises(WeightsError) as info:
        list_tensors(path)
    message = str(info.value)
    assert message.startswith("m.safetensors: not a readable safetensors file (") and said in message


def test_memory_follows_the_block_not_the_tensor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tokviz.core.analysis.embedding_file as embedding_file

    monkeypatch.setattr(embedding_file, "BLOCK_BYTES", 4 * 16 * 10)  # ten rows of 16 float32
    path = write_safetensors(tmp_path / "m.safetensors", {"wte": trained_and_untrained(261, [5])})
    tensor = EmbeddingTensor(path, "wte")
    assert tensor.block_rows() == 10
    assert {len(block) for _, block in tensor.rows()} == {10, 1}
