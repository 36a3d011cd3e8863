"""hn.cache: stats, entries, record/export, replay with the emulator stopped, drift, per-call control."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.store import cassette
from hermes_nb.testing import Emulator, use_emulator

SECRET = "emu-brave-key"


@pytest.fixture
def emu(hermetic: Path) -> Iterator[Emulator]:
    with Emulator(seed=0) as server, use_emulator(server, ["brave", "tavily", "openai"]):
        config.set("web.search_backend", "brave")
        config.set("web.extract_backend", "tavily")
        config.set("image_gen.provider", "openai")
        yield server


def _searches(emu: Emulator) -> int:
    return len(emu.requests_for("brave"))


def test_stats_entries_and_clear(emu: Emulator) -> None:
    hn.search("python packaging", 3)
    hn.extract(emu.page_url("/site/articles/hello-world.html"))
    stats = hn.cache.stats()
    assert stats["searches"] == 1 and stats["mode"] == "read_write" and stats["replay_file"] is None
    rows = hn.cache.entries()
    assert {r["kind"] for r in rows} == {"search", "extract"}
    search_row = next(r for r in rows if r["kind"] == "search")
    assert search_row["request"] == "search 'python packaging' (limit 3, backend brave)"
    assert search_row["items"] == 3 and search_row["created"].endswith("Z")
    assert [r["kind"] for r in hn.cache.entries(kind="search")] == ["search"]
    hn.cache.clear("cache")
    assert hn.cache.entries() == []
    with pytest.raises(errors.InvalidInputError):
        hn.cache.entries(kind="nope")


def test_cached_result_says_so_and_from_when(emu: Emulator) -> None:
    first = hn.search("jupyter widgets", 3)
    again = hn.search("  Jupyter   WIDGETS ", 3)
    assert not first.cached and first.cached_at == ""
    assert again.cached and again.cached_at.endswith("Z") and _searches(emu) == 1
    bundle = again._repr_mimebundle_()
    assert "from the cache" in bundle["text/plain"] and again.cached_at not in bundle["text/plain"]
    assert f"from the cache ({again.cached_at})" in bundle["text/html"]


def test_no_cache_and_refresh_per_call(emu: Emulator) -> None:
    hn.search("rust async", 3)
    assert hn.search("rust async", 3, no_cache=True).cached is False
    assert _searches(emu) == 2
    assert hn.search("rust async", 3, refresh=True).cached is False
    assert _searches(emu) == 3
    assert hn.search("rust async", 3).cached is True
    assert _searches(emu) == 3
    url = emu.page_url("/site/articles/hello-world.html")
    hn.extract(url)
    assert hn.extract(url).cached and not hn.extract(url, no_cache=True).cached
    assert not hn.extract(url, refresh=True).cached


def test_export_then_replay_with_the_emulator_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette_path = tmp_path / "tests" / "cassettes" / "analysis.hnb.jsonl"
    with Emulator(seed=0) as emu, use_emulator(emu, ["brave", "tavily"]):
        config.set("web.search_backend", "brave")
        config.set("web.extract_backend", "tavily")
        live = hn.search("python packaging", 5)
        page = hn.extract(emu.page_url("/site/articles/hello-world.html"))
        url = page.pages[0].url
        hn.cache.export(cassette_path)
    text = cassette_path.read_text(encoding="utf-8")
    assert SECRET not in text and "emu-tavily-key" not in text
    lines = text.splitlines()
    assert json.loads(lines[0]) == {"format": "hermes_nb.cassette", "version": 1}
    assert all(line == json.dumps(json.loads(line), sort_keys=True, ensure_ascii=False) for line in lines)

    # A fresh machine: empty store, no keys, no emulator, the base URLs pointing nowhere — and no network.
    config.reset()
    hn.cache.clear()
    monkeypatch.setenv("HERMES_NB_REPLAY", str(cassette_path))

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay opened a connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    replayed = hn.search("Python  Packaging", 3)  # normalised; a recorded limit 5 serves 3
    assert replayed.cached and replayed.urls == live.urls[:3] and replayed.provider == "brave"
    assert replayed.cached_at == json.loads(lines[2])["recorded"]  # extract sorts before search
    assert hn.extract(url).pages[0].content == page.pages[0].content
    with pytest.raises(errors.CacheMissError) as miss:
        hn.search("python packagin", 5)
    assert "search 'python packagin'" in str(miss.value)
    assert "closest recorded: search 'python packaging' (limit 5" in str(miss.value)
    assert hn.search("python packaging", 5, refresh=True).cached  # per-call flags cannot lift replay
    assert hn.cache.stats()["mode"] == "replay"


def test_strict_replay_compares_every_parameter(emu: Emulator, tmp_path: Path) -> None:
    path = tmp_path / "strict.hnb.jsonl"
    with hn.cache.record(path):
        hn.search("data science", 5)
    config.set("cache.replay_file", str(path))
    assert hn.search("data science", 4).cached
    config.set("cache.replay_strict", True)
    with pytest.raises(errors.CacheMissError) as miss:
        hn.search("data science", 4)
    assert "strict" in str(miss.value)
    assert hn.search("data science", 5).cached


def test_record_block_keeps_what_was_used_cached_or_fresh(emu: Emulator, tmp_path: Path) -> None:
    hn.search("used before", 3)  # cached before recording starts
    hn.search("not used", 3)
    path = tmp_path / "block.hnb.jsonl"
    with hn.cache.record(path):
        hn.search("used before", 3)
        hn.search("fresh one", 3)
    kinds = [(e.kind, e.request.get("query")) for e in cassette.read(path)]
    assert kinds == [("search", "fresh one"), ("search", "used before")]
    again = tmp_path / "again.hnb.jsonl"
    with hn.cache.record(again):
        hn.search("used before", 3)
        hn.search("fresh one", 3)
    assert again.read_text() == path.read_text()  # re-recording the same notebook: the same file


def test_load_puts_a_cassette_into_the_store(emu: Emulator, tmp_path: Path) -> None:
    path = tmp_path / "load.hnb.jsonl"
    with hn.cache.record(path):
        first = hn.search("loading test", 3)
    hn.cache.clear()
    assert [e.kind for e in cassette.read(path)] == ["search"]
    assert hn.cache.load(path) == 1
    before = _searches(emu)
    again = hn.search("loading test", 3)
    assert again.cached, hn.cache.entries()
    assert again.urls == first.urls and _searches(emu) == before


def test_not_a_cassette(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"hello": 1}\n')
    with pytest.raises(errors.InvalidInputError, match="not a hermes_nb cassette"):
        hn.cache.load(bad)


def test_drift_reports_what_changed(emu: Emulator, tmp_path: Path) -> None:
    path = tmp_path / "drift.hnb.jsonl"
    url = emu.page_url("/site/articles/hello-world.html")
    with hn.cache.record(path):
        hn.search("drift check", 5)
        hn.extract(url)
    same = hn.cache.drift(path)
    assert [(r.kind, r.status) for r in same] == [("extract", "same"), ("search", "same")]
    assert same[0].similarity == 1.0 and not same.changed
    emu.seed = 7  # the web changed under the notebook
    report = hn.cache.drift(path)
    search_row = next(r for r in report if r.kind == "search")
    assert search_row.status == "changed" and search_row.added > 0 and search_row.removed > 0
    assert "drift check" in repr(report) and "<table" in report._repr_html_()
    frame = report.to_pandas()
    assert list(frame.columns)[:3] == ["kind", "request", "status"]


def test_drift_compares_the_words_a_reader_sees() -> None:
    from hermes_nb.cache.drift import _similarity

    # A cassette recorded before the extractor kept links (or wrote other marks) has not drifted.
    assert _similarity("Read the notes, **twice**.", "Read the [notes](https://a.test/n), twice.") == 1.0
    assert _similarity("Read the notes.", "Skip the notes.") < 1.0


def test_drift_runs_live_even_while_replaying(emu: Emulator, tmp_path: Path) -> None:
    path = tmp_path / "live.hnb.jsonl"
    with hn.cache.record(path):
        hn.search("replay and drift", 3)
    config.set("cache.replay_file", str(path))
    before = _searches(emu)
    assert [r.status for r in hn.cache.drift(path)] == ["same"]
    assert _searches(emu) == before + 1
    assert hn.search("replay and drift", 3).cached  # replay is back after the report


def test_crawls_and_several_pages_replay(emu: Emulator, tmp_path: Path) -> None:
    path = tmp_path / "crawl.hnb.jsonl"
    config.set("web.crawl_backend", "tavily")
    start = emu.page_url("/site/")
    urls = [emu.page_url("/site/articles/hello-world.html"), emu.page_url("/site/readme.md")]
    with hn.cache.record(path):
        crawled = hn.crawl(start, depth=1, limit=4)
        pages = hn.extract(urls)
    config.set("cache.replay_file", str(path))
    replayed = hn.crawl(start, depth=1, limit=3)  # a recorded larger limit serves a smaller one
    assert replayed.cached and [p.url for p in replayed.pages] == [p.url for p in crawled.pages][:3]
    again = hn.extract(list(reversed(urls)))
    assert [p.content for p in again.pages] == [p.content for p in reversed(pages.pages)]
    with pytest.raises(errors.CacheMissError, match="closest recorded: crawl"):
        hn.crawl(start, depth=2, limit=4)
