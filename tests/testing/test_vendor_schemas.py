"""Every request our OpenAI-, xAI-, OpenRouter- and Exa-speaking providers send, and every answer the
emulator gives them, validated against the vendor's own published OpenAPI document.

The documents live outside the repository (``shared/reference/openapi/`` beside the checkout, or the
workplace's copy); the test skips with a message naming the folder when neither is there. The
emulator is ours; these documents are not: a request that only our emulator accepts fails here.

Validation uses ``openapi-core``. The adjustments to the documents, each explained where it is made:
``discriminator`` hints are dropped and ``oneOf`` is read as ``anyOf`` (OpenAI's document names no
discriminator mapping, so the validator would look for schemas named after each ``type`` value, and
some of its alternatives overlap — ``EasyInputMessage`` and ``InputMessage`` both fit a typed user
message — so exactly-one can never hold; an unknown tool or item type is still rejected). Two vendors
document their own departures from OpenAI's shapes, and only those are admitted, for that vendor
only: OpenRouter's ``modalities: ["image", "text"]``, and xAI's image answer
(``url``/``b64_json`` null when not asked for, ``usage: {"cost_in_usd_ticks": …}``).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from vendor_docs import SKIP_REASON, SPEC_DIR, document

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.testing import Emulator, use_emulator

openapi_core = pytest.importorskip("openapi_core", reason="pip install openapi-core (the dev extra has it)")

pytestmark = pytest.mark.skipif(SPEC_DIR is None, reason=SKIP_REASON)

#: emulator provider → (vendor document, the path prefix the vendor's server URL adds)
VENDOR_OF = {
    "openai": ("openai", "/v1"),
    "openai-codex": ("openai", "/v1"),
    "xai": ("openai", "/v1"),
    "openrouter": ("openrouter", "/v1"),
    "openai-compatible": ("openai", "/v1"),  # image_gen's config-only provider: OpenAI's images API
    "deepinfra": ("openai", "/v1"),  # DeepInfra's OpenAI-style images endpoint
    "exa": ("exa", ""),
}
#: the endpoints each document describes; a recorded request to any other path is not checked here
DESCRIBED = {
    "openai": ("/images/generations", "/images/edits", "/responses", "/chat/completions"),
    "openrouter": ("/chat/completions",),
    "exa": ("/search", "/contents", "/findSimilar", "/answer"),
}
SERVER = {
    "openai": "https://api.openai.com",
    "openrouter": "https://api.openai.com",
    "xai": "https://api.openai.com",
    "exa": "https://api.exa.ai",
}


def _loosen_alternatives(node: Any) -> None:
    """Drop ``discriminator`` hints and read ``oneOf`` as ``anyOf`` (see the module docstring)."""
    if isinstance(node, dict):
        node.pop("discriminator", None)
        if "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
        for value in node.values():
            _loosen_alternatives(value)
    elif isinstance(node, list):
        for value in node:
            _loosen_alternatives(value)


@functools.cache
def _document(name: str) -> dict[str, Any]:
    spec = copy.deepcopy(document(name))  # the shared parse stays as published
    _loosen_alternatives(spec)
    return spec


def _openrouter_document() -> dict[str, Any]:
    """OpenAI's chat-completions shape, with the one field OpenRouter documents beyond it.

    OpenRouter's image generation (openrouter.ai/docs, "Image Generation") asks for
    ``modalities: ["image", "text"]``; OpenAI's document allows only ``text`` and ``audio``.
    """
    spec = copy.deepcopy(_document("openai"))
    props = spec["components"]["schemas"]["CreateChatCompletionRequest"]["allOf"][1]["properties"]
    props["modalities"] = {"type": "array", "items": {"type": "string", "enum": ["text", "image", "audio"]}}
    return spec


def _xai_document() -> dict[str, Any]:
    """OpenAI's images answer with xAI's documented differences (docs.x.ai, "Image Generation";
    the xai-sdk's cost module): ``url`` and ``b64_json`` are null when not asked for, and ``usage``
    is ``{"cost_in_usd_ticks": int}`` (1 tick = 1e-10 USD) instead of token counts."""
    spec = copy.deepcopy(_document("openai"))
    schemas = spec["components"]["schemas"]
    image = schemas["Image"]["properties"]
    for field in ("url", "b64_json"):
        image[field] = {"anyOf": [image[field], {"type": "null"}]}
    schemas["ImagesResponse"]["properties"]["usage"] = {
        "type": "object", "properties": {"cost_in_usd_ticks": {"type": "integer"}}
    }
    return spec


@functools.cache
def _api(name: str) -> Any:
    from openapi_core import Config, OpenAPI

    variants = {"openrouter": _openrouter_document, "xai": _xai_document}
    spec = variants[name]() if name in variants else _document(name)
    # The published OpenAI document repeats names in a few `required` lists, which the strict spec
    # check rejects; the schemas themselves are what we validate against.
    return OpenAPI.from_dict(spec, config=Config(spec_validator_cls=None))


def _vendor_path(provider: str, emulator_path: str) -> tuple[str, str] | None:
    """(document, API path) of a recorded request, or None when the document does not describe it."""
    vendor, server_prefix = VENDOR_OF[provider]
    for api_path in DESCRIBED[vendor]:
        if emulator_path.rstrip("/").endswith(api_path):
            return vendor, server_prefix + api_path
    return None


def _short(data: bytes) -> str:
    """A body for a failure message: base64 payloads cut, at most 600 characters."""
    text = data.decode("utf-8", "replace")
    text = re.sub(r'"(b64_json|result|image_url|url)": "([^"]{40})[^"]*"', r'"\1": "\2…"', text)
    return text[:600]


def _validation_problem(exc: Exception) -> str:
    cause = exc.__cause__
    details = [str(e).split("\n\n")[0][:300] for e in getattr(cause, "schema_errors", None) or []]
    return f"{type(exc).__name__}: {str(exc)[:200]}" + (f" — {details}" if details else "")


def _check_request(provider: str, request: Any) -> tuple[str, str] | None:
    from openapi_core.testing import MockRequest

    where = _vendor_path(provider, request.path)
    if where is None:
        return None
    vendor, path = where
    content_type = request.headers.get("content-type", "application/json").split(";")[0]
    if content_type != "application/json":
        return where  # multipart edits: their fields are checked in the provider's own tests
    mock = MockRequest(
        SERVER[vendor], request.method.lower(), path, data=request.body, content_type=content_type,
        headers={"Authorization": "Bearer sk-schema-test", "x-api-key": "schema-test"},
    )
    try:
        _api(vendor).validate_request(mock)
    except Exception as exc:
        pytest.fail(
            f"{provider} sent a request to {path} that {vendor}'s own document rejects:\n"
            f"{_validation_problem(exc)}\nbody: {_short(request.body)}"
        )
    return where


def _check_response(provider: str, emu: Emulator, request: Any) -> None:
    """Send the recorded request to the emulator again and validate its answer against the document."""
    from openapi_core.testing import MockRequest, MockResponse

    where = _vendor_path(provider, request.path)
    if where is None:
        return
    vendor, path = where
    if provider == "xai" and path.endswith("/images/generations"):
        vendor = "xai"
    headers = {k: v for k, v in request.headers.items() if k not in ("host", "content-length")}
    reply = httpx.request(request.method, emu.url + request.path, content=request.body, headers=headers,
                          timeout=30)
    content_type = reply.headers.get("content-type", "").split(";")[0]
    if content_type != "application/json":
        return  # streamed (SSE) answers: parsed and checked by the provider's own tests
    mock_request = MockRequest(SERVER[vendor], request.method.lower(), path, data=request.body,
                               content_type="application/json")
    mock_response = MockResponse(reply.content, status_code=reply.status_code, content_type=content_type)
    try:
        _api(vendor).validate_response(mock_request, mock_response)
    except Exception as exc:
        pytest.fail(
            f"the emulator's answer to {provider} {path} breaks {vendor}'s own document:\n"
            f"{_validation_problem(exc)}\nanswer: {_short(reply.content)}"
        )


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator, use_emulator(emulator):
        yield emulator


def _validated(emu: Emulator, provider: str) -> list[tuple[str, str]]:
    requests = emu.requests_for(provider)
    assert requests, f"{provider} sent nothing to the emulator"
    checked = []
    for request in requests:
        where = _check_request(provider, request)
        if where is not None:
            _check_response(provider, emu, request)
            checked.append(where)
    return checked


def test_openai_images_requests_and_answers_match_openais_document(emu: Emulator) -> None:
    hn.imagine("a lighthouse at dusk", backend="openai", aspect_ratio="landscape", no_cache=True)
    hn.imagine("a lighthouse at dawn", backend="openai", aspect_ratio="square", no_cache=True, quality="low")
    checked = _validated(emu, "openai")
    assert ("openai", "/v1/images/generations") in checked


def test_openai_codex_responses_request_matches_openais_document(emu: Emulator) -> None:
    config.set("image_gen.provider", "openai-codex")  # the API-key path (a Codex login goes elsewhere)
    hn.imagine("a lighthouse", backend="openai-codex", aspect_ratio="portrait", no_cache=True)
    checked = _validated(emu, "openai-codex")
    assert ("openai", "/v1/responses") in checked


def test_xai_web_search_request_matches_openais_responses_document(emu: Emulator) -> None:
    hn.search("lighthouses of brittany", backend="xai", no_cache=True)
    config.set("web.xai.allowed_domains", ["arxiv.org"])  # on the tool itself, as xAI documents it
    hn.search("fusion", backend="xai", no_cache=True)
    checked = _validated(emu, "xai")
    assert ("openai", "/v1/responses") in checked


def test_xai_images_request_matches_openais_images_document(emu: Emulator) -> None:
    hn.imagine("a lighthouse", backend="xai", no_cache=True)
    checked = _validated(emu, "xai")
    assert ("openai", "/v1/images/generations") in checked


def test_openrouter_chat_completions_request_matches_the_document(emu: Emulator) -> None:
    hn.imagine("a lighthouse", backend="openrouter", aspect_ratio="square", no_cache=True)
    checked = _validated(emu, "openrouter")
    assert ("openrouter", "/v1/chat/completions") in checked


def test_openai_compatible_images_request_and_answer_match_openais_document(emu: Emulator) -> None:
    """The config-only provider speaks OpenAI's images API to whatever host the user names."""
    config.set("image_gen.openai_compatible.model", "flux-local")
    hn.imagine("a lighthouse", backend="openai-compatible", aspect_ratio="square", no_cache=True)
    checked = _validated(emu, "openai-compatible")
    assert ("openai", "/v1/images/generations") in checked


def test_deepinfra_images_request_and_answer_match_openais_document(emu: Emulator) -> None:
    hn.imagine("a lighthouse", backend="deepinfra", aspect_ratio="square", no_cache=True)
    checked = _validated(emu, "deepinfra")
    assert ("openai", "/v1/images/generations") in checked


def test_exa_search_and_contents_match_exas_document(emu: Emulator) -> None:
    config.set_key("EXA_API_KEY", "emu-exa-key")  # with no key exa answers through its keyless MCP endpoint
    hn.search("lighthouses", backend="exa", limit=3, no_cache=True)
    hn.extract([emu.page_url("/site/")], backend="exa", no_cache=True)
    checked = _validated(emu, "exa")
    assert ("exa", "/search") in checked and ("exa", "/contents") in checked


def test_a_request_the_document_forbids_is_caught() -> None:
    """The check can fail: a tool type OpenAI does not define is rejected."""
    from openapi_core.testing import MockRequest

    bad = json.dumps({"model": "gpt-5", "input": "hi", "tools": [{"type": "web_search_everything"}]})
    mock = MockRequest(SERVER["openai"], "post", "/v1/responses", data=bad.encode(),
                       content_type="application/json", headers={"Authorization": "Bearer sk-x"})
    with pytest.raises(Exception, match="body"):
        _api("openai").validate_request(mock)
