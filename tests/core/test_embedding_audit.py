"""Embedding indicators from a model's safetensors file: one tensor read, tokens ranked and marked."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from tests.core.test_audit import tiny_bpe
from tokviz.core.analysis.audit import audit_vocabulary
from tokviz.core.analysis.embedding_audit import embedding_indicators
from tokviz.core.analysis.embedding_file import EmbeddingTensor, WeightsError, find_embedding, list_tensors
from tokviz.core.errors import Cancelled

pytest.importorskip("safetensors")


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], bf16: tuple[str, ...] = ()) -> Path:
    """The file format written by hand: an 8-byte header length, the JSON header, the raw data.

    Tensors named in ``bf16`` are stored as bfloat16 (the top half of each float32).
    """
    header: dict[str, object] = {}
    blobs: list[bytes] = []
    offset = 0
    for name, array in tensors.items():
        if name in bf16:
            data = (np.ascontiguousarray(array, dtype="<f4").view("<u4") >> 16).astype("<u2").tobytes()
            dtype = "BF16"
        else:
            data = np.ascontiguousarray(array, dtype="<f4").tobytes()
            dtype = "F32"
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


def test_a_tensor_larger_than_the_limit_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tokviz.core.analysis.embedding_file as embedding_file

    monkeypatch.setattr(embedding_file, "MAX_TENSOR_BYTES", 1000)
    path = write_safetensors(tmp_path / "m.safetensors", {"w": np.ones((261, 4), dtype=np.float32)})
    with pytest.raises(WeightsError, match="more than"):
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
