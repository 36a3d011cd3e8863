"""Black Forest Labs FLUX API: ``POST /v1/{model}`` → poll the returned ``polling_url`` → download ``sample``.

The ``x-key`` header goes with every poll, so a ``polling_url`` is followed only on BFL's own hosts
(``*.bfl.ai``, ``*.bfl.ml``, https) or the configured base's origin; anything else is replaced by
``{base}/v1/get_result?id=…``. ``Request Moderated`` / ``Content Moderated`` are ``CONTENT_POLICY``.
``result.sample`` is valid for ten minutes, so it is downloaded as soon as the task is ``Ready``.
The submit answer's ``cost`` (credits, $0.01 each) is recorded as the actual cost.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import httpx

from hermes_nb.provider_api import (
    Backoff,
    ImageGenProvider,
    ImageRequest,
    PolledJob,
    errors,
    json_or_none,
    save_url_image,
    vendor_error,
    vendor_message,
)

log = logging.getLogger(__name__)

KEY_ENV = "BFL_API_KEY"
VENDOR_DOMAINS = ("bfl.ai", "bfl.ml")
DEFAULT_MODEL = "flux-2-pro"
USD_PER_CREDIT = 0.01
#: id → (label, documented USD per image or None, reference images accepted); the first is the default
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
BACKOFF = Backoff(start=0.5, factor=1.5, cap=2.0)


class BFLImageProvider(ImageGenProvider):
    """FLUX.2 and FLUX1.1 on BFL's own API (submit, poll, download within the validity window)."""

    name = "bfl"
    display_name = "Black Forest Labs"
    key_env = KEY_ENV
    docs_url = "https://dashboard.bfl.ai/"
    default_base_url = "https://api.bfl.ai"
    badge, tag = "paid", "FLUX.2 and FLUX1.1 [pro] on BFL's API"
    max_reference_images = max(refs for _l, _p, refs in MODELS.values())
    accepts_seed, accepts_negative_prompt = True, False
    accepts_sizes = ("any",)  # size="WxH" → width/height (the vendor checks its multiples and limits)

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": mid,
                "display": label,
                "price": f"${price}/image" if price else "credits reported per request",
            }
            for mid, (label, price, _refs) in MODELS.items()
        ]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model, sources, options = request.model, request.references, request.options
        _label, price, max_refs = MODELS.get(model, (model, None, 0))
        if len(sources) > max_refs:
            raise errors.InvalidInputError(
                f"BFL model {model} takes at most {max_refs} reference images, got {len(sources)}"
                + (f"; use {DEFAULT_MODEL}, which can edit" if max_refs == 0 else "")
            )
        key = self.api_key()
        body: dict[str, Any] = {"prompt": request.prompt}
        size = options.get("size")
        if model.endswith("-ultra"):
            if size:
                raise errors.InvalidInputError(f"BFL {model} takes an aspect ratio, not size={size!r}")
            body["aspect_ratio"] = ULTRA_ASPECTS[request.aspect_ratio]
        else:
            body["width"], body["height"] = _size(size) if size else SIZES[request.aspect_ratio]
        body.update({k: v for k, v in options.items() if k in OPTIONS and v is not None})
        for index, source in enumerate(sources):
            body["input_image" if index == 0 else f"input_image_{index + 1}"] = _as_input(source)
        base = self.base_url()
        headers = {"x-key": key, "accept": "application/json"}
        timeout = request.timeout_s
        job = PolledJob(self.name, "BFL task", timeout_s=timeout, backoff=BACKOFF, label=f"bfl {model}")
        # A second submit would run (and bill) a second task: no retry once sent.
        ticket = self.json_answer(
            self.send(
                "POST",
                f"{base}/v1/{model}",
                json=body,
                headers=headers,
                timeout=min(timeout, 60.0),
                error_map=_error_for,
            )
        )
        task_id = str(ticket.get("id") or "")
        if not task_id:
            raise errors.ParseError("BFL answered the submit without a task id", provider=self.name)
        polling_url = _trusted(ticket.get("polling_url"), base) or f"{base}/v1/get_result?id={task_id}"

        def poll(**limits: float) -> dict[str, Any]:
            return self.json_answer(
                self.send("GET", polling_url, headers=headers, error_map=_error_for, **limits)
            )

        result = job.wait(poll, _ready_result)
        sample = result.get("sample")
        if not isinstance(sample, str) or not sample.startswith(("https://", "http://")):
            raise errors.ProviderError("BFL's task is Ready but has no result.sample URL", provider=self.name)
        try:
            # The sample URL is valid for ten minutes: download now, never hand it out.
            path = save_url_image(sample, prefix=self.name, timeout=min(timeout, 60.0))
        except errors.ContentFetchError as exc:
            raise errors.ProviderError(
                f"BFL's result could not be downloaded (it is valid for 10 minutes after Ready): {exc}",
                provider=self.name,
            ) from exc
        return self.answer(
            request,
            path,
            seed=result.get("seed", options.get("seed")),
            task_id=task_id,
            cost=_cost(ticket, price),
            input_mp=ticket.get("input_mp"),
            output_mp=ticket.get("output_mp"),
        )


def _ready_result(answer: dict[str, Any]) -> dict[str, Any] | None:
    """The task's ``result`` once Ready, ``None`` while it runs; moderation and errors raise."""
    status = str(answer.get("status") or "")
    if status == "Ready":
        result = answer.get("result")
        return result if isinstance(result, dict) else {}
    if status in MODERATED:
        raise errors.ContentPolicyError(
            f"BFL moderation stopped the task ({status}){_reasons(answer)}", provider="bfl"
        )
    if status == "Error":
        raise errors.ProviderError(f"BFL task failed{_reasons(answer)}", provider="bfl")
    if status == "Task not found":
        raise errors.ProviderError(
            "BFL no longer knows this task (expired or submitted to another region)", provider="bfl"
        )
    if status not in WAITING:  # newer waiting states appear over time; the deadline still holds
        log.info("BFL task status %r treated as still running", status)
    return None


def _size(size: Any) -> tuple[int, int]:
    width, sep, height = str(size).lower().replace("×", "x").partition("x")
    if not (sep and width.strip().isdigit() and height.strip().isdigit()):
        raise errors.InvalidInputError(f"size must be 'WIDTHxHEIGHT' (e.g. '1344x768'), got {size!r}")
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


def _error_for(response: httpx.Response) -> errors.HermesError | None:
    """FastAPI ``{"detail": ...}`` (422 lists fields) or ``{"error", "message", "retry_after"}`` (429)."""
    body = json_or_none(response)
    wait = body.get("retry_after") if isinstance(body, dict) else None
    return vendor_error(
        response,
        vendor_message(body, response.status_code),
        provider="bfl",
        vendor="BFL",
        key_env=KEY_ENV,
        billing="dashboard.bfl.ai",
        retry_after=float(wait) if isinstance(wait, (int, float)) else None,
    )
