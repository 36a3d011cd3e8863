"""The one replay module: the Mode enum, one call_mode, old cassettes and stored rows, a new file kind."""

from __future__ import annotations

import hashlib
import io
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import hermes_nb as hn
from hermes_nb import config, errors, web
from hermes_nb.store import replay, requests
from hermes_nb.store.replay import CACHE_MODES, Mode

# -- the mode ----------------------------------------------------------------------------------


def test_mode_is_a_str_enum_that_config_values_and_old_strings_still_match() -> None:
    assert CACHE_MODES == ("read_write", "replay", "refresh", "off")
    assert Mode("replay") is Mode.REPLAY and Mode.REPLAY == "replay" and f"{Mode.OFF}" == "off"
    assert str(Mode.READ_WRITE) == "read_write" and json.dumps(Mode.REFRESH) == '"refresh"'
    config.set("cache.mode", "refresh")
    assert replay.cache_mode() is Mode.REFRESH and web.cache_mode() == "refresh"
    assert hn.cache.stats()["mode"] == "refresh" and type(hn.cache.stats()["mode"]) is str


@pytest.mark.parametrize(
    ("configured", "no_cache", "refresh", "expected"),
    [
        ("read_write", False, False, Mode.READ_WRITE),
        ("read_write", True, False, Mode.OFF),
        ("read_write", False, True, Mode.REFRESH),
        ("read_write", True, True, Mode.OFF),
        ("off", False, True, Mode.OFF),  # refresh cannot turn a switched-off cache on
        ("replay", True, True, Mode.REPLAY),  # nothing lifts replay
        ("refresh", False, False, Mode.REFRESH),
    ],
)
def test_call_mode_narrows_the_configured_mode(
    configured: str, no_cache: bool, refresh: bool, expected: Mode
) -> None:
    config.set("cache.mode", configured)
    assert replay.call_mode(no_cache=no_cache, refresh=refresh) is expected


def test_what_each_mode_does() -> None:
    assert [m.value for m in Mode if m.reads] == ["read_write", "replay"]
    assert [m.value for m in Mode if m.writes] == ["read_write", "refresh"]
    assert [m.value for m in Mode if not m.calls] == ["replay"]


# -- cassettes and stored rows written before ---------------------------------------------------


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


IMAGE_REQUEST = {"aspect_ratio": "square", "model": "gpt-image-1", "n": 1, "parameters": {},
                 "prompt": "a paper boat", "provider": "openai", "seed": 9}  # fmt: skip


def _old_cassette(folder: Path) -> Path:
    """A cassette byte for byte as hermes_nb wrote them before the replay module (format version 1)."""
    files = folder / "old.hnb.files"
    files.mkdir()
    png = _png()
    digest = hashlib.sha256(png).hexdigest()
    (files / f"{digest[:16]}.png").write_bytes(png)
    lines = [
        {"format": "hermes_nb.cassette", "version": 1},
        {"file": f"old.hnb.files/{digest[:16]}.png", "index": 0, "kind": "image", "provider": "openai",
         "recorded": "2026-11-24T10:31:02Z", "request": IMAGE_REQUEST,
         "value": {**IMAGE_REQUEST, "cost": None, "created": "2026-11-24T10:31:02+00:00", "duration_s": 0.5,
                   "format": "PNG", "height": 8, "hermes_nb_version": "0.1.0", "revised_prompt": None,
                   "sha256": digest, "size": "8x8", "width": 8}},
        {"kind": "search", "provider": "brave", "recorded": "2026-11-24T10:31:00Z",
         "request": {"backend": "brave", "kind": "search", "limit": 3, "query": "python packaging"},
         "value": {"effective_limit": 3, "warnings": [], "hits": [
             {"description": "d", "metadata": {}, "position": 1, "title": "Packaging", "url": "https://p.test/"}]}},
        {"kind": "extract", "provider": "tavily", "recorded": "2026-11-24T10:31:01Z",
         "request": {"backend": "auto", "kind": "extract", "url": "https://p.test/"},
         "value": {"url": "https://p.test/", "title": "Packaging", "content": "How to package.",
                   "metadata": {}}},
    ]  # fmt: skip
    path = folder / "old.hnb.jsonl"
    path.write_text("\n".join(json.dumps(line, sort_keys=True) for line in lines) + "\n", encoding="utf-8")
    return path


def test_a_cassette_written_before_replays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _old_cassette(tmp_path)
    monkeypatch.setenv("HERMES_NB_REPLAY", str(path))
    monkeypatch.setattr(socket, "create_connection", None)  # any connection attempt would fail loudly
    found = hn.search("Python  Packaging", 2)
    assert found.cached and found.provider == "brave" and [h.url for h in found] == ["https://p.test/"]
    page = hn.extract("https://P.test/")
    assert page.cached and page[0].content == "How to package."
    image = hn.imagine("a paper boat", aspect_ratio="square", seed=9)
    assert image.cached and image.provider == "openai" and image.path.read_bytes() == _png()
    with pytest.raises(errors.CacheMissError, match="closest recorded: search 'python packaging'"):
        hn.search("rust packaging", 2)


def test_stored_image_rows_keep_the_digest_they_always_had(tmp_path: Path) -> None:
    # The digest image rows were written with before the key scheme was shared (sha256 of the
    # request's canonical JSON, 32 hex digits): rows in existing stores must still be found.
    blob = json.dumps(IMAGE_REQUEST, sort_keys=True, ensure_ascii=False, default=str)
    old_digest = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]
    assert requests.digest(IMAGE_REQUEST) == old_digest
    image = tmp_path / "old.png"
    image.write_bytes(_png())
    hn.store.get_store().record_image(
        {**IMAGE_REQUEST, "path": str(image), "request_hash": old_digest, "run": "r1", "index": 0,
         "request": IMAGE_REQUEST, "sha256": "x", "width": 8, "height": 8}
    )  # fmt: skip
    config.set("cache.mode", "replay")
    records = replay.stored_files("image", IMAGE_REQUEST)
    assert records is not None and records[0]["path"] == str(image)


def test_web_keys_are_unchanged() -> None:
    assert requests.search_key("auto", 5, "  Python   Packaging") == "search|auto|5|python packaging"
    assert requests.extract_key("auto", "HTTPS://Example.org#x") == "extract|auto|https://example.org/"
    assert requests.crawl_key("brave", 2, 20, "https://a.test/") == "crawl|brave|2|20|https://a.test/"


# -- a third file kind plugs in without a copy ----------------------------------------------------


def test_a_new_file_kind_uses_the_same_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "_file_rows", dict(replay._file_rows))  # registered for this test only
    rows: list[dict[str, Any]] = []
    replay.register_file_rows(
        "video",
        replay.FileRows(
            find=lambda request: [r for r in reversed(rows) if r["prompt"] == request["prompt"]],
            add=lambda row: rows.append(
                {"path": row["path"], "created": 1.0, "prompt": row["prompt"],
                 "params": {k: v for k, v in row.items() if k != "path"}}
            ),
        ),
    )  # fmt: skip
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    request = {"provider": "vendor", "model": "m1", "prompt": "waves", "duration_s": 4, "n": 1}
    record = {"provider": "vendor", "prompt": "waves", "path": str(clip)}
    same = dict  # the caller's result type: here the record itself

    assert replay.read_files("video", Mode.READ_WRITE, request, decode=same, encode=same) is None
    cassette_path = tmp_path / "video.hnb.jsonl"
    with replay.recording(cassette_path):
        replay.keep_file("video", request, record, Mode.READ_WRITE, run="r", index=0)
    found = replay.read_files("video", Mode.READ_WRITE, request, decode=same, encode=same)
    assert found is not None and found[0]["path"] == str(clip)
    assert replay.read_files("video", Mode.OFF, request, decode=same, encode=same) is None

    config.set("cache.replay_file", str(cassette_path))
    replayed = replay.read_files("video", replay.cache_mode(), {**request, "provider": None, "model": None},
                                 decode=same, encode=same)  # fmt: skip
    assert replayed is not None and Path(replayed[0]["path"]).read_bytes() == clip.read_bytes()
    with pytest.raises(errors.CacheMissError, match="no recorded video 'waves' .*duration_s 8"):
        replay.read_files("video", Mode.REPLAY, {**request, "duration_s": 8}, decode=same, encode=same)


def test_an_unregistered_file_kind_is_refused_with_the_fix() -> None:
    with pytest.raises(errors.InvalidInputError, match="register_file_rows"):
        replay.stored_files("hologram", {"prompt": "x", "n": 1})
