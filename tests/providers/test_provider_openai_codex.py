"""openai-codex against the emulated Responses stream: Codex login or API key, SSE, every error class."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from hermes_nb import config, images
from hermes_nb.errors import (
    ContentPolicyError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
    RateLimitedError,
)
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import image_providers
from hermes_nb.testing import Emulator, fake_module, use_emulator

NO_TOOL_ACCOUNT, make_jwt = fake_module("openai-codex").NO_TOOL_ACCOUNT, fake_module("openai-codex").make_jwt


def write_login(account: str = "acct-123", *, exp: float | None = None) -> str:
    """Hermes's auth.json layout with a ChatGPT login; returns the access token."""
    token = make_jwt(
        {"exp": exp or time.time() + 3600, "https://api.openai.com/auth": {"chatgpt_account_id": account}}
    )
    home = config.get_hermes_home()
    home.mkdir(parents=True, exist_ok=True)
    state = {
        "tokens": {"access_token": token, "refresh_token": "r-1", "id_token": "i-1"},
        "last_refresh": "x",
    }
    (home / "auth.json").write_text(json.dumps({"version": 1, "providers": {"openai-codex": state}}))
    return token


@pytest.fixture
def emu() -> Iterator[Emulator]:
    load_plugins()
    with Emulator(seed=0) as emulator, use_emulator(emulator, ["openai-codex"]):
        config.set("image_gen.provider", "openai-codex")
        yield emulator


def test_codex_login_request_shape(emu: Emulator) -> None:
    token = write_login()
    result = images.imagine("a paper crane", aspect_ratio="portrait", model="gpt-image-2-high")
    (request,) = emu.requests_for("openai-codex")
    assert request.path == "/openai-codex/responses"
    assert request.headers["authorization"] == f"Bearer {token}"
    assert request.headers["chatgpt-account-id"] == "acct-123"
    assert (
        request.headers["accept"] == "text/event-stream" and request.headers["originator"] == "codex_cli_rs"
    )
    body = request.json
    assert body["model"] == "gpt-5.5" and body["stream"] is True and body["store"] is False
    assert body["instructions"].strip()
    assert body["tools"] == [
        {
            "type": "image_generation",
            "model": "gpt-image-2",
            "size": "1024x1536",
            "quality": "high",
            "output_format": "png",
            "background": "opaque",
            "partial_images": 1,
        }
    ]
    assert body["tool_choice"]["tools"] == [{"type": "image_generation"}]
    assert body["input"][0]["content"] == [{"type": "input_text", "text": "a paper crane"}]
    assert (result.width, result.height) == (1024, 1536) and result.model == "gpt-image-2-high"
    assert result.revised_prompt == "a paper crane, detailed"
    assert result.envelope["auth"] == "codex" and result.envelope["partial_images"] == 1
    assert result.envelope["final_image"] is True
    assert result.cost == {"usd": 0.0, "estimated": True, "note": "billed to the ChatGPT plan"}


def test_api_key_fallback_and_estimated_cost(emu: Emulator) -> None:
    config.set_key("OPENAI_API_KEY", "sk-emu-codex-0123456789")
    result = images.imagine("a kite", aspect_ratio="square")
    request = emu.requests_for("openai-codex")[0]
    assert request.headers["authorization"] == "Bearer sk-emu-codex-0123456789"
    assert "chatgpt-account-id" not in request.headers and request.json["model"] == "gpt-5"
    assert result.envelope["auth"] == "api_key"
    assert result.cost == {"usd": 0.053, "estimated": True}  # medium tier, 1024x1024, from the price list


def test_expired_login_falls_back_or_says_so(emu: Emulator) -> None:
    write_login(exp=time.time() - 60)
    provider = image_providers.get("openai-codex")
    assert provider is not None and not provider.is_available()
    config.set_key("OPENAI_API_KEY", "sk-emu-codex-0123456789")
    assert provider.is_available()
    images.imagine("x")
    assert emu.requests_for("openai-codex")[0].headers["authorization"].startswith("Bearer sk-")
    config.set_key("OPENAI_API_KEY", None)
    envelope = provider.generate("x")
    assert envelope["error_type"] == "auth_required" and "expired" in envelope["error"]
    assert "hermes auth codex" in envelope["error"]


def test_edits_send_input_images(emu: Emulator, tmp_path: Path) -> None:
    write_login()
    ref = tmp_path / "ref.png"
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(out, "PNG")
    ref.write_bytes(out.getvalue())
    images.imagine("make it blue", reference_images=[str(ref), str(ref)])
    content = emu.requests_for("openai-codex")[0].json["input"][0]["content"]
    assert [p["type"] for p in content] == ["input_text", "input_image", "input_image"]
    assert content[1]["image_url"].startswith("data:image/png;base64,")


def test_account_without_the_tool_is_a_clear_error(emu: Emulator) -> None:
    write_login(NO_TOOL_ACCOUNT)
    with pytest.raises(ProviderNotConfiguredError, match="not enabled for this Codex/ChatGPT account"):
        images.imagine("x")


def test_partial_image_is_used_only_without_a_final_one(emu: Emulator) -> None:
    write_login()
    result = images.imagine("partial only please")
    assert result.envelope["final_image"] is False and result.envelope["partial_images"] == 1
    assert (result.width, result.height) == (192, 128)  # the emulator's small partial
    emu.fail("openai-codex", "empty")
    with pytest.raises(ParseError, match="without an image; the model said: I would rather describe it"):
        images.imagine("x")


def test_stream_moderation_is_content_policy(emu: Emulator) -> None:
    write_login()
    with pytest.raises(ContentPolicyError, match="safety system"):
        images.imagine("something forbidden")


@pytest.mark.parametrize(
    ("fault", "error", "match"),
    [
        ("auth", ProviderAuthError, "hermes auth codex"),
        ("429", RateLimitedError, "usage limit"),
        ("500", ProviderError, "500"),
    ],
)
def test_http_error_classes(emu: Emulator, fault: str, error: type[Exception], match: str) -> None:
    config.set("web.max_retries", 0)
    write_login()
    emu.fail("openai-codex", fault, times=None)
    with pytest.raises(error, match=match):
        images.imagine("x")


def test_unknown_tier_and_nothing_configured(emu: Emulator) -> None:
    write_login()
    with pytest.raises(InvalidInputError, match="gpt-image-2-low"):
        images.imagine("x", model="dall-e-3")
    (config.get_hermes_home() / "auth.json").unlink()
    with pytest.raises(ProviderNotConfiguredError):
        images.imagine("x")
    assert len(emu.requests_for("openai-codex")) == 0


def test_sse_parser_tolerates_unknown_events_and_comments() -> None:
    load_plugins()
    import sys

    provider = image_providers.get("openai-codex")
    sse = sys.modules[type(provider).__module__.rsplit(".", 1)[0] + ".sse"]
    text = (
        ": keep-alive\n\n"
        'event: response.brand_new_event\ndata: {"x": 1}\n\n'
        "event: response.output_item.done\n"
        'data: {"item": {"type": "image_generation_call", "result": "QUJD", "size": "1024x1024"}}\n\n'
        "data: [DONE]\n\n"
    )
    outcome = sse.read(text)
    assert outcome.image_b64 == "QUJD" and outcome.item == {
        "type": "image_generation_call",
        "size": "1024x1024",
    }


def test_an_api_key_alone_still_selects_openai() -> None:
    load_plugins()
    config.set_key("OPENAI_API_KEY", "sk-emu-codex-0123456789")
    provider = image_providers.get("openai-codex")
    assert provider is not None and not provider.is_available()
    assert images.resolve_image_provider().name == "openai"
    config.set("image_gen.provider", "openai-codex")
    assert provider.is_available() and images.resolve_image_provider().name == "openai-codex"
    config.set("image_gen.provider", None)
    write_login()
    assert provider.is_available()
