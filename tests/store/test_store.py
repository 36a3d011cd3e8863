"""The SQLite store: schema, concurrent writers, FTS, provenance without secrets, errors, resets."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from hermes_nb import _state, config, store
from hermes_nb.errors import InvalidInputError


def test_store_lives_under_hermes_home_with_schema_version(hermetic: Path) -> None:
    db = store.get_store()
    assert db.path == hermetic / "hermes_nb.sqlite3"
    assert db.schema_version == store.SCHEMA_VERSION
    assert store.get_store() is db
    mode = sqlite3.connect(db.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_cache_round_trip_and_max_age() -> None:
    db = store.get_store()
    db.cache_put("k", "search", "brave", {"hits": [1, 2]})
    value, provider, created = db.cache_get("k")  # type: ignore[misc]  # present
    assert value == {"hits": [1, 2]} and provider == "brave" and created > 0
    assert db.cache_get("k", max_age=-1) is None
    assert db.cache_get("other") is None


def test_concurrent_writers_from_threads() -> None:
    db = store.get_store()
    errors: list[BaseException] = []

    def writer(t: int) -> None:
        try:
            for i in range(40):
                db.cache_put(f"t{t}-{i}", "search", "p", {"i": i})
                db.put_page(f"https://t{t}.test/{i}", f"title {t} {i}", f"body shared words {t} {i}")
                db.batch_put("job", t * 100 + i, "key", "done", result={"i": i})
        except BaseException as exc:  # collected so the main thread can report it
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    stats = db.stats()
    assert (stats["cache_entries"], stats["pages"], stats["batch_items"]) == (320, 320, 320)
    assert len(db.search_pages("shared", limit=500)) == 320


def test_fts_search_ranks_title_matches_and_falls_back_to_any_word() -> None:
    db = store.get_store()
    db.put_page("https://a.test/", "Vector databases", "An overview of indexes.", provider="direct")
    db.put_page("https://b.test/", "Cooking", "Mentions vector once among recipes.")
    db.put_page("https://c.test/", "Gardening", "Nothing relevant here.")
    hits = db.search_pages("vector")
    assert [h.url for h in hits] == ["https://a.test/", "https://b.test/"]
    assert [h.position for h in hits] == [1, 2] and hits[1].description.startswith("Mentions vector")
    either = {h.url for h in db.search_pages("vector gardening")}
    assert either == {"https://a.test/", "https://b.test/", "https://c.test/"}
    assert db.search_pages('"; DROP TABLE pages; --') == []
    assert db.search_pages("   ") == []
    assert db.search_pages("vector", limit=1)[0].url == "https://a.test/"


def test_updating_a_page_reindexes_it() -> None:
    db = store.get_store()
    db.put_page("https://a.test/", "Old", "alpha")
    db.put_page("https://a.test/", "New", "beta")
    assert db.search_pages("alpha") == []
    assert db.search_pages("beta")[0].title == "New"
    assert db.get_page("https://a.test/")["content"] == "beta"  # type: ignore[index]  # present


def test_index_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# Kernel notes\nThe kernel restarts.", encoding="utf-8")
    (docs / "sub" / "b.txt").write_text("plain kernel text", encoding="utf-8")
    (docs / "c.html").write_text(
        "<html><head><title>Page &amp; more</title><script>var kernel=1</script></head>"
        "<body><p>html kernel body</p></body></html>",
        encoding="utf-8",
    )
    (docs / "skip.py").write_text("kernel = 1", encoding="utf-8")
    assert store.index_folder(docs) == 3
    hits = {h.title: h for h in store.search_pages("kernel", 10)}
    assert set(hits) == {"Kernel notes", "b", "Page & more"}
    assert hits["b"].url.startswith("file://")
    assert "var kernel" not in store.get_store().get_page(hits["Page & more"].url)["content"]  # type: ignore[index]
    with pytest.raises(InvalidInputError):
        store.index_folder(tmp_path / "nope")


def test_record_image_never_stores_secrets() -> None:
    secret = "sk-live-abcdefghijklmnop1234"
    config.set_key("OPENAI_API_KEY", secret)
    store.record_image(
        {
            "prompt": "a red fox",
            "model": "gpt-image-2",
            "provider": "openai",
            "seed": 7,
            "aspect_ratio": "square",
            "path": Path("/tmp/x.png"),
            "duration_s": 1.5,
            "params": {"quality": "high", "api_key": secret, "note": f"Bearer {secret}"},
            "api_key": secret,
            "created": "2026-01-01T00:00:00Z",
        }
    )
    rows = store.get_store().find_images(provider="openai", prompt="a red fox")
    assert len(rows) == 1
    row = rows[0]
    assert (row["model"], row["seed"], row["path"]) == ("gpt-image-2", 7, "/tmp/x.png")
    assert row["params"]["params"]["quality"] == "high" and "api_key" not in row["params"]["params"]
    dump = sqlite3.connect(store.get_store().path).iterdump()
    assert not any(secret in line for line in dump)
    assert store.get_store().find_images(prompt="other") == []
    with pytest.raises(InvalidInputError):
        store.get_store().find_images(colour="red")


def test_batch_rows() -> None:
    db = store.get_store()
    db.batch_put("j", 0, "k0", "done", result={"a": 1})
    db.batch_put("j", 1, "k1", "error", error=["TIMEOUT", "slow"])
    done = db.batch_done("j")
    assert done[0]["result"] == {"a": 1} and done[1]["error"] == ["TIMEOUT", "slow"]
    assert db.batch_jobs() == {"j": {"done": 1, "error": 1}}


def test_clear_by_kind_and_all() -> None:
    db = store.get_store()
    db.cache_put("k", "search", "p", {})
    db.put_page("https://a.test/", "A", "alpha")
    db.batch_put("j", 0, "k", "done", result=1)
    db.clear("cache")
    assert db.stats()["cache_entries"] == 0 and db.stats()["pages"] == 1
    db.clear()
    assert (db.stats()["pages"], db.stats()["batch_items"]) == (0, 0)
    assert db.search_pages("alpha") == []
    with pytest.raises(InvalidInputError):
        db.clear("everything")


def test_corrupt_file_gives_clear_error(hermetic: Path) -> None:
    path = hermetic / "hermes_nb.sqlite3"
    path.write_bytes(b"garbage, not sqlite " * 200)
    with pytest.raises(store.StoreError) as info:
        store.get_store().stats()
    assert str(path) in str(info.value) and "delete it" in str(info.value)
    assert info.value.code == "STORE_ERROR"


def test_newer_schema_is_refused(hermetic: Path) -> None:
    store.get_store().stats()
    conn = sqlite3.connect(hermetic / "hermes_nb.sqlite3")
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    _state.reset_all()
    with pytest.raises(store.StoreError, match="newer hermes_nb"):
        store.get_store().stats()


def test_reset_closes_connections_and_follows_hermes_home(
    hermetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = store.get_store()
    first.put_page("https://a.test/", "A", "alpha")
    _state.reset_all()
    assert first._connections == []
    other = tmp_path / "other_home"
    monkeypatch.setenv("HERMES_HOME", str(other))
    assert store.get_store().path == other / "hermes_nb.sqlite3"
    assert store.search_pages("alpha") == []
