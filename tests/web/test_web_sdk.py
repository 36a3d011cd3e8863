"""The web facade: results, envelope parsing, limits, cache modes, async twins."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_nb import config, errors, web
from hermes_nb.notices import HermesWarning
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web.envelopes import parse_extract_envelope, parse_search_envelope
from hermes_nb.web.results import (
    NO_RESULT_FOR_URL,
    CrawlResult,
    ExtractResult,
    SearchResult,
)


@pytest.fixture(autouse=True)
def no_bundled_plugins(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    yield


def _hits(query: str, n: int) -> list[dict[str, Any]]:
    return [
        {"title": f"{query} {i}", "url": f"https://site{i}.test/{query}", "description": f"d{i}"}
        for i in range(n)
    ]


class Engine(WebSearchProvider):
    """Search + extract + crawl in memory; counts calls."""

    tier = "keyless"

    def __init__(self, name: str = "engine", *, hits: int = 10, max_limit: int | None = None) -> None:
        self._name = name
        self.n = hits
        if max_limit is not None:
            self.max_limit = max_limit
        self.calls: list[tuple[str, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> Any:
        self.calls.append(("search", (query, limit)))
        return {"success": True, "data": {"web": _hits(query.replace(" ", "-"), self.n)}}

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        self.calls.append(("extract", (list(urls), kwargs)))
        # Reversed on purpose: the SDK re-interleaves by input URL.
        return [
            {
                "url": u,
                "title": f"T {u}",
                "content": f"text of {u}",
                "raw_content": None,
                "metadata": {"n": 1},
            }
            for u in reversed(urls)
            if "missing" not in u
        ]

    def crawl(self, url: str, **kwargs: Any) -> Any:
        self.calls.append(("crawl", (url, kwargs)))
        return {"results": [{"url": f"{url}p{i}", "title": f"P{i}", "content": "body"} for i in range(5)]}


class Forbidden(WebSearchProvider):
    """Fails the test if any capability is called (replay mode must never reach a provider)."""

    tier = "commercial"

    @property
    def name(self) -> str:
        return "forbidden"

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> Any:
        pytest.fail("a provider was called in replay mode")

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        pytest.fail("a provider was called in replay mode")

    def crawl(self, url: str, **kwargs: Any) -> Any:
        pytest.fail("a provider was called in replay mode")


@pytest.fixture
def engine() -> Engine:
    provider = Engine()
    web_providers.register(provider)
    return provider


# --- envelopes -----------------------------------------------------------------------------


def test_search_envelope_drops_urlless_items_and_renumbers() -> None:
    env = {
        "success": True,
        "data": {
            "web": [
                {"title": "no url"},
                {"title": "", "url": " https://a.test/ ", "description": "A", "position": 7},
                {"title": "B", "url": "https://b.test/", "position": 3},
                {"title": "C", "url": "https://c.test/"},
            ],
            "effective_limit": 20,
        },
    }
    hits, extras = parse_search_envelope(env, "p", limit=2)
    assert [(h.title, h.url, h.position) for h in hits] == [
        ("https://a.test/", "https://a.test/", 1),
        ("B", "https://b.test/", 2),
    ]
    assert extras == {"effective_limit": 20}


def test_search_failure_envelope_raises_provider_error() -> None:
    with pytest.raises(errors.ProviderError) as info:
        parse_search_envelope({"success": False, "error": "quota exceeded"}, "p", 5)
    assert "quota exceeded" in str(info.value) and info.value.retryable


def test_search_envelope_of_wrong_shape_is_parse_error() -> None:
    with pytest.raises(errors.ParseError):
        parse_search_envelope("<html>", "p", 5)
    with pytest.raises(errors.ParseError):
        parse_search_envelope({"success": True, "data": {"web": "x"}}, "p", 5)


@pytest.mark.parametrize("shape", ["list", "data", "results"])
def test_extract_envelope_shapes_are_reinterleaved(shape: str) -> None:
    rows = [
        {"url": "https://b.test/", "title": "B", "content": "b"},
        {"url": "https://a.test/", "title": "A", "content": "a", "error": None},
    ]
    env: Any = {"list": rows, "data": {"success": True, "data": rows}, "results": {"results": rows}}[shape]
    pages = parse_extract_envelope(env, ["https://a.test/", "https://b.test/", "https://c.test/"])
    assert [(p.url, p.title) for p in pages] == [
        ("https://a.test/", "A"),
        ("https://b.test/", "B"),
        ("https://c.test/", ""),
    ]
    assert pages[2].error == NO_RESULT_FOR_URL and pages[2].error_code == "CONTENT_FETCH_FAILED"
    assert pages[0].error is None


def test_extract_envelope_per_url_error_and_failure() -> None:
    pages = parse_extract_envelope([{"url": "https://a.test/", "error": "HTTP 404"}], ["https://a.test/"])
    assert pages[0].error == "HTTP 404" and not pages[0].ok
    with pytest.raises(errors.ProviderError):
        parse_extract_envelope({"success": False, "error": "nope"}, ["https://a.test/"])


# --- search --------------------------------------------------------------------------------


def test_search_returns_typed_result(engine: Engine) -> None:
    result = web.search("hello world", 3)
    assert isinstance(result, SearchResult)
    assert len(result) == 3 and [h.position for h in result] == [1, 2, 3]
    assert result[0].domain == "site0.test"
    assert result.provider == "engine" and [a.provider for a in result.attempts] == ["engine"]
    assert result.attempts[0].code is None and result.duration_s >= 0
    assert result.envelope["success"] is True and len(result.envelope["data"]["web"]) == 3
    assert repr(result) == "SearchResult(query='hello world', hits=3, provider='engine')"
    assert engine.calls == [("search", ("hello world", 3))]


@pytest.mark.parametrize(("given", "sent"), [(500, 100), ("7", 7), (3.9, 3)])
@pytest.mark.filterwarnings("ignore::hermes_nb.notices.HermesWarning")
def test_limit_is_capped_with_a_note(engine: Engine, given: Any, sent: int) -> None:
    result = web.search("q", given)
    assert engine.calls[-1] == ("search", ("q", sent)) and result.limit == sent
    assert any("at most 100" in w for w in result.warnings) == (given == 500)


@pytest.mark.parametrize("given", [0, -5])
def test_limit_below_one_is_an_error(engine: Engine, given: Any) -> None:
    with pytest.raises(errors.InvalidInputError, match="limit must be at least 1"):
        web.search("q", given)
    assert engine.calls == []


def test_a_provider_cap_is_noted(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(engine), "max_limit", 2, raising=False)
    with pytest.warns(HermesWarning):
        result = web.search("q", 5)
    assert "engine returns at most 2 results; asked for 5" in result.warnings
    assert "note: engine returns at most 2 results; asked for 5" in repr(result._repr_mimebundle_())


def test_a_cap_is_noted_even_when_the_result_is_never_displayed(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warnings

    monkeypatch.setattr(type(engine), "max_limit", 2, raising=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # Python's own rule: a repeated warning shows once per line …
        for _ in range(2):  # … but a note shows on every call, the cached answer's too
            web.search("q", 5)
    notes = [w for w in seen if issubclass(w.category, HermesWarning)]
    assert [str(w.message) for w in notes] == ["engine returns at most 2 results; asked for 5"] * 2
    assert all(w.filename == __file__ for w in notes)  # attributed to the caller's line, not to hermes_nb


@pytest.mark.parametrize(
    ("given", "used", "said"),
    [(500, 2000, "below the floor of 2,000"), (10**9, 500_000, "above the ceiling of 500,000")],
)
def test_max_chars_outside_the_window_is_noted(engine: Engine, given: int, used: int, said: str) -> None:
    wanted = f"max_chars={given:,} is {said} characters kept inline; using {used:,}"
    with pytest.warns(HermesWarning, match=wanted):
        result = web.extract("https://site.test/a", max_chars=given)
    assert result.pages[0].error is None


def test_max_chars_inside_the_window_is_silent(engine: Engine) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        web.extract("https://site.test/a", max_chars=2000)
    with pytest.raises(errors.InvalidInputError, match="max_chars must be"):
        web.extract("https://site.test/a", max_chars="lots")  # type: ignore[arg-type]  # wrong on purpose


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
def test_empty_query_is_invalid(engine: Engine, bad: Any) -> None:
    with pytest.raises(errors.InvalidInputError):
        web.search(bad)
    assert engine.calls == []


def test_bad_limit_type_is_invalid(engine: Engine) -> None:
    with pytest.raises(errors.InvalidInputError):
        web.search("q", "many")  # type: ignore[arg-type]  # wrong type on purpose


def test_effective_limit_from_provider_cap_and_envelope() -> None:
    capped = Engine("capped", max_limit=20)
    web_providers.register(capped)
    with pytest.warns(HermesWarning, match="at most 20"):
        result = web.search("q", 50, backend="capped")
    assert (result.limit, result.effective_limit) == (50, 20)

    class EnvelopeCap(Engine):
        def search(self, query: str, limit: int = 5) -> Any:
            return {"success": True, "data": {"web": _hits("x", 3), "effective_limit": 10}}

    web_providers.register(EnvelopeCap("envcap"))
    with pytest.warns(HermesWarning, match="at most 10"):
        assert web.search("q", 30, backend="envcap").effective_limit == 10


def test_to_pandas_columns(engine: Engine) -> None:
    frame = web.search("q", 2).to_pandas()
    assert list(frame.columns) == ["position", "title", "url", "domain", "description", "provider", "query"]
    assert frame["position"].tolist() == [1, 2]


# --- extract and crawl ---------------------------------------------------------------------


def test_extract_keeps_input_order_and_per_url_errors(engine: Engine) -> None:
    urls = ["https://b.test/x", "https://missing.test/", "https://a.test/y"]
    result = web.extract(urls)
    assert isinstance(result, ExtractResult)
    assert [p.url for p in result] == urls
    assert result[0].content == "text of https://b.test/x" and result[0].metadata == {"n": 1}
    assert result[1].error == NO_RESULT_FOR_URL and len(result.errors) == 1
    assert engine.calls[0][1][1] == {"format": "markdown"}
    assert result.envelope[0]["url"] == "https://b.test/x" and set(result.envelope[0]) == {
        "url", "title", "content", "raw_content", "metadata", "error",
    }  # fmt: skip


def test_extract_accepts_a_single_url_string(engine: Engine) -> None:
    assert [p.url for p in web.extract("https://a.test/")] == ["https://a.test/"]


@pytest.mark.parametrize(
    "bad",
    [
        [],
        "",
        ["ftp://x.test/f"],
        ["not a url"],
        [None],
        b"https://a.test",
        ["https://user:pw@a.test/"],
        ["https://a.test/page?api_key=live-1234567890"],  # no provider ever receives a key in a URL
    ],
)
def test_extract_rejects_bad_input(engine: Engine, bad: Any) -> None:
    with pytest.raises(errors.InvalidInputError):
        web.extract(bad)
    assert engine.calls == []


def test_crawl_passes_depth_and_limit(engine: Engine) -> None:
    result = web.crawl("https://site.test/", depth=1, limit=3)
    assert isinstance(result, CrawlResult)
    assert engine.calls == [("crawl", ("https://site.test/", {"depth": 1, "limit": 3}))]
    assert len(result) == 3 and result.start_url == "https://site.test/" and result.provider == "engine"
    assert result.envelope["results"][0]["url"] == "https://site.test/p0"


def test_explicit_search_only_provider_cannot_extract() -> None:
    class SearchOnly(Engine):
        def supports_extract(self) -> bool:
            return False

    web_providers.register(SearchOnly("brave"))
    with pytest.raises(errors.InvalidInputError, match="search"):
        web.extract(["https://a.test/"], backend="brave")


# --- cache modes ---------------------------------------------------------------------------


def test_read_write_serves_cached_search_with_original_provider(engine: Engine) -> None:
    first = web.search("Cached  Query", 4)
    second = web.search("cached query", 4)
    assert not first.cached and second.cached
    assert second.provider == "engine" and second.urls == first.urls and second.attempts == []
    assert len(engine.calls) == 1
    web.search("cached query", 5)  # another limit is another key
    assert len(engine.calls) == 2


def test_cache_key_includes_backend_choice(engine: Engine) -> None:
    web_providers.register(Engine("other"))
    web.search("q")
    assert web.search("q", backend="other").provider == "other"
    assert web.search("q").cached


def test_read_write_search_expires_after_ttl(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    config.set("cache.ttl", 60)
    web.search("q")
    real = time.time
    monkeypatch.setattr("hermes_nb.store.database.time.time", lambda: real() + 120)
    assert not web.search("q").cached
    assert len(engine.calls) == 2


def test_replay_serves_recorded_results_and_never_calls_a_provider() -> None:
    web_providers.register(Engine("engine"))
    web.search("recorded", 3)
    web.extract(["https://a.test/one"])
    web.crawl("https://site.test/", depth=1, limit=2)
    web_providers.clear()
    web_providers.register(Forbidden())
    config.set("cache.mode", "replay")

    assert web.search("recorded", 3).cached
    page = web.extract(["https://a.test/one"])
    assert page.cached and page.provider == "engine" and page[0].content == "text of https://a.test/one"
    assert web.crawl("https://site.test/", depth=1, limit=2).cached

    with pytest.raises(errors.CacheMissError, match="read_write"):
        web.search("never recorded")
    with pytest.raises(errors.CacheMissError):
        web.extract(["https://a.test/one", "https://a.test/two"])
    with pytest.raises(errors.CacheMissError):
        web.crawl("https://site.test/", depth=2)
    with pytest.raises(errors.CacheMissError):
        asyncio.run(web.asearch("never recorded"))


def test_replay_with_empty_store_and_no_providers_is_cache_miss() -> None:
    config.set("cache.mode", "replay")
    with pytest.raises(errors.CacheMissError):
        web.search("anything")


def test_refresh_always_calls_and_overwrites(engine: Engine) -> None:
    web.search("q")
    config.set("cache.mode", "refresh")
    engine.n = 1
    assert not web.search("q").cached and len(engine.calls) == 2
    config.set("cache.mode", "read_write")
    again = web.search("q")
    assert again.cached and len(again) == 1


def test_off_never_reads_or_writes(engine: Engine) -> None:
    config.set("cache.mode", "off")
    web.search("q")
    web.search("q")
    assert len(engine.calls) == 2
    config.set("cache.mode", "replay")
    with pytest.raises(errors.CacheMissError):
        web.search("q")


def test_extract_cache_per_url_only_fetches_missing(engine: Engine) -> None:
    web.extract(["https://a.test/1"])
    result = web.extract(["https://a.test/1", "https://a.test/2"])
    assert engine.calls[-1][1][0] == ["https://a.test/2"]
    assert not result.cached and [p.url for p in result] == ["https://a.test/1", "https://a.test/2"]
    assert web.extract(["https://a.test/2#frag"]).cached


def test_failed_pages_are_not_cached(engine: Engine) -> None:
    web.extract(["https://missing.test/"])
    web.extract(["https://missing.test/"])
    assert len(engine.calls) == 2


def test_invalid_cache_mode_names_the_values(engine: Engine, hermetic: Path) -> None:
    with pytest.raises(errors.InvalidInputError, match="read_write, replay, refresh, off"):
        config.set("cache.mode", "sometimes")  # refused where it is set
    (hermetic / "config.yaml").write_text("cache:\n  mode: sometimes\n")  # a file can still hold it
    with pytest.raises(errors.InvalidInputError, match="read_write, replay, refresh, off"):
        web.search("q")


def test_store_failure_does_not_break_read_write(engine: Engine, hermetic: Path) -> None:
    (hermetic / "hermes_nb.sqlite3").write_bytes(b"this is not a database" * 100)
    result = web.search("q")
    assert len(result) == 5 and not result.cached


# --- async ---------------------------------------------------------------------------------


class AsyncEngine(Engine):
    async def search(self, query: str, limit: int = 5) -> Any:
        await asyncio.sleep(0)
        return super().search(query, limit)

    async def extract(self, urls: list[str], **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return super().extract(urls, **kwargs)


def test_async_twins() -> None:
    web_providers.register(AsyncEngine("aengine"))

    async def main() -> tuple[SearchResult, ExtractResult, CrawlResult]:
        return (
            await web.asearch("q", 2),
            await web.aextract(["https://a.test/"]),
            await web.acrawl("https://site.test/", limit=2),
        )

    found, pages, crawled = asyncio.run(main())
    assert len(found) == 2 and found.provider == "aengine"
    assert pages[0].content == "text of https://a.test/" and len(crawled) == 2


def test_sync_search_works_inside_a_running_loop() -> None:
    web_providers.register(AsyncEngine("aengine"))

    async def notebook_cell() -> SearchResult:
        return web.search("inside loop", 2)

    assert len(asyncio.run(notebook_cell())) == 2


def test_a_page_without_a_title_takes_its_first_heading() -> None:
    from hermes_nb.web.results import first_heading

    env = {
        "results": [
            {"url": "https://a.test/", "title": "", "content": "intro\n\n## Hello, World ##\n\ntext"},
            {"url": "https://b.test/", "title": "Given", "content": "# Not this"},
            {"url": "https://c.test/", "content": "```\n# a comment in code\n```\n\n# After the code"},
            {"url": "https://d.test/", "error": "boom"},
        ]
    }
    urls = ["https://a.test/", "https://b.test/", "https://c.test/", "https://d.test/"]
    pages = parse_extract_envelope(env, urls, "p")
    assert [p.title for p in pages] == ["Hello, World", "Given", "After the code", ""]
    assert first_heading("#hashtag, not a heading\n") == "" and first_heading("") == ""
    assert first_heading("# [Linked](https://a.test/x) title") == "Linked title"  # Firecrawl's headings


@pytest.mark.parametrize("backend", ["tavily", "auto"])
def test_every_extract_provider_fills_the_title(backend: str) -> None:
    from hermes_nb.plugins.loader import load_plugins
    from hermes_nb.testing import Emulator, use_emulator

    load_plugins(force=True)
    with Emulator(seed=0) as emu, use_emulator(emu, providers=["tavily"]):
        result = web.extract(emu.page_url("/site/articles/hello-world.html"), backend=backend, no_cache=True)
    assert result.provider == "tavily" and result.pages[0].title == "Hello, World: a first notebook"


def test_figures_are_asked_for_per_call_and_cached_apart(engine: Engine) -> None:
    url = "https://a.test/figures"
    assert not web.extract(url).cached and "images" not in engine.calls[-1][1][1]  # the call as before
    with_figures = web.extract(url, images=True)
    assert not with_figures.cached and engine.calls[-1][1][1]["images"] is True  # not the page without
    assert web.extract(url, images=True).cached and web.extract(url).cached
    assert len(engine.calls) == 2
    config.set("web.extract.images", True)  # the setting is the default for images=None ...
    assert web.extract(url).cached and len(engine.calls) == 2
    assert web.extract(url, images=False).cached  # ... and images=False wins over it
    web.extract(url, images=False, refresh=True)
    assert engine.calls[-1][1][1]["images"] is False  # direct reads the setting when not told otherwise
    with pytest.raises(errors.InvalidInputError, match="images must be True or False"):
        web.extract(url, images="yes")


def test_a_crawl_asks_for_figures_per_call_and_is_cached_apart(engine: Engine) -> None:
    web.crawl("https://site.test/", depth=1, limit=2)
    assert "images" not in engine.calls[-1][1][1]
    assert not web.crawl("https://site.test/", depth=1, limit=2, images=True).cached
    assert engine.calls[-1][1][1]["images"] is True
    assert web.crawl("https://site.test/", depth=1, limit=2, images=True).cached
    web.crawl("https://other.test/", depth=1, limit=2)
    config.set("web.extract.images", True)
    assert web.crawl("https://site.test/", depth=1, limit=2).cached and len(engine.calls) == 3
    config.set("cache.mode", "replay")
    with pytest.raises(errors.CacheMissError, match="with its figures"):  # recorded without them
        web.crawl("https://other.test/", depth=1, limit=2)
    assert web.crawl("https://other.test/", depth=1, limit=2, images=False).cached


def test_a_batch_asks_for_figures_too(engine: Engine) -> None:
    from hermes_nb.batch import extract_many

    batch = extract_many(["https://a.test/b1", "https://a.test/b2"], images=True, progress=False)
    assert [r.pages[0].error for r in batch] == [None, None]  # type: ignore[union-attr]
    assert [call[1][1].get("images") for call in engine.calls] == [True, True]


def test_a_replayed_page_answers_only_for_the_figures_it_was_read_with() -> None:
    web_providers.register(Engine("engine"))
    web.extract("https://a.test/one", images=True)
    web.extract("https://a.test/two")
    web_providers.clear()
    web_providers.register(Forbidden())
    config.set("cache.mode", "replay")
    assert web.extract("https://a.test/one", images=True).cached
    assert web.extract("https://a.test/two").cached
    with pytest.raises(errors.CacheMissError, match="with its figures"):
        web.extract("https://a.test/two", images=True)
    with pytest.raises(errors.CacheMissError):
        web.extract("https://a.test/one")


def test_an_extract_key_says_whether_the_page_was_read_with_its_figures() -> None:
    from hermes_nb.store.requests import crawl_key, describe, extract_key, key_of, request_of

    plain = extract_key("direct", "https://A.test/x")
    figures = extract_key("direct", "https://A.test/x", images=True)
    assert request_of(plain) == {"kind": "extract", "backend": "direct", "url": "https://a.test/x"}
    assert request_of(figures) == {**request_of(plain), "images": True}
    assert key_of(request_of(plain)) == plain and key_of(request_of(figures)) == figures
    assert "figures" in describe(request_of(figures)) and "figures" not in describe(request_of(plain))
    crawl = crawl_key("direct", 1, 5, "https://a.test/", images=True)
    assert request_of(crawl) == {
        "kind": "crawl", "backend": "direct", "depth": 1, "limit": 5, "url": "https://a.test/", "images": True
    }
    assert key_of(request_of(crawl)) == crawl and "figures" in describe(request_of(crawl))
