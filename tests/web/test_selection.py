"""The selection matrix: explicit vs auto, per capability, tiers, priority, fallback, deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_nb import config, errors
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web import listing, selection


@pytest.fixture(autouse=True)
def no_bundled_plugins(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Only the providers a test registers exist (bundled plugins are not imported)."""
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    yield


class Fake(WebSearchProvider):
    """A configurable in-memory provider that records its calls."""

    def __init__(
        self,
        name: str,
        *,
        tier: str | None = None,
        available: bool = True,
        keyless: bool = False,
        caps: tuple[str, ...] = ("search",),
        fail: BaseException | None = None,
        env: tuple[str, ...] = (),
        envelope: Any = None,
    ) -> None:
        self._name = name
        if tier is not None:
            self.tier = tier
        self._available = available
        self._keyless = keyless
        self._caps = caps
        self.fail = fail
        self._env = env
        self.envelope = envelope
        self.calls: list[tuple[str, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return self._available

    def is_keyless_available(self) -> bool:
        return self._keyless

    def supports_search(self) -> bool:
        return "search" in self._caps

    def supports_extract(self) -> bool:
        return "extract" in self._caps

    def supports_crawl(self) -> bool:
        return "crawl" in self._caps

    def search(self, query: str, limit: int = 5) -> Any:
        self.calls.append(("search", query))
        if self.fail is not None:
            raise self.fail
        if self.envelope is not None:
            return self.envelope
        return {
            "success": True,
            "data": {"web": [{"title": self._name, "url": f"https://{self._name}.test/"}]},
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self._name, "env_vars": [{"key": k, "prompt": k, "url": ""} for k in self._env]}


def add(*providers: Fake) -> None:
    for provider in providers:
        web_providers.register(provider)


def name_of(provider: WebSearchProvider) -> str:
    return provider.name


# --- explicit ------------------------------------------------------------------------------


def test_backend_argument_wins_over_config_and_tiers() -> None:
    add(Fake("tav", tier="commercial"), Fake("dd", tier="keyless"))
    config.set("web.search_backend", "tav")
    value, used, attempts = selection.run("search", name_of, backend="DD ")
    assert (value, used) == ("dd", "dd")
    assert [a.provider for a in attempts] == ["dd"]


def test_per_capability_key_wins_over_web_backend() -> None:
    add(Fake("a", caps=("search", "extract")), Fake("b", caps=("search", "extract")))
    config.set("web.backend", "a")
    config.set("web.extract_backend", "b")
    assert selection.resolve("extract").name == "b"
    assert selection.resolve("search").name == "a"


def test_web_backend_applies_to_every_capability() -> None:
    add(
        Fake("a", caps=("search", "extract", "crawl")),
        Fake("b", tier="commercial", caps=("search", "extract")),
    )
    config.set("web.backend", "a")
    for capability in ("search", "extract", "crawl"):
        assert selection.resolve(capability).name == "a"


def test_auto_keyword_means_auto() -> None:
    add(Fake("a", tier="keyless"), Fake("b", tier="commercial"))
    config.set("web.search_backend", "auto")
    assert selection.resolve("search").name == "b"
    assert selection.resolve("search", backend="auto").name == "b"


def test_unknown_provider_lists_known_names() -> None:
    add(Fake("brave"), Fake("ddgs"))
    with pytest.raises(errors.ProviderNotFoundError) as info:
        selection.resolve("search", backend="nope")
    message = str(info.value)
    assert "nope" in message and "brave, ddgs" in message and "%hermes providers" in message


def test_disabled_plugin_names_the_enable_command() -> None:
    config.set("plugins.disabled", ["web/brave"])
    with pytest.raises(errors.ProviderNotFoundError) as info:
        selection.run("search", name_of, backend="brave")
    assert "hermes-nb plugins enable web/brave" in str(info.value)


def test_incapable_provider_names_those_that_can() -> None:
    add(
        Fake("brave", caps=("search",)),
        Fake("direct", caps=("extract", "crawl")),
        Fake("tav", caps=("search", "extract")),
    )
    config.set("web.extract_backend", "brave")
    with pytest.raises(errors.InvalidInputError) as info:
        selection.run("extract", name_of)
    message = str(info.value)
    assert "brave is search-only" in message
    assert "web.extract_backend" in message and "direct, tav" in message


def test_unavailable_explicit_provider_names_missing_key_and_never_switches() -> None:
    other = Fake("ddgs", tier="keyless", keyless=True)
    wanted = Fake("brave", available=False, env=("BRAVE_SEARCH_API_KEY",))
    add(other, wanted)
    with pytest.raises(errors.ProviderNotConfiguredError) as info:
        selection.run("search", lambda p: p.search("q"), backend="brave")
    message = str(info.value)
    assert "BRAVE_SEARCH_API_KEY" in message and "ddgs" in message
    assert other.calls == [] and wanted.calls == []


def test_missing_env_ignores_keys_that_are_set() -> None:
    wanted = Fake("duo", available=False, env=("ONE_API_KEY", "TWO_API_KEY"))
    add(wanted)
    config.set_key("ONE_API_KEY", "value-one-123456")
    with pytest.raises(errors.ProviderNotConfiguredError) as info:
        selection.resolve("search", backend="duo")
    assert "TWO_API_KEY" in str(info.value) and "ONE_API_KEY" not in str(info.value)


def test_explicit_provider_failure_is_not_retried_elsewhere() -> None:
    first = Fake("a", fail=errors.RateLimitedError("slow down"))
    second = Fake("b")
    add(first, second)
    with pytest.raises(errors.RateLimitedError) as info:
        selection.run("search", lambda p: p.search("q"), backend="a")
    assert second.calls == []
    assert [a.code for a in info.value.details["attempts"]] == ["PROVIDER_RATE_LIMITED"]


# --- auto ----------------------------------------------------------------------------------


def test_auto_orders_by_tier_then_priority_then_name() -> None:
    add(
        Fake("zeta", tier="keyless"),
        Fake("local", tier="offline"),
        Fake("searx", tier="self_hosted"),
        Fake("brave", tier="commercial"),
        Fake("tavily", tier="commercial"),
        Fake("alpha", tier="keyless"),
    )
    assert [p.name for p in selection.candidates("search")] == [
        "brave",
        "tavily",
        "searx",
        "alpha",
        "zeta",
        "local",
    ]
    config.set("web.provider_priority", ["tavily", "zeta"])
    assert [p.name for p in selection.candidates("search")] == [
        "tavily",
        "brave",
        "searx",
        "zeta",
        "alpha",
        "local",
    ]


def test_tier_is_inferred_without_class_attribute() -> None:
    keyed = Fake("keyed")
    keyless = Fake("free", available=False, keyless=True)
    assert selection.tier_of(keyed) == "commercial"
    assert selection.tier_of(keyless) == "keyless"
    add(keyless, keyed)
    assert [p.name for p in selection.candidates("search")] == ["keyed", "free"]


def test_auto_skips_unavailable_incapable_and_raising_providers() -> None:
    class Broken(Fake):
        def is_available(self) -> bool:
            raise RuntimeError("config unreadable")

    add(Fake("off", available=False), Fake("ext", caps=("extract",)), Broken("broken"), Fake("ok"))
    assert [p.name for p in selection.candidates("search")] == ["ok"]


RETRYABLE = [
    errors.ProviderAuthError("bad key", status=401),
    errors.RateLimitedError("429", retry_after=1.0),
    errors.ProviderUnavailableError("503", status=503),
    errors.ParseError("not json"),
    errors.NetworkError("connection refused"),
    errors.TimeoutError_("timed out"),
    errors.ProviderNotConfiguredError("no key"),
]


@pytest.mark.parametrize("failure", RETRYABLE, ids=lambda e: e.code)
def test_auto_falls_back_on_each_retryable_code(failure: errors.HermesError) -> None:
    first = Fake("first", tier="commercial", fail=failure)
    second = Fake("second", tier="keyless")
    add(first, second)
    value, used, attempts = selection.run("search", lambda p: p.search("q"), backend=None)
    assert used == "second" and value["data"]["web"][0]["title"] == "second"
    assert [(a.provider, a.code) for a in attempts] == [("first", failure.code), ("second", None)]
    assert attempts[0].message == failure.message


def test_failure_envelope_and_untyped_exceptions_fall_back() -> None:
    from hermes_nb.web.envelopes import parse_search_envelope

    add(
        Fake("env", tier="commercial", envelope={"success": False, "error": "quota exhausted"}),
        Fake("boom", tier="self_hosted", fail=RuntimeError("third-party bug")),
        Fake("ok", tier="keyless"),
    )
    hits, used, attempts = selection.run(
        "search", lambda p: parse_search_envelope(p.search("q"), p.name, 5)[0]
    )
    assert used == "ok" and hits[0].title == "ok"
    assert [a.code for a in attempts] == ["PROVIDER_ERROR", "PROVIDER_ERROR", None]
    assert "quota exhausted" in attempts[0].message and "RuntimeError" in attempts[1].message


@pytest.mark.parametrize(
    "failure",
    [
        errors.InvalidInputError("bad query"),
        errors.ContentBlockedError("private"),
        errors.ContentFetchError("404"),
    ],
    ids=lambda e: e.code,
)
def test_auto_does_not_fall_back_on_input_or_content_errors(failure: errors.HermesError) -> None:
    first = Fake("first", tier="commercial", fail=failure)
    second = Fake("second", tier="keyless")
    add(first, second)
    with pytest.raises(type(failure)):
        selection.run("search", lambda p: p.search("q"))
    assert second.calls == []


def test_all_failing_raises_last_error_with_attempts() -> None:
    add(
        Fake("a", tier="commercial", fail=errors.RateLimitedError("429")),
        Fake("b", tier="keyless", fail=errors.ProviderUnavailableError("502")),
    )
    with pytest.raises(errors.ProviderUnavailableError) as info:
        selection.run("search", lambda p: p.search("q"))
    attempts = info.value.details["attempts"]
    assert [(a.provider, a.code) for a in attempts] == [
        ("a", "PROVIDER_RATE_LIMITED"),
        ("b", "PROVIDER_UNAVAILABLE"),
    ]


def test_deadline_stops_trying_further_candidates() -> None:
    now = [0.0]

    def clock() -> float:
        return now[0]

    class Slow(Fake):
        def search(self, query: str, limit: int = 5) -> Any:
            now[0] += 5.0
            return super().search(query, limit)

    third = Fake("c", tier="keyless")
    add(
        Slow("a", tier="commercial", fail=errors.TimeoutError_("slow")),
        Slow("b", tier="self_hosted", fail=errors.TimeoutError_("slow")),
        third,
    )
    with pytest.raises(errors.TimeoutError_) as info:
        selection.run("search", lambda p: p.search("q"), deadline=8.0, clock=clock)
    assert third.calls == []
    assert "deadline of 8s" in str(info.value)
    assert [(a.provider, a.elapsed_s) for a in info.value.details["attempts"]] == [("a", 5.0), ("b", 5.0)]


def test_default_deadline_comes_from_config() -> None:
    now = [0.0]

    def clock() -> float:
        return now[0]

    class Slow(Fake):
        def search(self, query: str, limit: int = 5) -> Any:
            now[0] += 2.0
            raise errors.NetworkError("down")

    later = Fake("later", tier="keyless")
    add(Slow("slow", tier="commercial"), later)
    config.set("web.deadline", 1.5)
    with pytest.raises(errors.TimeoutError_):
        selection.run("search", lambda p: p.search("q"), clock=clock)
    assert later.calls == []


def test_no_candidates_names_keyless_options_and_keys() -> None:
    add(Fake("brave", tier="commercial", available=False, env=("BRAVE_SEARCH_API_KEY",)))
    with pytest.raises(errors.ProviderNotConfiguredError) as info:
        selection.run("search", name_of)
    message = str(info.value)
    assert message.startswith("No available search provider")
    assert "Keyless options: ddgs, keenable" in message and "brave (BRAVE_SEARCH_API_KEY)" in message
    assert "firecrawl" not in message
    with pytest.raises(errors.ProviderNotConfiguredError) as info:
        selection.resolve("extract")
    assert "direct" in str(info.value) and "jina" in str(info.value)


def test_unknown_capability_is_invalid_input() -> None:
    with pytest.raises(errors.InvalidInputError):
        selection.candidates("summarise")


def test_async_run_awaits_and_falls_back() -> None:
    add(Fake("a", tier="commercial", fail=errors.NetworkError("down")), Fake("b", tier="keyless"))

    async def call(provider: WebSearchProvider) -> str:
        await asyncio.sleep(0)
        return provider.search("q")["data"]["web"][0]["title"]

    value, used, attempts = asyncio.run(selection.arun("search", call))
    assert (value, used) == ("b", "b") and [a.code for a in attempts] == ["NETWORK_ERROR", None]


def test_describe_rows() -> None:
    add(
        Fake("brave", tier="commercial", available=False, env=("BRAVE_SEARCH_API_KEY",)),
        Fake("direct", tier="keyless", keyless=True, available=False, caps=("extract", "crawl")),
        Fake("ddgs", tier="keyless", keyless=True),
    )
    rows = {row.name: row for row in listing.describe()}
    assert rows["brave"].available is False
    assert rows["brave"].why_not.startswith("set BRAVE_SEARCH_API_KEY (hn.config.set_key(")
    assert rows["direct"].capabilities == ("extract", "crawl") and rows["direct"].available
    assert rows["ddgs"].selected_for == ("search",)
    assert rows["direct"].selected_for == ("extract", "crawl")
    assert rows["ddgs"].tier == "keyless"


# --- custom plugin providers ---------------------------------------------------------------

_PLUGIN = """
from hermes_nb.plugins.web_provider import WebSearchProvider


class MyBackend(WebSearchProvider):
    tier = "commercial"

    @property
    def name(self):
        return "my-backend"

    def is_available(self):
        return True

    def search(self, query, limit=5):
        hit = {"title": "mine", "url": "https://mine.test/", "position": 1}
        return {"success": True, "data": {"web": [hit]}}


def register(ctx):
    ctx.register_web_search_provider(MyBackend())
"""


def _install_user_plugin(home: Path) -> None:
    plugin = home / "plugins" / "web" / "my_backend"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text(
        "name: my-backend\nversion: 0.1.0\nkind: backend\nprovides_web_providers: [my-backend]\n",
        encoding="utf-8",
    )
    (plugin / "__init__.py").write_text(_PLUGIN, encoding="utf-8")


def test_custom_plugin_provider_selectable_explicitly_and_in_auto(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_nb.plugins import loader

    _install_user_plugin(hermetic)
    config.set("plugins.enabled", ["web/my_backend"])
    # Only the user plugin: bundled plugins are left out so auto order is predictable.
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(hermetic / "no-bundled"))
    loader.load_plugins(force=True)
    monkeypatch.setattr(web_providers, "loader", None)
    add(Fake("ddgs", tier="keyless", keyless=True))

    value, used, _ = selection.run("search", lambda p: p.search("q"), backend="my-backend")
    assert used == "my-backend" and value["data"]["web"][0]["title"] == "mine"
    assert selection.resolve("search").name == "my-backend"
    assert web_providers.owner("my-backend") != ""
