"""Black Forest Labs FLUX API: ``POST /v1/{model}`` → poll the returned ``polling_url`` → download ``sample``.

The ``x-key`` header goes with every poll, so a ``polling_url`` is followed only on BFL's own hosts
(``*.bfl.ai``, ``*.bfl.ml``, https) or the configured base's origin; anything else is replaced by
``{base}/v1/get_result?id=…``. ``Request Moderated`` / ``Content Moderated`` are ``CONTENT_POLICY``.
``result.sample`` is valid for ten minutes, so it is downloaded as soon as the task is ``Ready``.
The submit answer's ``cost`` (credits, $0.01 each) is recorded as the actual cost.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from hermes_nb.provider_api import (
    DEFAULT_ASPECT_RATIO,
    MIN_POLL_TIMEOUT_S,
    RETRY_UNSENT,
    ContentFetchError,
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
    get_client,
    reference_sources,
    save_url_image,
    success_response,
)

log = logging.getLogger(__name__)

KEY_ENV = "BFL_API_KEY"
DEFAULT_BASE_URL = "https://api.bfl.ai"
VENDOR_DOMAINS = ("bfl.ai", "bfl.ml")
DEFAULT_MODEL = "flux-2-pro"
USD_PER_CREDIT = 0.01
#: id → (label, documented USD per image or None, reference images accepted)
MODELS: dict[str, tuple[str, float | None, int]] = {
    "flux-2-pro": ("FLUX.2 [pro]", None, 8),
    "flux-2-max": ("FLUX.2 [max]", None, 8),
    "flux-2-flex": ("FLUX.2 [flex]", None, 8),
    "flux-2-klein-9b": ("FLUX.2 [klein] 9B", None, 4),
    "flux-pro-1.1": ("FLUX1.1 [pro]", 0.04, 0),
    "flux-pro-1.1-ultra": ("FLUX1.1 [pro] Ultra", 0.06, 0),
}
SIZES = {"landscape": (1344, 768), "square": (1024, 1024), "portrait": (768, 1344)}
ULTRA_ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
OPTIONS = ("seed", "safety_tolerance", "output_format", "prompt_upsampling", "raw", "steps", "guidance")
WAITING = ("Pending", "Queued", "Processing", "Reasoning", "Generating")
MODERATED = ("Request Moderated", "Content Moderated")
POLL_START, POLL_FACTOR, POLL_MAX = 0.5, 1.5, 2.0


class BFLImageProvider(ImageGenProvider):
    """FLUX.2 and FLUX1.1 on BFL's own API (submit, poll, download within the validity window)."""

    # Injectable for tests (fake clock): polling must not sleep for real in the suite.
    _sleep = staticmethod(time.sleep)
    _clock = staticmethod(time.monotonic)

    @property
    def name(self) -> str:
        return "bfl"

    @property
    def display_name(self) -> str:
        return "Black Forest Labs"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": mid,
                "display": label,
                "price": f"${price}/image" if price else "credits reported per request",
            }
            for mid, (label, price, _refs) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text", "image"],
            "max_reference_images": max(refs for _l, _p, refs in MODELS.values()),
            "seed": True,
            "negative_prompt": False,
            "sizes": ["any"],  # size="WxH" → width/height (the vendor checks its multiples and limits)
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "Black Forest Labs",
            "badge": "paid",
            "tag": "FLUX.2 and FLUX1.1 [pro] on BFL's API",
            "env_vars": [{"key": KEY_ENV, "prompt": "BFL API key", "url": "https://dashboard.bfl.ai/"}],
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
        _label, price, max_refs = MODELS.get(model, (model, None, 0))
        if len(sources) > max_refs:
            raise InvalidInputError(
                f"BFL model {model} takes at most {max_refs} reference images, got {len(sources)}"
                + ("; use flux-2-pro, which can edit" if max_refs == 0 else "")
            )
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"BFL needs an API key: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        body: dict[str, Any] = {"prompt": prompt}
        size = options.get("size")
        if model.endswith("-ultra"):
            if size:
                raise InvalidInputError(f"BFL {model} takes an aspect ratio, not size={size!r}")
            body["aspect_ratio"] = ULTRA_ASPECTS[aspect]
        else:
            body["width"], body["height"] = _size(size) if size else SIZES[aspect]
        body.update({k: v for k, v in options.items() if k in OPTIONS and v is not None})
        for index, source in enumerate(sources):
            body["input_image" if index == 0 else f"input_image_{index + 1}"] = _as_input(source)
        base = str(config.get("image_gen.bfl.base_url") or DEFAULT_BASE_URL).rstrip("/")
        headers = {"x-key": key, "accept": "application/json"}
        client = get_client(self.name)
        timeout = float(config.get("image_gen.timeout", 120.0))
        started = self._clock()
        # A second submit would run (and bill) a second task: no retry once sent.
        ticket = _json(
            client.request(
                "POST",
                f"{base}/v1/{model}",
                json=body,
                headers=headers,
                timeout=min(timeout, 60.0),
                error_map=_error_for,
                retry=RETRY_UNSENT,
            )
        )
        task_id = str(ticket.get("id") or "")
        if not task_id:
            raise ParseError("BFL answered the submit without a task id", provider=self.name)
        polling_url = _trusted(ticket.get("polling_url"), base) or f"{base}/v1/get_result?id={task_id}"
        result = self._wait(client, polling_url, headers, started, timeout, model)
        sample = result.get("sample")
        if not isinstance(sample, str) or not sample.startswith(("https://", "http://")):
            raise ProviderError("BFL's task is Ready but has no result.sample URL", provider=self.name)
        try:
            # The sample URL is valid for ten minutes: download now, never hand it out.
            path = save_url_image(sample, prefix=self.name, timeout=min(timeout, 60.0))
        except ContentFetchError as exc:
            raise ProviderError(
                f"BFL's result could not be downloaded (it is valid for 10 minutes after Ready): {exc}",
                provider=self.name,
            ) from exc
        return success_response(
            image=str(path),
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            modality="image" if sources else "text",
            extra={
                "seed": result.get("seed", options.get("seed")),
                "task_id": task_id,
                "cost": _cost(ticket, price),
                "input_mp": ticket.get("input_mp"),
                "output_mp": ticket.get("output_mp"),
            },
        )

    def _wait(
        self,
        client: Any,
        polling_url: str,
        headers: dict[str, str],
        started: float,
        timeout: float,
        model: str,
    ) -> dict[str, Any]:
        """Poll until Ready (returns ``result``), backing off 0.5 s → 2 s within one deadline."""
        from hermes_nb.provider_api import progress

        interval = POLL_START
        with progress(None, f"bfl {model}") as bar:
            while True:
                left = timeout - (self._clock() - started)
                if left <= 0:
                    raise TimeoutError_(
                        f"BFL task did not finish within image_gen.timeout={timeout:g}s; raise it with "
                        'hn.config.set("image_gen.timeout", 300) or try again later',
                        provider=self.name,
                    )
                answer = _json(
                    client.request(
                        "GET",
                        polling_url,
                        headers=headers,
                        # one poll gets at least MIN_POLL_TIMEOUT_S; the SDK's deadline bounds the whole call
                        timeout=max(MIN_POLL_TIMEOUT_S, min(left, 30.0)),
                        deadline=max(MIN_POLL_TIMEOUT_S, left),
                        error_map=_error_for,
                    )
                )
                status = str(answer.get("status") or "")
                bar.update()
                if status == "Ready":
                    result = answer.get("result")
                    return result if isinstance(result, dict) else {}
                if status in MODERATED:
                    raise ContentPolicyError(
                        f"BFL moderation stopped the task ({status}){_reasons(answer)}", provider=self.name
                    )
                if status == "Error":
                    raise ProviderError(f"BFL task failed{_reasons(answer)}", provider=self.name)
                if status == "Task not found":
                    raise ProviderError(
                        "BFL no longer knows this task (expired or submitted to another region)",
                        provider=self.name,
                    )
                if status not in WAITING:  # newer waiting states appear over time; the deadline still holds
                    log.info("BFL task status %r treated as still running", status)
                self._sleep(max(0.0, min(interval, timeout - (self._clock() - started))))
                interval = min(interval * POLL_FACTOR, POLL_MAX)


def _size(size: Any) -> tuple[int, int]:
    width, sep, height = str(size).lower().replace("×", "x").partition("x")
    if not (sep and width.strip().isdigit() and height.strip().isdigit()):
        raise InvalidInputError(f"size must be 'WIDTHxHEIGHT' (e.g. '1344x768'), got {size!r}")
    return int(width), int(height)


def _reasons(answer: dict[str, Any]) -> str:
    details = answer.get("details")
    if isinstance(details, dict) and details:
        reasons = details.get("Moderation Reasons") or details.get("error") or details
        return f": {reasons}"
    return ""


def _cost(ticket: dict[str, Any], price: float | None) -> dict[str, Any] | None:
    spent = ticket.get("cost")
    if isinstance(spent, (int, float)) and not isinstance(spent, bool):
        return {"usd": round(spent * USD_PER_CREDIT, 6), "credits": spent, "estimated": False}
    return {"usd": price, "estimated": True} if price is not None else None


def _trusted(url: Any, base: str) -> str | None:
    """``url`` when the key may travel there: BFL's https hosts or the configured base's origin."""
    if not isinstance(url, str) or not url:
        return None
    got, want = urlsplit(url), urlsplit(base)
    if (got.scheme, got.netloc) == (want.scheme, want.netloc):
        return url
    host = (got.hostname or "").lower()
    on_vendor = any(host == d or host.endswith("." + d) for d in VENDOR_DOMAINS)
    return url if got.scheme == "https" and on_vendor else None


def _as_input(source: str) -> str:
    """BFL takes a public URL or raw base64 for ``input_image*``."""
    if source.startswith("https://"):
        return source
    from hermes_nb.provider_api import read_image_source

    return read_image_source(source).data_uri().split(",", 1)[1]


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as exc:
        raise ParseError("BFL answered with invalid JSON; try again", provider="bfl") from exc
    if not isinstance(body, dict):
        raise ParseError("BFL answered with JSON that is not an object", provider="bfl")
    return body


def _error_for(response: httpx.Response) -> HermesError | None:
    """FastAPI ``{"detail": ...}`` (422 lists fields) or ``{"error", "message", "retry_after"}`` (429)."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    body = body if isinstance(body, dict) else {}
    detail = body.get("detail")
    if isinstance(detail, list):
        message = "; ".join(
            f"{'.'.join(str(p) for p in d.get('loc', [])[1:])}: {d.get('msg')}"
            for d in detail
            if isinstance(d, dict)
        )
    else:
        message = str(detail or body.get("message") or body.get("error") or f"HTTP {status}")
    if status in (401, 403):
        return ProviderAuthError(
            f"BFL rejected the key ({message}); check {KEY_ENV}", provider="bfl", status=status
        )
    if status == 402:
        return ProviderError(
            f"BFL account is out of credits ({message}); top up at dashboard.bfl.ai",
            provider="bfl",
            status=status,
        )
    if status == 429:
        retry_after = body.get("retry_after")
        return RateLimitedError(
            f"BFL rate limit: {message}",
            provider="bfl",
            status=status,
            retry_after=float(retry_after) if isinstance(retry_after, (int, float)) else None,
        )
    if status in (400, 404, 422):
        return InvalidInputError(f"BFL refused the request: {message}", provider="bfl", status=status)
    return None
