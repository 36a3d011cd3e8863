"""Built-in model-facing tools (web_search, web_extract, image_generate) through the real SDK."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest

from hermes_nb import config, tools
from hermes_nb.errors import ProviderAuthError
from hermes_nb.plugins.image_provider import ImageGenProvider, save_b64_image, success_response
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.tools.builtin import IMAGE_GENERATE_SCHEMA, WEB_EXTRACT_SCHEMA, WEB_SEARCH_SCHEMA

pytest.importorskip("hermes_nb.web")
pytest.importorskip("hermes_nb.images")


class FakeWeb(WebSearchProvider):
    """A provider registered straight into the registry (no HTTP)."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.fail = fail
        self.calls: list[tuple[str, Any]] = []

    @property
    def name(self) -> str:
        return "fakeweb"

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        self.calls.append(("search", (query, limit)))
        if self.fail:
            raise self.fail
        hits = [
            {"title": f"{query} {i}", "url": f"https://example.com/{i}", "description": "d", "position": i}
            for i in range(1, limit + 1)
        ]
        return {"success": True, "data": {"web": hits}}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append(("extract", list(urls)))
        return [
            {"url": u, "title": f"Title {u}", "content": f"Body of {u}", "raw_content": None, "metadata": {}}
            for u in urls
        ]


def _png_b64() -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


class FakeImages(ImageGenProvider):
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return "fakeimg"

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": "fake-1"}]

    def capabilities(self) -> dict[str, Any]:
        return {"modalities": ["text", "image"], "max_reference_images": 4}

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        self.calls.append({"prompt": prompt, "aspect_ratio": aspect_ratio, **kwargs})
        path = save_b64_image(_png_b64(), prefix="fakeimg")
        return success_response(
            image=str(path), model="fake-1", prompt=prompt, aspect_ratio=aspect_ratio, provider="fakeimg"
        )


@pytest.fixture
def fake_web() -> FakeWeb:
    provider = FakeWeb()
    web_providers.register(provider)
    config.set("web.backend", "fakeweb")
    config.set("cache.mode", "off")
    return provider


@pytest.fixture
def fake_images() -> FakeImages:
    provider = FakeImages()
    image_providers.register(provider)
    config.set("image_gen.provider", "fakeimg")
    config.set("cache.mode", "off")
    return provider


def test_builtins_registered_with_hermes_metadata() -> None:
    rows = {r["name"]: r for r in tools.list_tools()}
    assert rows["web_search"]["toolset"] == "web" and rows["web_search"]["emoji"] == "🔍"
    assert rows["web_extract"]["toolset"] == "web" and rows["web_extract"]["emoji"] == "📄"
    assert rows["image_generate"]["toolset"] == "image_gen" and rows["image_generate"]["emoji"] == "🎨"
    assert {rows[n]["owner"] for n in ("web_search", "web_extract", "image_generate")} == {"hermes_nb"}
    extract = tools.registry.get_entry("web_extract")
    assert extract is not None and extract.is_async
    assert tools.registry.get_entry("web_search").max_result_size_chars == 100_000  # type: ignore[union-attr]  # registered above


def test_hermes_schemas() -> None:
    props = WEB_SEARCH_SCHEMA["parameters"]["properties"]
    assert WEB_SEARCH_SCHEMA["parameters"]["required"] == ["query"]
    assert (props["limit"]["minimum"], props["limit"]["maximum"], props["limit"]["default"]) == (1, 100, 5)
    assert WEB_EXTRACT_SCHEMA["parameters"]["properties"]["urls"]["maxItems"] == 5
    assert WEB_EXTRACT_SCHEMA["parameters"]["properties"]["char_limit"]["minimum"] == 2000
    image = IMAGE_GENERATE_SCHEMA["parameters"]["properties"]
    assert image["aspect_ratio"]["enum"] == ["landscape", "square", "portrait"]
    assert set(image) == {"prompt", "aspect_ratio", "image_url", "reference_image_urls"}


def test_web_search_envelope(fake_web: FakeWeb) -> None:
    result = tools.call("web_search", {"query": "jupyter", "limit": "3"})
    assert result["success"] is True
    hits = result["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3]
    assert hits[0]["title"] == "jupyter 1" and hits[0]["url"] == "https://example.com/1"
    assert fake_web.calls[0] == ("search", ("jupyter", 3))


def test_web_search_clamps_limit_and_needs_query(fake_web: FakeWeb) -> None:
    tools.call("web_search", {"query": "q", "limit": 500})
    assert fake_web.calls[-1] == ("search", ("q", 100))
    assert tools.call("web_search", {"query": "  "}) == {
        "success": False,
        "error": "query is required for web_search",
        "code": "INVALID_INPUT",
    }


def test_web_search_error_has_code_and_no_secret(fake_web: FakeWeb) -> None:
    config.set_key("FAKE_API_KEY", "fake-secret-key-123456")
    fake_web.fail = ProviderAuthError(
        "key fake-secret-key-123456 rejected; set FAKE_API_KEY", provider="fakeweb"
    )
    result = tools.call("web_search", {"query": "q"})
    assert result["success"] is False
    assert result["code"] == "PROVIDER_AUTH_FAILED"
    assert "fake-secret-key-123456" not in json.dumps(result)


def test_web_search_available_only_with_a_provider(fake_web: FakeWeb) -> None:
    names = [d["function"]["name"] for d in tools.schemas(toolsets=["web"])]
    assert "web_search" in names and "web_extract" in names


def test_web_extract_results_in_input_order(fake_web: FakeWeb) -> None:
    urls = ["https://example.com/a", {"href": "https://example.com/b"}, 42, "https://example.com/c"]
    result = tools.call("web_extract", {"urls": urls})
    rows = result["results"]
    assert [r["url"] for r in rows] == [
        "https://example.com/a",
        "https://example.com/b",
        "",
        "https://example.com/c",
    ]
    assert rows[0] == {"url": "https://example.com/a", "title": "Title https://example.com/a",
                       "content": "Body of https://example.com/a", "error": None}  # fmt: skip
    assert rows[2]["error"] == "Invalid URL item at index 2"
    assert fake_web.calls[-1] == (
        "extract",
        ["https://example.com/a", "https://example.com/b", "https://example.com/c"],
    )


def test_web_extract_caps_at_five_urls_and_runs_inside_a_loop(fake_web: FakeWeb) -> None:
    urls = [f"https://example.com/{i}" for i in range(8)]

    async def cell() -> Any:
        return tools.call("web_extract", {"urls": urls, "char_limit": "5000"})

    result = asyncio.run(cell())
    assert len(result["results"]) == 5
    assert fake_web.calls[-1] == ("extract", urls[:5])


def test_web_extract_requires_urls(fake_web: FakeWeb) -> None:
    assert tools.call("web_extract", {"urls": []})["code"] == "INVALID_INPUT"


def test_image_generate_envelope(fake_images: FakeImages) -> None:
    result = tools.call("image_generate", {"prompt": "a red square", "aspect_ratio": "SQUARE"})
    assert result["success"] is True
    assert result["provider"] == "fakeimg" and result["model"] == "fake-1"
    assert result["aspect_ratio"] == "square" and result["prompt"] == "a red square"
    assert Path(result["image"]).is_file()
    assert fake_images.calls[0]["prompt"] == "a red square"


def test_image_generate_edit_sources(fake_images: FakeImages) -> None:
    tools.call(
        "image_generate",
        {"prompt": "edit", "image_url": "https://example.com/src.png", "reference_image_urls": ["https://example.com/r.png"]},
    )  # fmt: skip
    call = fake_images.calls[-1]
    assert call["image_url"] == "https://example.com/src.png"
    assert call["reference_image_urls"] == ["https://example.com/r.png"]


def test_image_generate_errors(fake_images: FakeImages) -> None:
    missing = tools.call("image_generate", {"prompt": ""})
    assert missing["success"] is False and missing["image"] is None
    assert missing["error"] == "prompt is required for image generation"
    assert missing["error_type"] == "invalid_argument" and missing["code"] == "INVALID_INPUT"
    config.set("image_gen.provider", "not-registered")
    failed = tools.call("image_generate", {"prompt": "x"})
    assert failed["success"] is False and failed["image"] is None
    assert failed["code"] == "PROVIDER_NOT_FOUND"
    assert failed["prompt"] == "x" and failed["aspect_ratio"] == "landscape"


def test_handle_runs_a_builtin_for_an_openai_tool_call(fake_web: FakeWeb) -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "web_search", "arguments": '{"query": "nb"}'},
    }
    message = tools.handle(call)
    assert message["role"] == "tool" and json.loads(message["content"])["success"] is True
