"""fal.ai queue API: ``POST /{model}`` → poll the returned ``status_url`` → ``GET`` the ``response_url``.

The status and result live under ``{owner}/{app}/requests/{id}`` without the model's subpath
(``fal-ai/flux/schnell`` is polled at ``fal-ai/flux/requests/…``), so the URLs the queue returns
are used; they are followed only when they point at the configured host, because they carry the key.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from hermes_nb.provider_api import (
    DEFAULT_ASPECT_RATIO,
    MIN_POLL_TIMEOUT_S,
    RETRY_UNSENT,
    ContentPolicyError,
    HermesError,
    ImageGenProvider,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
    RateLimitedError,
    TimeoutError_,
    answer_or_error,
    config,
    configured_model,
    error_response,
    get_client,
    reference_sources,
    save_b64_image,
    success_response,
)

KEY_ENV = "FAL_KEY"
DEFAULT_BASE_URL = "https://queue.fal.run"
DEFAULT_MODEL = "fal-ai/flux-2/klein/9b"  # Hermes's default
IMAGE_SIZES = {"landscape": "landscape_16_9", "square": "square_hd", "portrait": "portrait_16_9"}
_COMMON = ("image_size", "seed", "num_images", "output_format", "enable_safety_checker", "sync_mode")
#: id → (label, USD per megapixel or None, accepted option names, edit endpoint or None)
MODELS: dict[str, tuple[str, float | None, tuple[str, ...], str | None]] = {
    "fal-ai/flux-2/klein/9b": (
        "FLUX.2 [klein] 9B",
        None,
        (*_COMMON, "num_inference_steps", "guidance_scale"),
        "fal-ai/flux-2/klein/9b/edit",
    ),
    "fal-ai/flux/schnell": ("FLUX.1 [schnell]", 0.003, (*_COMMON, "num_inference_steps"), None),
    "fal-ai/flux/dev": ("FLUX.1 [dev]", 0.025, (*_COMMON, "num_inference_steps", "guidance_scale"), None),
    "fal-ai/flux-pro/v1.1": ("FLUX1.1 [pro]", 0.04, (*_COMMON, "safety_tolerance"), None),
}
MAX_REFERENCES = 4
POLL_START, POLL_FACTOR, POLL_MAX = 0.25, 1.5, 2.0


class FalImageProvider(ImageGenProvider):
    """FLUX on fal's queue; a job that never finishes stops at ``image_gen.timeout``."""

    # Injectable for tests (fake clock): polling must not sleep for real in the suite.
    _sleep = staticmethod(time.sleep)
    _clock = staticmethod(time.monotonic)

    @property
    def name(self) -> str:
        return "fal"

    @property
    def display_name(self) -> str:
        return "fal.ai"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"${price}/MP" if price else "see fal.ai pricing"}
            for mid, (label, price, _, _) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text", "image"],
            "max_reference_images": MAX_REFERENCES,
            "seed": True,
            "negative_prompt": False,
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "fal.ai",
            "badge": "paid",
            "tag": "FLUX models on fal's queue",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "fal.ai API key", "url": "https://fal.ai/dashboard/keys"}
            ],
        }

    def generate(
        self,
        prompt: str,
        aspect_ratio: str = DEFAULT_ASPECT_RATIO,
        *,
        image_url: str | None = None,
        reference_image_urls: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        model = str(kwargs.pop("model", None) or configured_model(self.name, DEFAULT_MODEL))
        sources = reference_sources(image_url, reference_image_urls)
        return answer_or_error(
            self.name, prompt, aspect_ratio, model,
            lambda aspect: self._generate(prompt, aspect, model, sources, kwargs),
        )  # fmt: skip

    def _generate(
        self, prompt: str, aspect: str, model: str, sources: list[str], options: dict[str, Any]
    ) -> dict[str, Any]:
        prompt = (prompt or "").strip()
        if not prompt:
            raise InvalidInputError("prompt is required for image generation")
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"fal.ai needs an API key: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        _label, price, supports, edit_endpoint = MODELS.get(model, (model, None, (*_COMMON,), None))
        payload: dict[str, Any] = {"prompt": prompt, "image_size": IMAGE_SIZES[aspect], "num_images": 1}
        payload.update({k: v for k, v in options.items() if k in supports and v is not None})
        endpoint = model
        if sources:
            if edit_endpoint is None:
                raise InvalidInputError(
                    f"fal model {model} takes no reference images; use {DEFAULT_MODEL}, which can edit"
                )
            endpoint = edit_endpoint
            payload["image_urls"] = [_as_url(s) for s in sources]
        base = str(config.get("image_gen.fal.base_url") or DEFAULT_BASE_URL).rstrip("/")
        headers = {"Authorization": f"Key {key}"}
        client = get_client(self.name)
        timeout = float(config.get("image_gen.timeout", 120.0))
        started = self._clock()
        # Submitting twice would enqueue (and bill) two jobs: no retry once sent.
        submitted = client.request(
            "POST",
            f"{base}/{endpoint}",
            json=payload,
            headers=headers,
            timeout=min(timeout, 60.0),
            error_map=_error_for,
            retry=RETRY_UNSENT,
        )
        ticket = _json(submitted)
        request_id = str(ticket.get("request_id") or "")
        if not request_id:
            raise ParseError("fal's queue answered without a request_id", provider=self.name)
        app = "/".join(endpoint.split("/")[:2])
        status_url = (
            _same_origin(ticket.get("status_url"), base) or f"{base}/{app}/requests/{request_id}/status"
        )
        result_url = _same_origin(ticket.get("response_url"), base) or f"{base}/{app}/requests/{request_id}"
        self._wait(client, status_url, headers, started, timeout, model)
        result = client.request(
            "GET", result_url, headers=headers, timeout=min(timeout, 60.0), error_map=_error_for
        )
        body = _json(result)
        images = body.get("images")
        first = images[0] if isinstance(images, list) and images and isinstance(images[0], dict) else {}
        url = str(first.get("url") or "")
        if not url:
            return error_response(
                error="fal returned no image",
                error_type="empty_response",
                provider=self.name,
                model=model,
                prompt=prompt,
                aspect_ratio=aspect,
            )
        nsfw = body.get("has_nsfw_concepts")
        if isinstance(nsfw, list) and nsfw and nsfw[0] is True:
            raise ContentPolicyError(
                "fal's safety checker flagged the image (it came back blacked out)", provider=self.name
            )
        image = str(save_b64_image(url, prefix=self.name)) if url.startswith("data:") else url
        return success_response(
            image=image,
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            modality="image" if sources else "text",
            extra={
                "seed": body.get("seed", options.get("seed")),
                "image_size": payload["image_size"],
                "request_id": request_id,
                "cost": _cost(price, result.headers.get("x-fal-billable-units"), first),
            },
        )

    def _wait(
        self,
        client: Any,
        status_url: str,
        headers: dict[str, str],
        started: float,
        timeout: float,
        model: str,
    ) -> None:
        """Poll until COMPLETED, backing off from 0.25 s to 2 s, within one overall deadline."""
        from hermes_nb.provider_api import progress

        interval = POLL_START
        with progress(None, f"fal {model}") as bar:
            while True:
                left = timeout - (self._clock() - started)
                if left <= 0:
                    raise TimeoutError_(
                        f"fal job did not finish within image_gen.timeout={timeout:g}s; raise it with "
                        'hn.config.set("image_gen.timeout", 300) or try again later',
                        provider=self.name,
                    )
                status = _json(
                    client.request(
                        "GET",
                        status_url,
                        params={"logs": 0},
                        headers=headers,
                        # one poll gets at least MIN_POLL_TIMEOUT_S; the SDK's deadline bounds the whole call
                        timeout=max(MIN_POLL_TIMEOUT_S, min(left, 30.0)),
                        deadline=max(MIN_POLL_TIMEOUT_S, left),
                        error_map=_error_for,
                    )
                )
                state = str(status.get("status") or "")
                bar.update()
                if state == "COMPLETED":
                    if status.get("error"):
                        raise ProviderError(f"fal job failed: {status['error']}", provider=self.name)
                    return
                if state not in ("IN_QUEUE", "IN_PROGRESS"):
                    raise ParseError(f"fal's queue reported an unknown status {state!r}", provider=self.name)
                self._sleep(max(0.0, min(interval, timeout - (self._clock() - started))))
                interval = min(interval * POLL_FACTOR, POLL_MAX)


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as exc:
        raise ParseError("fal answered with invalid JSON; try again", provider="fal") from exc
    if not isinstance(body, dict):
        raise ParseError("fal answered with JSON that is not an object", provider="fal")
    return body


def _same_origin(url: Any, base: str) -> str | None:
    if not isinstance(url, str) or not url:
        return None
    got, want = urlsplit(url), urlsplit(base)
    return url if (got.scheme, got.netloc) == (want.scheme, want.netloc) else None


def _as_url(source: str) -> str:
    """fal fetches ``image_urls`` itself: public URLs pass; local files and others travel as data URIs."""
    if source.startswith(("https://", "data:")):
        return source
    from hermes_nb.provider_api import read_image_source

    return read_image_source(source).data_uri()


def _cost(price: float | None, units: str | None, image: dict[str, Any]) -> dict[str, Any] | None:
    if price is None:
        return None
    try:
        megapixels = float(units) if units else int(image["width"]) * int(image["height"]) / 1_000_000
    except (KeyError, TypeError, ValueError):
        return None
    return {"usd": round(price * max(1, -(-megapixels // 1)), 6), "estimated": True}


def _error_for(response: httpx.Response) -> HermesError | None:
    """FastAPI-style ``{"detail": ...}`` bodies: 422 lists what was wrong with the input."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):
        message = "; ".join(
            f"{'.'.join(str(p) for p in d.get('loc', [])[1:])}: {d.get('msg')}"
            for d in detail
            if isinstance(d, dict)
        )
    else:
        message = str(detail or f"HTTP {status}")
    if status in (401, 403):
        return ProviderAuthError(
            f"fal rejected the key ({message}); check {KEY_ENV}", provider="fal", status=status
        )
    if status == 429:
        return RateLimitedError(f"fal rate limit: {message}", provider="fal", status=status)
    if status in (400, 404, 422):
        return InvalidInputError(f"fal refused the request: {message}", provider="fal", status=status)
    return None
