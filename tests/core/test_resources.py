"""Bundled data is found from a checkout, and the lookup order matches the wheel layout."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tokviz.core.errors import TokvizError
from tokviz.core.io import resources
from tokviz.core.io.resources import ResourceNotFoundError, resource_path, resources_dir


def test_resources_dir_holds_the_encodings() -> None:
    base = resources_dir()
    assert base.is_dir()
    assert (base / "encodings" / "r50k_base.tiktoken").is_file()


def test_resource_path_finds_a_bundled_file() -> None:
    path = resource_path("encodings", "cl100k_base.tiktoken")
    assert path.is_file()
    assert path == resources_dir() / "encodings" / "cl100k_base.tiktoken"


def test_missing_resource_names_what_is_missing() -> None:
    with pytest.raises(ResourceNotFoundError, match=r"'encodings/nope\.tiktoken' is missing") as info:
        resource_path("encodings", "nope.tiktoken")
    # Callers may catch it as either kind of error.
    assert isinstance(info.value, FileNotFoundError)
    assert isinstance(info.value, TokvizError)


@pytest.mark.parametrize("parts", [(), ("..", "pyproject.toml"), ("/etc/passwd",)])
def test_resource_path_stays_inside_the_folder(parts: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        resource_path(*parts)


def test_packaged_folder_wins_over_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packaged = tmp_path / "site-packages" / "tokviz" / "resources"
    packaged.mkdir(parents=True)
    monkeypatch.setattr(resources, "_packaged_dir", lambda: packaged)
    assert resources_dir() == packaged


def test_checkout_folder_is_used_when_the_package_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "resources"
    checkout.mkdir()
    monkeypatch.setattr(resources, "_packaged_dir", lambda: tmp_path / "tokviz" / "resources")
    monkeypatch.setattr(resources, "_checkout_dir", lambda: checkout)
    assert resources_dir() == checkout


def test_no_resources_folder_names_every_place_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resources, "_packaged_dir", lambda: tmp_path / "a")
    monkeypatch.setattr(resources, "_checkout_dir", lambda: tmp_path / "b")
    with pytest.raises(ResourceNotFoundError) as info:
        resources_dir()
    assert str(tmp_path / "a") in str(info.value)
    assert str(tmp_path / "b") in str(info.value)


def test_bundled_files_match_their_sha256sums() -> None:
    folder = resource_path("encodings")
    listed = {}
    for line in (folder / "SHA256SUMS").read_text(encoding="ascii").splitlines():
        digest, name = line.split()
        listed[name.lstrip("*")] = digest
    assert set(listed) == {"r50k_base.tiktoken", "cl100k_base.tiktoken", "o200k_base.tiktoken"}
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


def test_encodings_carry_their_licence_notice() -> None:
    notice = resource_path("encodings", "NOTICE").read_text(encoding="utf-8")
    assert "Copyright (c) 2022 OpenAI, Shantanu Jain" in notice
    assert "MIT" in notice


def test_the_bundled_emoji_font_matches_its_sha256sum_and_carries_its_licence() -> None:
    folder = resource_path("fonts")
    digest, name = (folder / "SHA256SUMS").read_text(encoding="ascii").split()
    assert name == "NotoEmoji[wght].ttf"
    assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest
    assert "SIL OPEN FONT LICENSE Version 1.1" in (folder / "OFL.txt").read_text(encoding="utf-8")
    notice = (folder / "NOTICE").read_text(encoding="utf-8")
    assert "Copyright 2013 Google LLC" in notice and "OFL.txt" in notice
