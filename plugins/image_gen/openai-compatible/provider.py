"""Any OpenAI-compatible image API: ``POST {base_url}/images/generations`` with OpenAI's request shape.

Configuration alone makes it work: ``image_gen.openai_compatible.base_url`` (required; hosted gateways
and local servers such as LocalAI or vLLM speak this shape) and ``image_gen.openai_compatible.model``;
as in Hermes, ``OPENAI_COMPATIBLE_IMAGE_BASE_URL`` / ``OPENAI_COMPATIBLE_IMAGE_MODEL`` win over them.
The key in ``OPENAI_COMPATIBLE_IMAGE_API_KEY`` is optional (a local server may take none); it goes only
to the configured base URL. Answers are JSON or, as some servers stream them, Server-Sent Events
(the ``done`` event, else the last event carrying an image). ``data[0].b64_json`` is saved; a
``data[0].url`` is downloaded at once (a URL on the configured host is the user's own choice).
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    ImageGenProvider,
    ImageRequest,
    ParseError,
    ProviderError,
    ProviderNotConfiguredError,
    config,
    first_item,
    json_or_none,
    save_b64_image,
    vendor_error,
    vendor_message,
)

NAME = "openai-compatible"
SECTION = "image_gen.openai_compatible"
KEY_ENV = "OPENAI_COMPATIBLE_IMAGE_API_KEY"
BASE_URL_ENV, MODEL_ENV = "OPENAI_COMPATIBLE_IMAGE_BASE_URL", "OPENAI_COMPATIBLE_IMAGE_MODEL"
DEFAULT_MODEL = "gpt-image-1"
SIZES = {"landscape": "1536x1024", "square": "1024x1024", "portrait": "1024x1536"}
#: OpenAI's optional request fields, passed through when given
PASS_THROUGH = ("quality", "background", "output_format", "output_compression", "response_format", "style",
                "moderation", "user", "size")  # fmt: skip


class OpenAICompatibleImageProvider(ImageGenProvider):
    """OpenAI's images request against the configured ``base_url``: a gateway or a local server."""

    name = NAME
    display_name = "OpenAI-compatible images"
    key_env = ""  # optional: OPENAI_COMPATIBLE_IMAGE_API_KEY is sent when set (a local server needs none)
    docs_url = "https://platform.openai.com/docs/api-reference/images/create"
    badge, tag = "self-hosted", "any OpenAI-compatible /images/generations endpoint"
    price_note = "billed by the server you configure"
    tier = "self-hosted"  # your server or gateway: no key needed to be available
    accepts_seed, accepts_negative_prompt = False, False
    creative_controls = ("style",)  # OpenAI's vivid / natural, passed on to servers that take it
    accepts_sizes = ("any",)

    def is_available(self) -> bool:
        """Available once ``image_gen.openai_compatible.base_url`` is set (the key is optional)."""
        return bool(_base_url())

    def list_models(self) -> list[dict[str, Any]]:
        model = self.resolve_model()
        return [{"id": model, "display": model, "price": "set by your server"}]

    def resolve_model(self, model: str | None = None) -> str:
        chosen = model or _env(MODEL_ENV) or config.get(f"{SECTION}.model") or config.get("image_gen.model")
        return str(chosen or DEFAULT_MODEL)

    def get_setup_schema(self) -> dict[str, Any]:
        schema = super().get_setup_schema()
        schema["settings"] = [f"{SECTION}.base_url", f"{SECTION}.model"]
        schema["optional_env_vars"] = [{"key": KEY_ENV, "prompt": "API key (optional)", "url": ""}]
        if not _base_url():
            schema["install"] = f"hn.config.set('{SECTION}.base_url', 'http://localhost:8000/v1')"
        return schema

    def base_url(self) -> str:
        base = _base_url()
        if not base:
            raise ProviderNotConfiguredError(
                f"the {NAME} image provider needs a server: set {SECTION}.base_url "
                "(e.g. hn.config.set('image_gen.openai_compatible.base_url', 'http://localhost:8000/v1'))",
                provider=NAME,
            )
        return base

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        base = self.base_url()
        body: dict[str, Any] = {
            "model": request.model,
            "prompt": request.prompt,
            "n": 1,
            "size": SIZES[request.aspect_ratio],
        }
        body.update({k: request.options[k] for k in PASS_THROUGH if request.options.get(k) is not None})
        headers = {"Accept": "application/json, text/event-stream"}
        key = config.resolve_key(KEY_ENV)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        response = self.send(
            "POST",
            f"{base}/images/generations",
            json=body,
            headers=headers,
            timeout=request.timeout_s,
            error_map=_error_for,
        )
        payload = _answer(response)
        first = first_item(payload)
        if first.get("b64_json"):
            image = str(
                save_b64_image(str(first["b64_json"]), prefix="openai_compatible",
                               extension=str(body.get("output_format") or "png"))
            )  # fmt: skip
        elif first.get("url"):
            image = str(first["url"])  # downloaded at once by the SDK
        else:
            raise self.no_image(f"the server at {base} answered without data[0].b64_json or data[0].url")
        return self.answer(
            request,
            image,
            size=payload.get("size") or body["size"],
            revised_prompt=first.get("revised_prompt"),
            base_url=base,
        )


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def _base_url() -> str:
    return str(_env(BASE_URL_ENV) or config.get(f"{SECTION}.base_url") or "").strip().rstrip("/")


def _answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON object, or the image event of a Server-Sent Events answer."""
    kind = response.headers.get("content-type", "").lower()
    if "text/event-stream" not in kind:
        payload = json_or_none(response)
        if isinstance(payload, dict):
            return payload
    events = _events(response.text)
    if not events and "text/event-stream" not in kind:
        raise ParseError(f"{NAME}: the server answered neither JSON nor events", provider=NAME)
    done = [data for event, data in events if event == "done"]
    with_image = [data for _event, data in events if _image_of(data)]
    for event, data in events:
        if event == "error":
            message = data.get("message") or data.get("error") or data
            raise ProviderError(f"{NAME}: the server reported an error: {message}", provider=NAME)
    chosen = (done or with_image or [data for _e, data in events] or [{}])[-1]
    return _normalised(chosen)


def _events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out, event = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and line[5:].strip() != "[DONE]":
            try:
                data = json.loads(line[5:].strip())
            except ValueError:
                continue
            if isinstance(data, dict):
                out.append((event, data))
    return out


def _image_of(data: dict[str, Any]) -> bool:
    items = data.get("data")
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    return bool(first.get("b64_json") or first.get("url") or data.get("b64_json") or data.get("url"))


def _normalised(data: dict[str, Any]) -> dict[str, Any]:
    """An event that carries the image at its top level (``{"b64_json": …}``) as ``{"data": [...]}``."""
    if isinstance(data.get("data"), list):
        return data
    for field in ("b64_json", "url"):
        if isinstance(data.get(field), str) and data[field].strip():
            return {**data, "data": [{field: data[field]}]}
    return data


def _error_for(response: httpx.Response) -> HermesError | None:
    message = vendor_message(json_or_none(response), response.status_code)
    return vendor_error(
        response,
        message,
        provider=NAME,
        vendor="the OpenAI-compatible server",
        key_env=KEY_ENV,
        refused=(400, 404, 422),
    )
