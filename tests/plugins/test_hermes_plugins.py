"""Hermes Agent's own plugins, unmodified, in ``$HERMES_HOME/plugins/``: load, register, list, answer.

The plugins are test data in ``../shared/hermes-plugins`` (next to the repository); a clean clone
has no such folder and this module skips. Each web and image provider among them is called against
the emulator where its endpoint can be pointed elsewhere (env var or config), through a mock
transport where only its SDK client can, and otherwise must fail with a clear, classified error.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from paths import REPO

from hermes_nb import config
from hermes_nb.plugins import loader
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.testing import PROVIDER_PREFIXES, Emulator, use_emulator

_BESIDE_REPO = REPO.parent / "shared" / "hermes-plugins"
_WORKPLACE = Path("/work/shared/hermes-plugins")  # where this workplace keeps it for any clone
CORPUS = Path(
    os.environ.get("HERMES_NB_HERMES_PLUGINS") or (_BESIDE_REPO if _BESIDE_REPO.is_dir() else _WORKPLACE)
)

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"Hermes's own plugins are not here ({CORPUS}); they are test data outside the repository",
)



def _folders(category: str) -> tuple[str, ...]:
    """Every plugin folder of the corpus in ``category`` (a new one is picked up without editing this)."""
    base = CORPUS / category
    if not base.is_dir():
        return ()
    return tuple(sorted(p.name for p in base.iterdir() if (p / "plugin.yaml").is_file()))


WEB = _folders("web")
IMAGE = _folders("image_gen")
GENERAL = _folders("general")
WEB_NAMES = {"brave-free", "ddgs", "exa", "firecrawl", "parallel", "searxng", "tavily", "xai"}
IMAGE_NAMES = {"openai", "xai", "fal", "openrouter", "nous", "krea", "deepinfra", "openai-codex"}


def install_corpus(home: Path) -> list[str]:
    """Copy every corpus plugin into ``home/plugins`` (Hermes's layout) and enable them; their keys."""
    keys = []
    for category, names in (("web", WEB), ("image_gen", IMAGE)):
        for name in names:
            shutil.copytree(CORPUS / category / name, home / "plugins" / category / name)
            keys.append(f"{category}/{name}")
    for name in GENERAL:
        shutil.copytree(CORPUS / "general" / name, home / "plugins" / name)
        keys.append(yaml.safe_load((CORPUS / "general" / name / "plugin.yaml").read_text())["name"])
    (home / "config.yaml").write_text(yaml.safe_dump({"plugins": {"enabled": keys}}))
    return keys


@pytest.fixture
def corpus(hermetic: Path) -> list[str]:
    return install_corpus(hermetic)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=9) as server:
        yield server


@pytest.fixture
def served(corpus: list[str], emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """Every corpus plugin loaded, keys set the notebook way, Hermes's base-URL variables at the emulator."""
    emu.reset_log()
    emu.clear_faults()
    config.set("web.max_retries", 0)
    for variable, provider in (
        ("TAVILY_BASE_URL", "tavily"),
        ("SEARXNG_URL", "searxng"),
        ("XAI_BASE_URL", "xai"),
        ("FIRECRAWL_API_URL", "firecrawl"),
        ("OPENAI_BASE_URL", "openai"),
        ("DEEPINFRA_BASE_URL", "openai"),  # DeepInfra's image API is OpenAI's
        ("OPENROUTER_BASE_URL", "openrouter"),
    ):
        if provider in PROVIDER_PREFIXES:
            monkeypatch.setenv(variable, emu.base_url(provider))
    with use_emulator(emu):
        for name in ("EXA_API_KEY", "PARALLEL_API_KEY", "FIRECRAWL_API_KEY", "DEEPINFRA_API_KEY"):
            config.set_key(name, "emu-hermes-key")
        # image_gen.deepinfra.base_url points Hermes's plugin at the emulated DeepInfra (owner/name ids)
        monkeypatch.setenv("DEEPINFRA_IMAGE_MODEL", "black-forest-labs/FLUX-1-schnell")
        config.set_key("KREA_API_KEY", None)  # Hermes's krea has a fixed endpoint: it must not be keyed
        loader.check_all()
        yield emu


def test_every_plugin_loads_registers_and_is_listed(corpus: list[str]) -> None:
    rows = {row["key"]: row for row in loader.list_plugins()}
    assert all(rows[key]["state"] == "not imported yet" for key in corpus)  # nothing ran before first use
    rows = {row["key"]: row for row in loader.check_all()}
    failed = {key: rows[key]["error"] for key in corpus if rows[key]["state"] != "loaded"}
    assert failed == {}
    assert all(rows[key]["source"] == "user" for key in corpus)
    providers = [p for key in corpus for p in rows[key]["providers"]]
    assert {p.split(":", 1)[1] for p in providers if p.startswith("web:")} == WEB_NAMES
    assert {p.split(":", 1)[1] for p in providers if p.startswith("image_gen:")} == IMAGE_NAMES
    guidance = rows["security-guidance"]
    assert guidance["hooks"] and guidance["hooks_not_fired"] == []  # pre_tool_call hooks run in hermes_nb
    cleanup = rows["disk-cleanup"]
    assert cleanup["hooks"] and "/disk-cleanup" in cleanup["commands"]
    for name in WEB_NAMES:
        assert web_providers.owner(name).startswith("web/")
    for name in IMAGE_NAMES:
        assert image_providers.owner(name).startswith("image_gen/")


def test_the_exact_name_wins_over_the_bundled_alias(corpus: list[str]) -> None:
    provider = web_providers.get("brave-free")
    assert type(provider).__name__ == "BraveFreeWebSearchProvider"  # not the bundled brave's alias
    assert web_providers.owner("brave-free") == "web/brave_free"


def _web(name: str) -> Any:
    provider = web_providers.get(name)
    assert provider is not None, name
    return provider


def _assert_search(result: Any, name: str) -> None:
    assert isinstance(result, dict) and result.get("success") is True, (name, result)
    hits = result["data"]["web"]
    assert hits and all(hit["url"].startswith("http") for hit in hits), (name, hits)
    positions = [hit.get("position") for hit in hits]
    assert positions in ([None] * len(hits), list(range(1, len(hits) + 1)))  # firecrawl sends none


@pytest.mark.parametrize("name", ["tavily", "searxng", "xai"])
def test_web_provider_answers_from_the_emulator(served: Emulator, name: str) -> None:
    if name not in PROVIDER_PREFIXES:
        pytest.skip(f"the emulator does not speak {name} yet")
    provider = _web(name)
    assert provider.is_available()
    _assert_search(provider.search("hermes notebooks", limit=3), name)
    assert any(r.path.startswith(PROVIDER_PREFIXES[name]) for r in served.requests)


def test_firecrawl_without_a_key_or_a_server_is_not_available(
    corpus: list[str], emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No key, no self-hosted URL: unavailable everywhere (provider, listing, Hermes's registry), even
    with hermes_nb's keyless firecrawl bundled and the emulator in use; FIRECRAWL_API_URL makes it so."""
    def row() -> dict[str, Any]:
        return {r["key"]: r for r in loader.check_all()}["web/firecrawl"]

    with use_emulator(emu):
        provider = _web("firecrawl")
        import agent.web_search_registry as hermes_registry  # served once the plugins are discovered

        assert type(provider).__name__ == "FirecrawlWebSearchProvider"
        assert provider.is_available() is False and provider.is_keyless_available() is False
        assert row()["state"] == "loaded" and row()["available"] is False
        assert row()["missing_env"] == []  # Hermes's manifest declares no key: the provider says it
        assert hermes_registry.get_active_search_provider() is not provider
        monkeypatch.setenv("FIRECRAWL_API_URL", emu.base_url("firecrawl"))
        assert provider.is_available() and row()["available"] is True


def test_xai_titles_are_the_pages_titles_not_their_urls(served: Emulator) -> None:
    """Hermes's xai asks Grok for a JSON result list; its titles reach the hits (and the SDK's rows)."""
    from hermes_nb import web

    hits = _web("xai").search("hermes notebooks", limit=3)["data"]["web"]
    assert hits and all(hit["title"] and hit["title"] != hit["url"] for hit in hits), hits
    result = web.search("hermes notebooks", limit=3, backend="xai", no_cache=True)
    assert [row.title for row in result.hits] == [hit["title"] for hit in hits]


def test_firecrawl_answers_from_the_emulator(served: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    requests = pytest.importorskip("requests")
    pytest.importorskip("firecrawl", reason="firecrawl-py is a test-only extra (hermes-compat-tests)")
    real_post = requests.post

    def routed(url: str, *args: Any, **kwargs: Any) -> Any:
        # the SDK joins "/v2/..." to the host root, dropping the emulator's /firecrawl prefix
        url = url.replace(served.url + "/v2/", served.base_url("firecrawl") + "/v2/")
        return real_post(url, *args, **kwargs)

    monkeypatch.setattr(requests, "post", routed)
    provider = _web("firecrawl")
    assert provider.is_available()
    _assert_search(provider.search("hermes notebooks", limit=3), "firecrawl")


def test_exa_answers_through_its_client_slot(served: Emulator) -> None:
    exa_py = pytest.importorskip("exa_py", reason="exa-py is a test-only extra (hermes-compat-tests)")
    import tools.web_tools as wt  # served by hermes_nb, where Hermes's exa caches its client

    wt._exa_client = exa_py.Exa(api_key="emu-hermes-key", base_url=served.base_url("exa"))
    provider = _web("exa")
    _assert_search(provider.search("hermes notebooks", limit=2), "exa")
    pages = provider.extract([served.page_url("/site/articles/hello-world.html")])
    assert isinstance(pages, list) and pages


def test_parallel_answers_through_a_mock_transport(served: Emulator) -> None:
    parallel = pytest.importorskip("parallel", reason="parallel-web is a test-only extra")
    import tools.web_tools as wt

    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        hits = [{"url": "https://example.org/a", "title": "A", "excerpts": ["first"]}]
        return httpx.Response(200, json={"search_id": "s1", "results": hits})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    wt._parallel_client = parallel.Parallel(
        api_key="emu-hermes-key", base_url="https://parallel.test", http_client=client
    )
    result = _web("parallel").search("hermes notebooks", limit=2)
    _assert_search(result, "parallel")
    assert seen and seen[0].headers["x-api-key"] == "emu-hermes-key"


def test_brave_free_answers_when_its_endpoint_is_routed_to_the_emulator(
    served: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_get = httpx.get

    def routed(url: str, **kwargs: Any) -> httpx.Response:  # the plugin's endpoint is a constant
        return real_get(url.replace("https://api.search.brave.com", served.base_url("brave")), **kwargs)

    monkeypatch.setattr(httpx, "get", routed)
    _assert_search(_web("brave-free").search("hermes notebooks", limit=3), "brave-free")


def test_ddgs_answers_through_a_stand_in_client(served: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    ddgs = pytest.importorskip("ddgs")  # it scrapes search engines itself: no endpoint to point elsewhere

    class StandIn:
        def __init__(self, timeout: int = 0) -> None:
            self.timeout = timeout

        def __enter__(self) -> StandIn:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def text(self, query: str, max_results: int = 5) -> list[dict[str, str]]:
            hits = range(max_results)
            return [{"title": query, "href": f"https://duck.example/{i}", "body": "b"} for i in hits]

    monkeypatch.setattr(ddgs, "DDGS", StandIn)
    provider = _web("ddgs")
    assert provider.is_available() and not provider.supports_extract()
    _assert_search(provider.search("hermes notebooks", limit=2), "ddgs")


def _assert_image(result: Any, name: str) -> None:
    assert isinstance(result, dict) and result.get("success") is True, (name, result)
    assert result["image"], (name, result)


@pytest.mark.parametrize("name", ["openai", "xai", "fal", "deepinfra", "openrouter"])
def test_image_provider_answers_from_the_emulator(served: Emulator, name: str) -> None:
    needed = {"deepinfra": "openai"}.get(name, name)
    if needed not in PROVIDER_PREFIXES:
        pytest.skip(f"the emulator does not speak {needed} yet")
    provider = image_providers.get(name)
    assert provider is not None and provider.is_available(), name
    _assert_image(provider.generate("a lighthouse at dusk", "square"), name)


@pytest.mark.parametrize(
    ("name", "error_type"),
    [("krea", "auth_required"), ("openai-codex", "auth_required"), ("nous", None)],
)
def test_image_provider_that_cannot_be_pointed_elsewhere_fails_clearly(
    served: Emulator, name: str, error_type: str | None
) -> None:
    provider = image_providers.get(name)
    assert provider is not None and not provider.is_available()
    result = provider.generate("a lighthouse at dusk", "square")
    assert result["success"] is False and result["error"]
    if error_type:
        assert result["error_type"] == error_type
    assert not served.requests  # nothing left the machine


def test_listing_after_use_says_loaded(served: Emulator) -> None:
    rows = {row["key"]: row for row in loader.list_plugins()}
    assert rows["web/tavily"]["state"] == "loaded" and rows["web/tavily"]["available"]
    assert json.dumps(rows)  # the listing is plain data


def test_xai_image_on_the_configured_base_url_host_is_kept(
    corpus: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hermes's xai returns an image URL on its base URL's host (a loopback rig here): fetched, with
    ``security.private_origins`` empty; the same URL is refused once that base URL is not configured."""
    from hermes_nb import images
    from hermes_nb.errors import ContentBlockedError

    config.set("security.private_origins", [])
    with Emulator(seed=11) as rig:  # not the emulator use_emulator announces: a user's own server
        monkeypatch.setenv("XAI_BASE_URL", rig.base_url("xai"))
        config.set_key("XAI_API_KEY", "rig-key")
        result = images.imagine("a lighthouse at dusk", backend="xai", no_cache=True)
        assert result.provider == "xai" and result.path.is_file()
        assert any(r.path.startswith("/files/") for r in rig.requests)  # the URL was fetched, not b64
        assert config.get("security.private_origins") == []
        with pytest.raises(ContentBlockedError):
            from hermes_nb.net.fetch import fetch

            fetch(rig.page_url("/site/image.png"))  # outside the provider call: refused as before


# ------------------------------------------------------------------ keep it true: every plugin answers


def _corpus_keys() -> list[str]:
    """The key of every corpus plugin, as ``install_corpus`` enables it (collected, not listed by hand)."""
    if not CORPUS.is_dir():
        return []
    general = [yaml.safe_load((CORPUS / "general" / n / "plugin.yaml").read_text())["name"] for n in GENERAL]
    return [*(f"web/{n}" for n in WEB), *(f"image_gen/{n}" for n in IMAGE), *general]


KEY = "emu-hermes-key"


def _route_requests(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    """The plugin's endpoint is a constant: its ``requests`` calls to ``old`` go to ``new`` instead."""
    requests = pytest.importorskip("requests")
    for verb in ("get", "post"):
        real = getattr(requests, verb)

        def routed(url: str, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            return _real(url.replace(old, new), *args, **kwargs)

        monkeypatch.setattr(requests, verb, routed)


def _route_httpx_get(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    real_get = httpx.get

    def routed(url: str, **kwargs: Any) -> httpx.Response:
        return real_get(url.replace(old, new), **kwargs)

    monkeypatch.setattr(httpx, "get", routed)


def _sdk_client(module: str, slot: str, make: Any) -> None:
    """Hermes's exa and parallel cache their SDK client on ``tools.web_tools``: one at the emulator."""
    sdk = pytest.importorskip(module, reason=f"{module} is a test-only extra (hermes-compat-tests)")
    import tools.web_tools as wt  # served by hermes_nb

    setattr(wt, slot, make(sdk))


def _ddgs_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    ddgs = pytest.importorskip("ddgs")  # it scrapes search engines itself: no endpoint to point elsewhere

    class StandIn:
        def __init__(self, timeout: int = 0) -> None:
            self.timeout = timeout

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def text(self, query: str, max_results: int = 5) -> list[dict[str, str]]:
            hits = range(max_results)
            return [{"title": query, "href": f"https://duck.example/{i}", "body": "b"} for i in hits]

    monkeypatch.setattr(ddgs, "DDGS", StandIn)


def _firecrawl(emu: Emulator, mp: pytest.MonkeyPatch) -> None:
    # the SDK joins "/v2/..." to the host root, dropping the emulator's /firecrawl prefix
    _route_requests(mp, emu.url + "/v2/", emu.base_url("firecrawl") + "/v2/")


def _brave_free(emu: Emulator, mp: pytest.MonkeyPatch) -> None:
    _route_httpx_get(mp, "https://api.search.brave.com", emu.base_url("brave"))


def _exa(emu: Emulator, mp: pytest.MonkeyPatch) -> None:
    url = emu.base_url("exa")
    _sdk_client("exa_py", "_exa_client", lambda sdk: sdk.Exa(api_key=KEY, base_url=url))


def _parallel(emu: Emulator, mp: pytest.MonkeyPatch) -> None:
    # search uses the sync client, extract the async one: both at the emulator (its /v1beta routes)
    url = emu.base_url("parallel")
    _sdk_client("parallel", "_parallel_client", lambda sdk: sdk.Parallel(api_key=KEY, base_url=url))
    _sdk_client("parallel", "_async_parallel_client", lambda m: m.AsyncParallel(api_key=KEY, base_url=url))


def _krea(emu: Emulator, mp: pytest.MonkeyPatch) -> None:
    if "krea" in PROVIDER_PREFIXES:
        _route_requests(mp, "https://api.krea.ai", emu.base_url("krea"))


#: How a corpus plugin whose endpoint no variable names reaches the emulator (the rest follow
#: the variables the ``served`` fixture sets). A plugin missing here is called as it is.
ROUTES: dict[str, Any] = {
    "web/firecrawl": _firecrawl,
    "web/brave_free": _brave_free,
    "web/exa": _exa,
    "web/parallel": _parallel,
    "web/ddgs": lambda emu, mp: _ddgs_stand_in(mp),
    "image_gen/krea": _krea,
}

#: Providers that cannot work in a notebook, and why: each must fail with a clear error, offline.
CANNOT_WORK = {
    "openai-codex": "signs in through ChatGPT's OAuth, which a notebook does not have",
    "nous": "needs a Nous subscription's managed gateway",
    **({} if "krea" in PROVIDER_PREFIXES else {"krea": "the emulator does not speak Krea's API yet"}),
}


def _call(provider: Any, capability: str, emu: Emulator) -> Any:
    import asyncio
    import inspect

    if capability == "search":
        return provider.search("hermes notebooks", limit=3)
    if capability == "extract":
        answer = provider.extract([emu.page_url("/site/articles/hello-world.html")], format="markdown")
        return asyncio.run(answer) if inspect.isawaitable(answer) else answer
    return provider.generate("a lighthouse at dusk", "square")


def _check(key: str, name: str, capability: str, answer: Any) -> None:
    where = f"plugin {key}, provider {name}, {capability}"
    if capability == "extract":
        rows = answer.get("data", answer.get("results")) if isinstance(answer, dict) else answer
        assert isinstance(rows, list) and rows, f"{where}: no pages in {answer!r:.300}"
        assert not rows[0].get("error") and (rows[0].get("content") or rows[0].get("raw_content")), \
            f"{where}: {rows[0]!r:.300}"
        return
    assert isinstance(answer, dict) and answer.get("success") is True, f"{where}: {answer!r:.300}"
    if capability == "search":
        assert answer["data"]["web"], f"{where}: no hits"
    else:
        assert answer.get("image"), f"{where}: no image"


@pytest.mark.parametrize("key", _corpus_keys() or ["(corpus absent)"])
def test_every_corpus_plugin_loads_and_each_provider_answers(
    served: Emulator, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every plugin in the corpus, enabled and keyed: loaded, and each of its providers answers from
    the emulator (search, extract, generate as it supports), or fails clearly where it cannot work."""
    for name in ("XAI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY", "FAL_KEY", "TAVILY_API_KEY"):
        if not config.resolve_key(name):
            config.set_key(name, "emu-hermes-key")
    if "krea" in PROVIDER_PREFIXES:
        config.set_key("KREA_API_KEY", "emu-hermes-key")
    row = {r["key"]: r for r in loader.list_plugins()}.get(key)
    assert row is not None, f"plugin {key} was not discovered"
    assert row["state"] == "loaded" and not row["error"], f"plugin {key}: {row['error'] or row['state']}"
    if not row["providers"]:
        made = row["tools"] + row["hooks"] + row["commands"] + row["magics"]
        assert made, f"plugin {key} loaded but registered nothing"
        return
    route = ROUTES.get(key)
    if route is not None:
        route(served, monkeypatch)
    for entry in row["providers"]:
        kind, _, name = entry.partition(":")
        provider = (web_providers if kind == "web" else image_providers).get(name)
        assert provider is not None, f"plugin {key}: provider {name} is not registered"
        if name in CANNOT_WORK:
            served.reset_log()
            answer = provider.generate("a lighthouse at dusk", "square")
            assert answer["success"] is False and answer["error"], f"plugin {key}, {name}: {answer!r:.300}"
            assert not served.requests, f"plugin {key}, {name}: reached out although it cannot work"
            continue
        capabilities = ["generate"] if kind == "image_gen" else [
            c for c in ("search", "extract") if getattr(provider, f"supports_{c}")()
        ]
        assert capabilities, f"plugin {key}: provider {name} supports nothing"
        for capability in capabilities:
            _check(key, name, capability, _call(provider, capability, served))
