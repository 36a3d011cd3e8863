"""fal.ai queue API: ``POST /{model}`` → poll the returned ``status_url`` → ``GET`` the ``response_url``.

The status and result live under ``{owner}/{app}/requests/{id}`` without the model's subpath
(``fal-ai/flux/schnell`` is polled at ``fal-ai/flux/requests/…``), so the URLs the queue returns
are used; they are followed only when they point at the configured host, because they carry the key.
"""

from __future__ import annotations

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
    save_b64_image,
    vendor_error,
    vendor_message,
)

KEY_ENV = "FAL_KEY"
DEFAULT_MODEL = "fal-ai/flux-2/klein/9b"  # Hermes's default
IMAGE_SIZES = {"landscape": "landscape_16_9", "square": "square_hd", "portrait": "portrait_16_9"}
_COMMON = ("image_size", "seed", "num_images", "output_format", "enable_safety_checker", "sync_mode")
#: id → (label, USD per megapixel or None, accepted option names, edit endpoint or None); first: default
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
BACKOFF = Backoff(start=0.25, factor=1.5, cap=2.0)


class FalImageProvider(ImageGenProvider):
    """FLUX on fal's queue; a job that never finishes stops at ``image_gen.timeout``."""

    name = "fal"
    display_name = "fal.ai"
    key_env = KEY_ENV
    docs_url = "https://fal.ai/dashboard/keys"
    default_base_url = "https://queue.fal.run"
    badge, tag = "paid", "FLUX models on fal's queue"
    max_reference_images = 4
    accepts_seed, accepts_negative_prompt = True, False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"${price}/MP" if price else "see fal.ai pricing"}
            for mid, (label, price, _, _) in MODELS.items()
        ]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model, sources = request.model, request.references
        key = self.api_key()
        _label, price, supports, edit_endpoint = MODELS.get(model, (model, None, (*_COMMON,), None))
        payload: dict[str, Any] = {
            "prompt": request.prompt,
            "image_size": IMAGE_SIZES[request.aspect_ratio],
            "num_images": 1,
        }
        payload.update({k: v for k, v in request.options.items() if k in supports and v is not None})
        endpoint = model
        if sources:
            if edit_endpoint is None:
                raise errors.InvalidInputError(
                    f"fal model {model} takes no reference images; use {DEFAULT_MODEL}, which can edit"
                )
            endpoint = edit_endpoint
            payload["image_urls"] = [_as_url(s) for s in sources]
        base = self.base_url()
        headers = {"Authorization": f"Key {key}"}
        timeout = request.timeout_s
        job = PolledJob(self.name, "fal job", timeout_s=timeout, backoff=BACKOFF, label=f"fal {model}")
        # Submitting twice would enqueue (and bill) two jobs: no retry once sent.
        submitted = self.send(
            "POST",
            f"{base}/{endpoint}",
            json=payload,
            headers=headers,
            timeout=min(timeout, 60.0),
            error_map=_error_for,
        )
        ticket = self.json_answer(submitted)
        request_id = str(ticket.get("request_id") or "")
        if not request_id:
            raise errors.ParseError("fal's queue answered without a request_id", provider=self.name)
        app = "/".join(endpoint.split("/")[:2])
        status_url = (
            _same_origin(ticket.get("status_url"), base) or f"{base}/{app}/requests/{request_id}/status"
        )
        result_url = _same_origin(ticket.get("response_url"), base) or f"{base}/{app}/requests/{request_id}"

        def poll(**limits: float) -> dict[str, Any]:
            answer = self.send(
                "GET", status_url, params={"logs": 0}, headers=headers, error_map=_error_for, **limits
            )
            return self.json_answer(answer)

        job.wait(poll, _completed)
        result = self.send(
            "GET", result_url, headers=headers, timeout=min(timeout, 60.0), error_map=_error_for
        )
        body = self.json_answer(result)
        images = body.get("images")
        first = images[0] if isinstance(images, list) and images and isinstance(images[0], dict) else {}
        url = str(first.get("url") or "")
        if not url:
            raise self.no_image("fal returned no image")
        nsfw = body.get("has_nsfw_concepts")
        if isinstance(nsfw, list) and nsfw and nsfw[0] is True:
            raise errors.ContentPolicyError(
                "fal's safety checker flagged the image (it came back blacked out)", provider=self.name
            )
        image = str(save_b64_image(url, prefix=self.name)) if url.startswith("data:") else url
        return self.answer(
            request,
            image,
            seed=body.get("seed", request.options.get("seed")),
            image_size=payload["image_size"],
            request_id=request_id,
            cost=_cost(price, result.headers.get("x-fal-billable-units"), first),
        )


def _completed(status: dict[str, Any]) -> bool | None:
    """True once COMPLETED, ``None`` while queued or running; a failed or unknown state raises."""
    state = str(status.get("status") or "")
    if state == "COMPLETED":
        if status.get("error"):
            raise errors.ProviderError(f"fal job failed: {status['error']}", provider="fal")
        return True
    if state not in ("IN_QUEUE", "IN_PROGRESS"):
        raise errors.ParseError(f"fal's queue reported an unknown status {state!r}", provider="fal")
    return None


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


def _error_for(response: httpx.Response) -> errors.HermesError | None:
    """FastAPI-style ``{"detail": ...}`` bodies: 422 lists what was wrong with the input."""
    message = vendor_message(json_or_none(response), response.status_code)
    return vendor_error(response, message, provider="fal", key_env=KEY_ENV)
