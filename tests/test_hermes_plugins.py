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

from hermes_nb import config
from hermes_nb.plugins import loader
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.testing import PROVIDER_PREFIXES, Emulator, use_emulator

_BESIDE_REPO = Path(__file__).resolve().parents[2] / "shared" / "hermes-plugins"
_WORKPLACE = Path("/work/shared/hermes-plugins")  # where this workplace keeps it for any clone
CORPUS = Path(
    os.environ.get("HERMES_NB_HERMES_PLUGINS") or (_BESIDE_REPO if _BESIDE_REPO.is_dir() else _WORKPLACE)
)

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"Hermes's own plugins are not here ({CORPUS}); they are test data outside the repository",
)

WEB = ("brave_free", "ddgs", "exa", "firecrawl", "parallel", "searxng", "tavily", "xai")
IMAGE = ("openai", "xai", "fal", "openrouter", "krea", "deepinfra", "openai-codex")
GENERAL = ("security-guidance", "disk-cleanup")
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
