"""Fallback chains against the emulator: ``web.<capability>_fallback`` and ``image_gen.fallback``.

A chain moves on after an error, an answer with no results (SearXNG's 200 with zero hits) and an
out-of-quota answer (402), records every attempt on the result and in its card, never reroutes a
``backend=`` argument, and with ``none`` raises the first error.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hermes_nb import config, errors, images, web
from hermes_nb.images.results import ImageResult
from hermes_nb.notebook.rendering import mimebundle as render_mimebundle
from hermes_nb.testing import Emulator, use_emulator
from hermes_nb.web import selection


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=21) as server:
        yield server


@pytest.fixture(autouse=True)
def emulated(emu: Emulator) -> Iterator[Emulator]:
    emu.reset_log()
    emu.clear_faults()
    config.set("web.max_retries", 0)
    with use_emulator(emu):
        yield emu
    emu.clear_faults()


def _codes(result: object) -> list[tuple[str, str | None]]:
    return [(a.provider, a.code) for a in result.attempts]  # type: ignore[attr-defined]


def test_the_chain_config_shapes() -> None:
    assert selection.fallback_chain("search") is None  # unset: today's selection
    config.set("web.search_fallback", "brave, ddgs  brave")
    assert selection.fallback_chain("search") == ["brave", "ddgs"]
    config.set("web.extract_fallback", "none")
    assert selection.fallback_chain("extract") == []
    config.set("web.crawl_fallback", 3)
    with pytest.raises(errors.InvalidInputError, match="web.crawl_fallback must be a list"):
        selection.fallback_chain("crawl")


def test_a_search_chain_moves_on_after_no_results_and_after_402(emulated: Emulator) -> None:
    config.set("web.search_backend", "searxng")
    config.set("web.search_fallback", ["brave", "tavily"])
    emulated.fail("searxng", "empty")  # 200 with zero results
    emulated.fail("brave", "402")  # out of credits
    result = web.search("hermes fallback chains", limit=3, no_cache=True)
    assert result.served_by == "tavily" and result.hits
    assert [(a.provider, a.code is None) for a in result.attempts] == [
        ("searxng", False), ("brave", False), ("tavily", True)
    ]
    assert result.attempts[0].code == "NO_RESULTS" and result.attempts[1].message.startswith("out of quota")
    html = render_mimebundle(result)["text/html"]
    assert "served by tavily after searxng: answered with no results; brave: out of quota" in html


def test_an_explicit_backend_is_never_rerouted(emulated: Emulator) -> None:
    config.set("web.search_fallback", ["brave", "tavily"])
    emulated.fail("searxng", "empty")
    result = web.search("hermes fallback chains", limit=3, backend="searxng", no_cache=True)
    assert result.served_by == "searxng" and result.hits == [] and _codes(result) == [("searxng", None)]
    emulated.fail("brave", "402")
    with pytest.raises(errors.HermesError) as raised:
        web.search("hermes fallback chains", limit=3, backend="brave", no_cache=True)
    assert raised.value.status == 402
    assert not emulated.requests_for("tavily")


def test_fallback_none_raises_the_first_error_even_in_auto_mode(emulated: Emulator) -> None:
    config.set("web.search_fallback", "none")
    first = selection.resolve("search").name
    emulated.fail(first, "503")
    with pytest.raises(errors.ProviderUnavailableError) as raised:
        web.search("hermes fallback chains", limit=3, no_cache=True)
    assert [a.provider for a in raised.value.details["attempts"]] == [first]
    config.set("web.search_fallback", None)
    emulated.fail(first, "503")
    assert web.search("hermes fallback chains", limit=3, no_cache=True).served_by != first  # auto moves on


def test_every_chain_member_empty_returns_the_empty_answer(emulated: Emulator) -> None:
    config.set("web.search_backend", "searxng")
    config.set("web.search_fallback", ["brave"])
    emulated.fail("searxng", "empty")
    emulated.fail("brave", "empty")
    result = web.search("hermes fallback chains", limit=3, no_cache=True)
    assert result.hits == [] and result.served_by == "brave"
    assert _codes(result) == [("searxng", "NO_RESULTS"), ("brave", "NO_RESULTS")]


def test_a_chain_entry_that_cannot_serve_is_recorded_and_skipped(emulated: Emulator) -> None:
    config.set("web.search_backend", "searxng")
    config.set("web.search_fallback", ["no-such-provider", "brave"])
    emulated.fail("searxng", "500")
    result = web.search("hermes fallback chains", limit=3, no_cache=True)
    assert result.served_by == "brave"
    assert _codes(result) == [
        ("searxng", "PROVIDER_UNAVAILABLE"), ("no-such-provider", "PROVIDER_NOT_FOUND"), ("brave", None)
    ]


def test_a_chain_stops_on_the_callers_own_error(emulated: Emulator) -> None:
    config.set("web.search_backend", "brave")
    config.set("web.search_fallback", ["tavily"])
    emulated.fail("brave", "422")
    with pytest.raises(errors.InvalidInputError):
        web.search("hermes fallback chains", limit=3, no_cache=True)
    assert not emulated.requests_for("tavily")


def test_an_extract_chain_moves_on_after_402(emulated: Emulator) -> None:
    config.set("web.extract_backend", "tavily")
    config.set("web.extract_fallback", ["direct"])
    emulated.fail("tavily", "402")
    url = emulated.page_url("/site/articles/hello-world.html")
    result = web.extract(url, no_cache=True)
    assert result.served_by == "direct" and result.pages[0].content
    assert [a.provider for a in result.attempts] == ["tavily", "direct"]
    assert "served by direct after tavily: out of quota" in render_mimebundle(result)["text/html"]


def test_an_image_chain_says_who_served_and_why_the_first_did_not(emulated: Emulator) -> None:
    config.set("image_gen.provider", "openai")
    config.set("image_gen.fallback", ["xai"])
    emulated.fail("openai", "402")
    result = images.imagine("a lighthouse at dusk", no_cache=True)
    assert isinstance(result, ImageResult) and result.served_by == "xai" and result.path.is_file()
    assert [(a["provider"], a["code"]) for a in result.attempts][-1] == ("xai", None)
    first = result.attempts[0]
    assert first["provider"] == "openai" and first["message"].startswith("out of quota")
    bundle = render_mimebundle(result)
    assert "served by xai after openai: out of quota" in bundle["text/plain"]
    assert "served by xai after openai: out of quota" in bundle["text/html"]


def test_an_image_backend_argument_is_never_rerouted(emulated: Emulator) -> None:
    config.set("image_gen.fallback", ["xai"])
    emulated.fail("openai", "402")
    with pytest.raises(errors.HermesError) as raised:
        images.imagine("a lighthouse at dusk", backend="openai", no_cache=True)
    assert raised.value.status == 402 or "402" in raised.value.message
    assert not emulated.requests_for("xai")


def test_the_async_search_walks_the_same_chain(emulated: Emulator) -> None:
    import asyncio

    config.set("web.search_backend", "searxng")
    config.set("web.search_fallback", ["tavily"])
    emulated.fail("searxng", "empty")
    result = asyncio.run(web.asearch("hermes fallback chains", limit=3, no_cache=True))
    assert result.served_by == "tavily" and _codes(result) == [("searxng", "NO_RESULTS"), ("tavily", None)]
