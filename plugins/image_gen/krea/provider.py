"""Krea 2: ``POST {base}/generate/image/krea/krea-2/{medium|large|medium-turbo}`` → poll ``GET /jobs/{id}``.

The submit answers a ``job_id``; the job passes through waiting states (``backlogged``, ``queued``,
``scheduled``, ``processing``, ``sampling`` … newer ones appear over time, so any unknown state is
waiting) to ``completed`` (``result.urls``), ``failed`` (``result.error``) or ``cancelled``. A job
still running at ``image_gen.timeout`` is deleted (``DELETE /jobs/{id}``) so it stops billing.
Krea's creative controls are declared (``creative_controls``): ``creativity`` (raw, low, medium,
high), ``styles`` (trained LoRAs, ``{"id", "strength"}``), ``moodboards`` (one, ``{"id", "strength"}``)
and ``image_style_references``. Reference images are style references: Krea takes objects
``{"url", "strength"}`` with https URLs (a bare string is refused by the API with a 422).
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from hermes_nb.provider_api import (
    Backoff,
    ContentPolicyError,
    HermesError,
    ImageGenProvider,
    ImageRequest,
    InvalidInputError,
    ParseError,
    PolledJob,
    ProviderError,
    config,
    json_or_none,
    vendor_error,
    vendor_message,
)

log = logging.getLogger(__name__)

KEY_ENV = "KREA_API_KEY"
DEFAULT_MODEL = "krea-2-medium"
#: id → (label, URL path, list prices in USD: text / with style references / with a moodboard)
MODELS: dict[str, tuple[str, str, tuple[float, float, float]]] = {
    "krea-2-medium": ("Krea 2 Medium", "medium", (0.03, 0.035, 0.04)),
    "krea-2-large": ("Krea 2 Large", "large", (0.06, 0.065, 0.07)),
    "krea-2-medium-turbo": ("Krea 2 Medium Turbo", "medium-turbo", (0.015, 0.0175, 0.0175)),
}
ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
CREATIVITY = ("raw", "low", "medium", "high")
STYLE_REFERENCE_STRENGTH = 0.6  # Krea's suggested starting strength (range -2..2)
MAX_STYLE_REFERENCES = 10
FAILED, CANCELLED, COMPLETED = "failed", "cancelled", "completed"
BACKOFF = Backoff(start=2.0, factor=1.3, cap=5.0)  # Krea suggests polling every 2–5 s


class KreaImageProvider(ImageGenProvider):
    """Krea 2 foundation models on Krea's API (asynchronous jobs)."""

    name = "krea"
    display_name = "Krea"
    key_env = KEY_ENV
    model_env = "KREA_IMAGE_MODEL"
    docs_url = "https://www.krea.ai/settings/api-tokens"
    default_base_url = "https://api.krea.ai"
    badge, tag = "paid", "Krea 2 Medium / Large / Medium Turbo; styles, moodboards, style references"
    max_reference_images = MAX_STYLE_REFERENCES
    accepts_seed, accepts_negative_prompt = True, False
    creative_controls = ("creativity", "styles", "moodboards", "image_style_references")

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"${text}/image (text), ${refs} with style references"}
            for mid, (label, _path, (text, refs, _mood)) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        if request.model not in MODELS:
            raise InvalidInputError(
                f"Krea has no model {request.model!r}; use one of {', '.join(MODELS)}", provider=self.name
            )
        label, path, prices = MODELS[request.model]
        key = self.api_key()
        options = request.options
        body: dict[str, Any] = {
            "prompt": request.prompt,
            "aspect_ratio": ASPECTS[request.aspect_ratio],
            "resolution": "1K",
            "creativity": _creativity(options.get("creativity")),
        }
        if isinstance(options.get("seed"), int) and not isinstance(options.get("seed"), bool):
            body["seed"] = options["seed"]
        if options.get("styles"):
            body["styles"] = _objects(options["styles"], "styles", "id")
        moodboards = _objects(options["moodboards"], "moodboards", "id") if options.get("moodboards") else []
        if len(moodboards) > 1:
            raise InvalidInputError("Krea takes one moodboard per request", provider=self.name)
        if moodboards:
            body["moodboards"] = moodboards
        references = _style_references(request.references, options.get("image_style_references"))
        if references:
            body["image_style_references"] = references
        base, headers = self.base_url(), {"Authorization": f"Bearer {key}"}
        timeout = request.timeout_s
        job = PolledJob(self.name, "Krea job", timeout_s=timeout, backoff=BACKOFF, label=f"krea {label}")
        ticket = self.json_answer(
            self.send(
                "POST",
                f"{base}/generate/image/krea/krea-2/{path}",
                json=body,
                headers=headers,
                timeout=min(timeout, 60.0),
                error_map=_error_for,
            )
        )
        job_id = str(ticket.get("job_id") or "")
        if not job_id:
            raise ParseError("Krea answered the submit without a job_id", provider=self.name)

        def poll(**limits: float) -> dict[str, Any]:
            url = f"{base}/jobs/{job_id}"
            return self.json_answer(self.send("GET", url, headers=headers, error_map=_error_for, **limits))

        def cancel() -> None:
            self.send("DELETE", f"{base}/jobs/{job_id}", headers=headers, error_map=_error_for, timeout=10.0)

        result = job.wait(poll, _finished, cancel=cancel, first=ticket)
        urls = [u for u in result.get("urls") or [] if isinstance(u, str) and u.strip()]
        url = urls[0] if urls else result.get("url")
        if not isinstance(url, str) or not url.strip():
            raise self.no_image(f"Krea job {job_id} completed without result.urls")
        price = prices[2] if moodboards else prices[1] if references else prices[0]
        return self.answer(
            request,
            url.strip(),  # Krea's result URLs expire: the SDK downloads it at once
            job_id=job_id,
            krea_aspect_ratio=body["aspect_ratio"],
            creativity=body["creativity"],
            seed=body.get("seed"),
            cost={"usd": price, "estimated": True},
        )


def _creativity(value: Any) -> str:
    chosen = value if value is not None else config.get("image_gen.krea.creativity", "medium")
    text = str(chosen).strip().lower()
    if text not in CREATIVITY:
        raise InvalidInputError(
            f"Krea's creativity is one of {', '.join(CREATIVITY)}, got {chosen!r}", provider="krea"
        )
    return text


def _objects(value: Any, field: str, key: str) -> list[dict[str, Any]]:
    """Krea's ``styles`` / ``moodboards``: a list of ``{"id", "strength"?}`` (an id string is accepted)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            out.append({key: item.strip()})
        elif isinstance(item, dict) and item.get(key):
            out.append(dict(item))
        else:
            raise InvalidInputError(
                f"Krea's {field} are objects like {{'{key}': '…', 'strength': 1.0}}, got {item!r}",
                provider="krea",
            )
    return out


def _style_references(references: list[str], extra: Any) -> list[dict[str, Any]]:
    """Reference images (and ``image_style_references=``) as Krea's ``{"url", "strength"}`` objects."""
    items: list[Any] = list(references)
    if extra:
        items.extend(extra if isinstance(extra, (list, tuple)) else [extra])
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in items:
        ref = {"url": item, "strength": STYLE_REFERENCE_STRENGTH} if isinstance(item, str) else item
        url = ref.get("url") if isinstance(ref, dict) else None
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise InvalidInputError(
                f"Krea takes style references as image URLs (https://…), got {item!r}; upload the "
                "image somewhere Krea can fetch it",
                provider="krea",
            )
        if url not in seen:
            seen.add(url)
            out.append(dict(ref))
    if len(out) > MAX_STYLE_REFERENCES:
        raise InvalidInputError(
            f"Krea takes at most {MAX_STYLE_REFERENCES} style references, got {len(out)}", provider="krea"
        )
    return out


def _finished(job: dict[str, Any]) -> dict[str, Any] | None:
    """The job's ``result`` once completed, ``None`` while it waits; failure and cancellation raise."""
    status = str(job.get("status") or "")
    result = job.get("result") if isinstance(job.get("result"), dict) else {}
    if status == COMPLETED or (status not in (FAILED, CANCELLED) and job.get("completed_at")):
        return result
    if status == FAILED:
        reason = str(result.get("error") or "no reason given")
        if "moderat" in reason.lower() or "nsfw" in reason.lower() or "safety" in reason.lower():
            raise ContentPolicyError(f"Krea's moderation stopped the job: {reason}", provider="krea")
        raise ProviderError(f"Krea job {job.get('job_id', '')} failed: {reason}", provider="krea")
    if status == CANCELLED:
        raise ProviderError(f"Krea job {job.get('job_id', '')} was cancelled", provider="krea")
    return None


def _error_for(response: httpx.Response) -> HermesError | None:
    return vendor_error(
        response,
        vendor_message(json_or_none(response), response.status_code),
        provider="krea",
        vendor="Krea",
        key_env=KEY_ENV,
        billing="krea.ai/settings/billing",
        refused=(400, 404, 422),
    )
