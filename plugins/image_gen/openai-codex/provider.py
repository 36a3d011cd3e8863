"""``openai-codex``: gpt-image-2 through the Responses API ``image_generation`` tool, streamed (SSE).

Signed in with Codex/ChatGPT (``$HERMES_HOME/auth.json``) it calls the Codex backend, which wants
``stream``, ``store: false`` and non-empty ``instructions``; otherwise ``OPENAI_API_KEY`` calls the
public Responses API with the same body. Partial images are counted and used only when no final
image arrives.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from hermes_nb.provider_api import (
    ImageGenProvider,
    ImageRequest,
    config,
    errors,
    json_or_none,
    read_image_source,
    retry_after_s,
    save_b64_image,
)

from . import auth, sse

MODEL_ENV = "OPENAI_IMAGE_MODEL"  # shared with the openai provider, as in Hermes
API_MODEL = "gpt-image-2"
DEFAULT_MODEL = "gpt-image-2-medium"
TIERS = ("low", "medium", "high")
HOST_MODEL = {"codex": "gpt-5.5", "api": "gpt-5"}  # the chat model that calls the tool
SIZES = {"landscape": "1536x1024", "square": "1024x1024", "portrait": "1024x1536"}
#: List prices per gpt-image-2 image (USD) at 1024x1024 / the 3:2 sizes (reference §2): estimates.
PRICES = {"low": (0.006, 0.009), "medium": (0.053, 0.08), "high": (0.211, 0.32)}
TIMEOUT = 300.0
INSTRUCTIONS = "Fulfil the request by calling the image_generation tool once; do not answer in text."
NO_TOOL = "Tool choice 'image_generation' not found in 'tools' parameter."
TOOL_OPTIONS = ("size", "quality", "output_format", "output_compression", "background", "moderation")


class OpenAICodexImageProvider(ImageGenProvider):
    """gpt-image-2 tiers (``gpt-image-2-low|medium|high``) via the Codex login or an OpenAI API key."""

    name = "openai-codex"
    display_name = "OpenAI (Codex sign-in)"
    model_env = MODEL_ENV  # shared with the openai provider, as in Hermes
    badge, tag = "subscription", "gpt-image-2 with your ChatGPT/Codex login, or an OpenAI API key"
    install_hint = (
        "sign in with `hermes auth codex` ($HERMES_HOME/auth.json), or set "
        f"image_gen.provider to 'openai-codex' to use {auth.KEY_ENV}"
    )
    max_reference_images = 16
    accepts_seed, accepts_negative_prompt = False, False
    accepts_sizes = ("auto", "any")

    def is_available(self) -> bool:
        # A Codex login makes it available; OPENAI_API_KEY only when it is the chosen provider, so
        # that the key alone keeps selecting ``openai`` (a key never opts into a second backend).
        if auth.codex_login()[0]:
            return True
        chosen = str(config.get("image_gen.provider") or "").strip().lower() == self.name
        return chosen and bool(config.resolve_key(auth.KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": f"{API_MODEL}-{tier}",
                "display": f"GPT Image 2 ({tier})",
                "price": f"ChatGPT plan; with an API key ~${PRICES[tier][0]:.3f}/image (1024x1024)",
            }
            for tier in TIERS
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model, sources, options = request.model, request.references, request.options
        credential = auth.resolve()
        if credential is None or not credential.secret:
            problem = f"{credential.note}; or set {auth.KEY_ENV}" if credential else ""
            raise (errors.ProviderAuthError if credential else errors.ProviderNotConfiguredError)(
                problem
                or f"openai-codex needs a Codex/ChatGPT sign-in (`hermes auth codex`) or {auth.KEY_ENV}",
                provider=self.name,
            )
        quality = _quality(model)
        tool: dict[str, Any] = {
            "type": "image_generation",
            "model": API_MODEL,
            "size": SIZES[request.aspect_ratio],
            "quality": quality,
            "output_format": "png",
            "background": "opaque",
            "partial_images": int(options.get("partial_images", 1)),
        }
        tool.update({k: options[k] for k in TOOL_OPTIONS if options.get(k) is not None})
        content: list[dict[str, Any]] = [{"type": "input_text", "text": request.prompt}]
        content += [{"type": "input_image", "image_url": _image_url(s)} for s in sources]
        body = {
            "model": str(options.get("host_model") or HOST_MODEL[credential.mode]),
            "instructions": INSTRUCTIONS,
            "input": [{"type": "message", "role": "user", "content": content}],
            "tools": [tool],
            "tool_choice": {
                "type": "allowed_tools",
                "mode": "required",
                "tools": [{"type": "image_generation"}],
            },
            "store": False,
            "stream": True,
        }
        headers = {"Authorization": f"Bearer {credential.secret}", "Accept": "text/event-stream"}
        if credential.mode == "codex":
            headers.update(
                {
                    "OpenAI-Beta": "responses=experimental",
                    "originator": "codex_cli_rs",
                    "User-Agent": "codex_cli_rs/0.0.0 (hermes_nb)",
                    "session_id": uuid.uuid4().hex,
                }
            )
            if credential.account_id:
                headers["ChatGPT-Account-ID"] = credential.account_id
        # The stream is read whole (the client caps its size); a started generation is never re-sent.
        response = self.send(
            "POST",
            f"{credential.base_url}/responses",
            json=body,
            headers=headers,
            timeout=max(request.timeout_s, TIMEOUT),
            error_map=lambda r: _error_for(r, credential.mode),
            max_bytes=64 * 1024 * 1024,
        )
        outcome = sse.read(response.text)
        if outcome.error and not outcome.image_b64:
            raise _stream_error(outcome.error)
        image_b64 = outcome.image_b64 or outcome.partial_b64
        if not image_b64:
            said = f"; the model said: {outcome.text.strip()[:300]}" if outcome.text.strip() else ""
            raise errors.ParseError(f"the Responses stream ended without an image{said}", provider=self.name)
        item = outcome.item
        size = str(item.get("size") or tool["size"])
        path = save_b64_image(image_b64, prefix=self.name, extension=str(tool["output_format"]))
        return self.answer(
            request,
            path,
            size=size,
            quality=item.get("quality") or quality,
            revised_prompt=item.get("revised_prompt"),
            auth="codex" if credential.mode == "codex" else "api_key",
            partial_images=outcome.partials,
            final_image=bool(outcome.image_b64),
            usage=outcome.usage or None,
            cost=_cost(credential.mode, str(item.get("quality") or quality), size),
        )


def _quality(model: str) -> str:
    name = model.strip().lower()
    for tier in TIERS:
        if name == f"{API_MODEL}-{tier}":
            return tier
    if name == API_MODEL:
        return "medium"
    raise errors.InvalidInputError(
        f"openai-codex serves {API_MODEL}-low, {API_MODEL}-medium and {API_MODEL}-high, not {model!r}"
    )


def _image_url(source: str) -> str:
    text = source.strip()
    return text if text.startswith("https://") else read_image_source(text).data_uri()


def _cost(mode: str, quality: str, size: str) -> dict[str, Any] | None:
    if mode == "codex":
        return {"usd": 0.0, "estimated": True, "note": "billed to the ChatGPT plan"}
    prices = PRICES.get(quality)
    if prices is None:
        return None
    return {"usd": prices[0] if size == "1024x1024" else prices[1], "estimated": True}


def _stream_error(error: dict[str, Any]) -> errors.HermesError:
    code = str(error.get("code") or "")
    message = str(error.get("message") or code or "the image generation failed")
    if code in ("moderation_blocked", "content_policy_violation") or "safety system" in message:
        return errors.ContentPolicyError(
            f"OpenAI's safety system rejected the image: {message}", provider="openai-codex"
        )
    if code in ("rate_limit_exceeded", "usage_limit_reached"):
        return errors.RateLimitedError(f"OpenAI usage limit: {message}", provider="openai-codex")
    return errors.ProviderError(
        f"the image generation failed ({code or 'error'}): {message}", provider="openai-codex"
    )


def _error_for(response: httpx.Response, mode: str) -> errors.HermesError | None:
    """HTTP errors before the stream: the missing tool, bad logins/keys, moderation, limits."""
    body = json_or_none(response)
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    message = str(error.get("message") or (body or {}).get("detail") or f"HTTP {response.status_code}")
    status = response.status_code
    kw: dict[str, Any] = {"provider": "openai-codex", "status": status}
    if status == 400 and message.strip() == NO_TOOL:
        return errors.ProviderNotConfiguredError(
            "image generation is not enabled for this Codex/ChatGPT account (the Responses backend has no "
            "image_generation tool for it); use image_gen.provider 'openai' with an API key, or fal / xai",
            **kw,
        )
    if str(error.get("code") or "") in ("moderation_blocked", "content_policy_violation"):
        return errors.ContentPolicyError(f"OpenAI's safety system rejected the request: {message}", **kw)
    if status in (401, 403):
        fix = auth.SIGN_IN_HINT if mode == "codex" else f"check {auth.KEY_ENV}"
        return errors.ProviderAuthError(f"OpenAI rejected the credentials ({message}); {fix}", **kw)
    if status == 429:
        return errors.RateLimitedError(
            f"OpenAI rate/usage limit: {message}", retry_after=retry_after_s(response), **kw
        )
    if status in (400, 404, 422):
        return errors.InvalidInputError(f"the Responses API refused the request: {message}", **kw)
    return None
