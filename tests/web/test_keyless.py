"""The keyless tier: last resort in auto mode, one documented order, rate-limit failover, no downgrades."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.testing import Emulator, use_emulator
from hermes_nb.web import selection


class Fake(WebSearchProvider):
    """An in-memory provider: keyed (``available``), keyless-capable, or both."""

    def __init__(
        self,
        name: str,
        *,
        tier: str | None = "commercial",
        available: bool = False,
        keyless: bool = True,
        fail: BaseException | None = None,
    ) -> None:
        self._name = name
        if tier is not None:
            self.tier = tier
        self._available, self._keyless, self.fail = available, keyless, fail
        self.calls: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return self._available

    def is_keyless_available(self) -> bool:
        return self._keyless

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> Any:
        self.calls.append(query)
        if self.fail is not None:
            raise self.fail
        return {"success": True, "data": {"web": [{"title": self._name, "url": f"https://{self._name}.test/"}]}}


@pytest.fixture
def only_registered(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Only the providers a test registers exist (bundled plugins are not imported)."""
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    yield


def add(*providers: WebSearchProvider) -> None:
    for provider in providers:
        web_providers.register(provider)


def search(provider: WebSearchProvider) -> Any:
    return provider.search("q")


def rate_limited(name: str) -> errors.RateLimitedError:
    return errors.RateLimitedError(f"{name}: 429", status=429, retry_after=60.0)


# --- order ---------------------------------------------------------------------------------


def test_keyless_ring_order_is_documented_and_comes_after_keyed_tiers(only_registered: None) -> None:
    add(
        Fake("zzz-free"),
        Fake("tavily"),
        Fake("firecrawl"),
        Fake("exa"),
        Fake("parallel"),
        Fake("keenable"),
        Fake("jina"),
        Fake("ddgs", tier="keyless", available=True),
        Fake("direct", tier="keyless", available=True),
        Fake("local", tier="offline", available=True, keyless=False),
        Fake("searx", tier="self_hosted", available=True, keyless=False),
        Fake("brave", available=True, keyless=False),
    )
    assert [p.name for p in selection.candidates("search")] == [
        "brave", "searx",
        "direct", "ddgs", "jina", "keenable", "exa", "parallel", "tavily", "firecrawl", "zzz-free",
        "local",
    ]
    assert selection.KEYLESS_ORDER == (
        "direct", "ddgs", "jina", "keenable", "exa", "parallel", "tavily", "firecrawl"
    )


def test_priority_still_reorders_inside_the_keyless_tier(only_registered: None) -> None:
    add(Fake("jina"), Fake("keenable"), Fake("exa"))
    config.set("web.provider_priority", ["exa"])
    assert [p.name for p in selection.candidates("search")] == ["exa", "jina", "keenable"]


def test_a_keyed_provider_keeps_its_tier(only_registered: None) -> None:
    keyed = Fake("exa", available=True)  # has its key and could also run keyless
    free = Fake("tavily")  # no key: keyless mode only
    add(keyed, free, Fake("ddgs", tier="keyless", available=True))
    assert selection.tier_of(keyed) == "commercial" and selection.tier_of(free) == "keyless"
    assert selection.keyless_only(free) and not selection.keyless_only(keyed)
    assert [p.name for p in selection.candidates("search")] == ["exa", "ddgs", "tavily"]


# --- failover and records -----------------------------------------------------------------------


def test_ring_fails_over_on_rate_limits_and_records_who_served(only_registered: None) -> None:
    jina = Fake("jina", fail=rate_limited("jina"))
    keenable = Fake("keenable", fail=errors.ProviderUnavailableError("keenable: 503", status=503))
    exa = Fake("exa")
    add(jina, keenable, exa, Fake("tavily"))
    value, used, attempts = selection.run("search", search)
    assert used == "exa" and value["data"]["web"][0]["title"] == "exa"
    assert [(a.provider, a.code) for a in attempts] == [
        ("jina", "PROVIDER_RATE_LIMITED"),
        ("keenable", "PROVIDER_UNAVAILABLE"),
        ("exa", None),
    ]
    assert attempts[-1].message == "ok (keyless)"


def test_keyed_answer_is_marked_plain_ok(only_registered: None) -> None:
    add(Fake("brave", available=True, keyless=False), Fake("jina"))
    _, used, attempts = selection.run("search", search)
    assert used == "brave" and attempts[-1].message == "ok"


def test_keyed_failure_reaches_the_ring_only_through_other_providers(only_registered: None) -> None:
    keyed = Fake("exa", available=True, fail=errors.ProviderAuthError("exa: bad key", status=401))
    other = Fake("keenable")
    add(keyed, other)
    _, used, attempts = selection.run("search", search)
    assert used == "keenable"
    assert [a.provider for a in attempts] == ["exa", "keenable"] and keyed.calls == ["q"]


def test_bad_input_stops_the_ring(only_registered: None) -> None:
    first = Fake("jina", fail=errors.InvalidInputError("empty query"))
    second = Fake("keenable")
    add(first, second)
    with pytest.raises(errors.InvalidInputError):
        selection.run("search", search)
    assert second.calls == []


def test_all_keyless_rate_limited_raises_the_last_with_attempts(only_registered: None) -> None:
    add(Fake("jina", fail=rate_limited("jina")), Fake("keenable", fail=rate_limited("keenable")))
    with pytest.raises(errors.RateLimitedError) as info:
        selection.run("search", search)
    assert [a.provider for a in info.value.details["attempts"]] == ["jina", "keenable"]


# --- explicit ---------------------------------------------------------------------------------


def test_explicit_choice_never_moves_into_the_ring(only_registered: None) -> None:
    wanted = Fake("brave", available=True, keyless=False, fail=rate_limited("brave"))
    ring = Fake("keenable")
    add(wanted, ring)
    with pytest.raises(errors.RateLimitedError):
        selection.run("search", search, backend="brave")
    assert ring.calls == []


def test_explicit_keyless_provider_runs_keyless(only_registered: None) -> None:
    add(Fake("keenable"), Fake("brave", available=True, keyless=False))
    _, used, attempts = selection.run("search", search, backend="keenable")
    assert used == "keenable" and attempts[-1].message == "ok (keyless)"


def test_explicit_provider_without_key_or_keyless_mode_names_the_fix(only_registered: None) -> None:
    add(Fake("serper", keyless=False), Fake("keenable"))
    with pytest.raises(errors.ProviderNotConfiguredError, match="keenable"):
        selection.run("search", search, backend="serper")


# --- real keyless providers on the emulator ---------------------------------------------------------


@pytest.fixture
def real_keyless(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """The bundled jina and keenable providers alone, keyless, pointed at an emulator."""
    load_plugins()
    keep = [web_providers.get(name) for name in ("jina", "keenable")]
    monkeypatch.setattr(web_providers, "loader", None)
    web_providers.clear()
    for provider in keep:
        assert provider is not None
        web_providers.register(provider)
    config.set("web.max_retries", 0)
    config.set("cache.mode", "off")
    with Emulator(seed=9) as emu, use_emulator(emu, providers=["jina", "keenable"]):
        yield emu


def test_no_keys_search_reaches_keenable_public(real_keyless: Emulator) -> None:
    result = hn.search("keyless search", limit=3)
    assert result.provider == "keenable" and len(result) == 3
    assert [(a.provider, a.message) for a in result.attempts] == [("keenable", "ok (keyless)")]
    (req,) = real_keyless.requests_for("keenable")
    assert req.path == "/keenable/v1/search/public" and "x-api-key" not in req.headers


def test_no_keys_extract_fails_over_from_rate_limited_jina_to_keenable(real_keyless: Emulator) -> None:
    real_keyless.fail("jina", "429", retry_after=20)
    url = real_keyless.page_url("/site/")
    result = hn.extract(url)
    assert result.provider == "keenable"
    assert [(a.provider, a.code) for a in result.attempts] == [
        ("jina", "PROVIDER_RATE_LIMITED"),
        ("keenable", None),
    ]
    assert len(real_keyless.requests_for("jina")) == 1  # keyless: no retry, straight to the next provider


def test_with_a_jina_key_jina_is_keyed_and_never_sent_keyless(real_keyless: Emulator) -> None:
    config.set_key("JINA_API_KEY", "jina_" + "k" * 24)
    result = hn.search("keyed now", limit=2)
    assert result.provider == "jina" and result.attempts[-1].message == "ok"
    (req,) = real_keyless.requests_for("jina-search")
    assert req.headers["authorization"].startswith("Bearer jina_")


def test_a_keyless_mode_serves_only_its_declared_capabilities(only_registered: None) -> None:
    limited = Fake("limitedvendor")
    limited.keyless_capabilities = ("search",)  # type: ignore[attr-defined]  # as tavily and firecrawl declare
    add(limited)
    assert [p.name for p in selection.candidates("search")] == ["limitedvendor"]
    assert selection.candidates("extract") == []  # its keyless mode cannot extract: not a candidate
    keyed = Fake("keyedvendor", available=True)
    keyed.keyless_capabilities = ("search",)  # type: ignore[attr-defined]
    add(keyed)
    assert [p.name for p in selection.candidates("extract")] == ["keyedvendor"]  # with its key: everything


# --- no key, no network: one stable message -------------------------------------------------------


class Unreachable(Fake):
    """Keyless without network: a different host in every error, as real DNS failures read."""

    crawls = False

    def __init__(self, name: str, *, crawls: bool = False, tier: str | None = "commercial") -> None:
        super().__init__(name, tier=tier, fail=None)
        self.crawls, self.n = crawls, 0

    def supports_crawl(self) -> bool:
        return self.crawls

    def search(self, query: str, limit: int = 5) -> Any:
        self.n += 1
        raise errors.NetworkError(f"{self.name}: could not connect to edge-{self.n}.{self.name}.test")

    def crawl(self, url: str, **kwargs: Any) -> Any:
        self.n += 1
        raise errors.ContentFetchError(f"could not resolve host 'site-{self.n}.test'")


class SelfHosted(Fake):
    def __init__(self, name: str, *, crawls: bool = False) -> None:
        super().__init__(name, tier="self_hosted", available=False, keyless=False)
        self.crawls = crawls

    def supports_crawl(self) -> bool:
        return self.crawls


class Keyed(Fake):
    def __init__(self, name: str, env: str, *, crawls: bool = False) -> None:
        super().__init__(name, available=False, keyless=False)
        self.env, self.crawls = env, crawls

    def supports_crawl(self) -> bool:
        return self.crawls

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.name, "env_vars": [{"key": self.env}]}


def _offline_world() -> None:
    add(
        Unreachable("keenable"),
        Unreachable("firecrawl"),
        Unreachable("direct", crawls=True, tier="keyless"),
        Keyed("brave", "BRAVE_SEARCH_API_KEY"),
        Keyed("tavily", "TAVILY_API_KEY", crawls=True),
        SelfHosted("searxng"),
        SelfHosted("firecrawl-selfhosted", crawls=True),
    )


def crawl(provider: WebSearchProvider) -> Any:
    return provider.crawl("https://site.test/")  # type: ignore[attr-defined]  # the fakes crawl


def test_no_key_no_network_is_one_stable_error_naming_three_ways(only_registered: None) -> None:
    _offline_world()
    messages = []
    for _ in range(2):
        with pytest.raises(errors.NetworkError) as info:
            selection.run("search", search)
        messages.append(info.value.message)
    assert messages[0] == messages[1]  # the same words every run: a saved notebook does not change
    text = messages[0]
    assert "edge-" not in text and "firecrawl:" not in text  # not the last provider's DNS error
    assert "BRAVE_SEARCH_API_KEY" in text and "hn.config.set_key" in text  # a key
    assert "hermes_nb.testing.use_emulator" in text  # the emulator
    assert "web.searxng.base_url" in text  # a self-hosted server that can search
    assert "Full detail" not in text
    attempts = info.value.details["attempts"]  # what each provider said stays on the error
    assert [a.provider for a in attempts] == ["direct", "keenable", "firecrawl"]
    assert {a.code for a in attempts} == {"NETWORK_ERROR"} and "edge-" in attempts[0].message


def test_crawl_outage_suggests_only_providers_that_crawl(
    only_registered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_nb.web import outage

    monkeypatch.setitem(outage.SELF_HOSTED, "firecrawl-selfhosted", ("Firecrawl", "web.firecrawl.base_url"))
    _offline_world()
    with pytest.raises(errors.NetworkError) as info:
        selection.run("crawl", crawl)
    text = info.value.message
    assert text.startswith("web crawl failed:")
    assert "SearXNG" not in text and "searxng" not in text  # SearXNG cannot crawl
    assert "BRAVE_SEARCH_API_KEY" not in text and "TAVILY_API_KEY" in text  # only keys of crawlers
    assert "web.firecrawl.base_url" in text
    assert [a.code for a in info.value.details["attempts"]] == ["CONTENT_FETCH_FAILED"]


def test_the_outage_message_is_only_for_keyless_rings(only_registered: None) -> None:
    keyed = Fake("brave", available=True, keyless=False, fail=errors.NetworkError("brave: no route"))
    add(keyed, Unreachable("keenable"))
    with pytest.raises(errors.NetworkError) as info:
        selection.run("search", search)
    assert info.value.message.startswith("keenable: could not connect")  # a key was set: its own story
    with pytest.raises(errors.NetworkError, match="brave: no route"):
        selection.run("search", search, backend="brave")  # explicit: that provider's own error


def test_a_slow_or_rate_limited_keyless_ring_keeps_its_own_error(only_registered: None) -> None:
    add(Fake("keenable", fail=errors.TimeoutError_("keenable timed out")))
    with pytest.raises(errors.TimeoutError_, match="keenable timed out"):
        selection.run("search", search)  # slow is not "no network": the precise error stays
