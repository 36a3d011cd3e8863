"""Replicate predictions: create with ``Prefer: wait``, poll ``urls.get`` until a terminal state, download.

``owner/name`` runs an official model (``POST /models/{owner}/{name}/predictions``);
``owner/name:<version id>`` pins a version (``POST /predictions {"version": id}``). A wait that
returns early (``starting``/``processing``) is normal: the prediction is polled, within
``image_gen.timeout``, and cancelled when the deadline passes so that it stops billing. Output URLs
expire, so the image is downloaded before ``generate`` returns. Errors are RFC 7807 problem bodies.
"""

from __future__ import annotations

import re
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
    save_url_image,
    vendor_error,
    vendor_message,
)

KEY_ENV = "REPLICATE_API_TOKEN"
VENDOR_HOST = "api.replicate.com"
#: id → (label, documented USD per image; Replicate reports only ``metrics.predict_time``); first: default
MODELS: dict[str, tuple[str, float | None]] = {
    "black-forest-labs/flux-schnell": ("FLUX.1 [schnell]", 0.003),
    "black-forest-labs/flux-dev": ("FLUX.1 [dev]", 0.025),
    "black-forest-labs/flux-1.1-pro": ("FLUX1.1 [pro]", 0.04),
}
ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
#: Model inputs passed through when given (FLUX family names); others are not sent.
OPTIONS = (
    "seed",
    "num_inference_steps",
    "guidance",
    "output_format",
    "output_quality",
    "go_fast",
    "megapixels",
    "disable_safety_checker",
    "safety_tolerance",
    "prompt_upsampling",
)
WAITING = ("starting", "processing")
FAILED = ("failed", "canceled", "aborted")
MAX_WAIT_S = 60  # Prefer: wait=N accepts 1..60
BACKOFF = Backoff(start=0.5, factor=1.5, cap=2.0)
_MODEL_ID = re.compile(r"^[\w.-]+/[\w.-]+$")
_VERSION_ID = re.compile(r"^[0-9a-f]{64}$")


class ReplicateImageProvider(ImageGenProvider):
    """Replicate image models; the image is downloaded at once (output URLs expire)."""

    name = "replicate"
    display_name = "Replicate"
    key_env = KEY_ENV
    docs_url = "https://replicate.com/account/api-tokens"
    default_base_url = "https://api.replicate.com/v1"
    badge, tag = "paid", "FLUX and other image models; owner/name or owner/name:version"
    accepts_seed, accepts_negative_prompt = True, False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"~${price}/image" if price else "billed by run time"}
            for mid, (label, price) in MODELS.items()
        ]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model, options = request.model, request.options
        key = self.api_key()
        base = self.base_url()
        model_name, _, version = model.partition(":")
        if not _MODEL_ID.match(model_name) or (version and not _VERSION_ID.match(version)):
            raise errors.InvalidInputError(
                f"Replicate model {model!r} is not 'owner/name' or 'owner/name:<64-hex version id>'"
            )
        model_input: dict[str, Any] = {
            "prompt": request.prompt,
            "aspect_ratio": ASPECTS[request.aspect_ratio],
        }
        model_input.update({k: v for k, v in options.items() if k in OPTIONS and v is not None})
        body: dict[str, Any] = {"input": model_input}
        if version:
            url = f"{base}/predictions"
            body["version"] = version
        else:
            url = f"{base}/models/{model_name}/predictions"
        timeout = request.timeout_s
        wait = max(1, min(MAX_WAIT_S, int(timeout)))
        headers = {"Authorization": f"Bearer {key}"}
        job = PolledJob(
            self.name, "Replicate prediction", timeout_s=timeout, backoff=BACKOFF, label=f"replicate {model}"
        )
        # A second create would run (and bill) a second prediction: no retry once sent.
        created = self.send(
            "POST",
            url,
            json=body,
            headers={**headers, "Prefer": f"wait={wait}", "Cancel-After": f"{max(5, int(timeout))}s"},
            timeout=wait + 15.0,
            error_map=_error_for,
        )
        prediction = self.json_answer(created)
        pid = str(prediction.get("id") or "")
        urls = _obj(prediction.get("urls"))
        get_url = _trusted(urls.get("get"), base) or (f"{base}/predictions/{pid}" if pid else "")
        cancel_url = _trusted(urls.get("cancel"), base) or (f"{base}/predictions/{pid}/cancel" if pid else "")

        def poll(**limits: float) -> dict[str, Any]:
            if not get_url:
                raise errors.ParseError("Replicate answered without a prediction id", provider=self.name)
            answer = self.send("GET", get_url, headers=headers, error_map=_error_for, **limits)
            return self.json_answer(answer)

        def cancel() -> None:  # a prediction nobody waits for should stop billing
            if cancel_url:
                self.send("POST", cancel_url, headers=headers, timeout=10.0, retry=False)

        prediction = job.wait(poll, _succeeded, cancel=cancel, first=prediction)
        image = self._download(prediction.get("output"), timeout)
        price = MODELS.get(model_name, ("", None))[1]
        return self.answer(
            request,
            image,
            seed=options.get("seed"),
            replicate_aspect_ratio=model_input["aspect_ratio"],
            prediction_id=prediction.get("id"),
            predict_time=_obj(prediction.get("metrics")).get("predict_time"),
            cost={"usd": price, "estimated": True} if price is not None else None,
        )

    def _download(self, output: Any, timeout: float) -> str:
        first = output[0] if isinstance(output, list) and output else output
        if not isinstance(first, str) or not first:
            raise errors.ProviderError(
                "Replicate's prediction succeeded without an output image", provider=self.name
            )
        if first.startswith("data:"):
            return str(save_b64_image(first, prefix=self.name))
        if not first.startswith(("https://", "http://")):
            raise errors.ParseError(
                f"Replicate returned an output that is not a URL: {first[:80]!r}", provider=self.name
            )
        # Output URLs expire (about an hour): keep the bytes now, never hand the URL out.
        return str(save_url_image(first, prefix=self.name, timeout=min(timeout, 60.0)))


def _succeeded(prediction: dict[str, Any]) -> dict[str, Any] | None:
    """The prediction once it succeeded, ``None`` while it runs; failed/canceled/unknown raise."""
    status = str(prediction.get("status") or "")
    if status == "succeeded":
        return prediction
    if status in FAILED:
        raise _failure(status, prediction.get("error"))
    if status not in WAITING:
        raise errors.ParseError(f"Replicate reported an unknown status {status!r}", provider="replicate")
    return None


def _failure(status: str, error: Any) -> errors.HermesError:
    message = str(error or f"prediction {status}")
    if "nsfw" in message.lower():
        return errors.ContentPolicyError(
            f"Replicate's safety checker refused the image: {message}", provider="replicate"
        )
    if status == "failed":
        return errors.ProviderError(f"Replicate prediction failed: {message}", provider="replicate")
    return errors.ProviderError(f"Replicate prediction was {status}: {message}", provider="replicate")


def _trusted(url: Any, base: str) -> str | None:
    """``url`` when it is on Replicate's API host or the configured base's origin (it gets the token)."""
    if not isinstance(url, str) or not url:
        return None
    got, want = urlsplit(url), urlsplit(base)
    if (got.scheme, got.netloc) == (want.scheme, want.netloc):
        return url
    return url if got.scheme == "https" and got.hostname == VENDOR_HOST else None


def _error_for(response: httpx.Response) -> errors.HermesError | None:
    """RFC 7807 ``{"type","title","status","detail"}`` problem bodies."""
    return vendor_error(
        response,
        vendor_message(json_or_none(response), response.status_code),
        provider="replicate",
        vendor="Replicate",
        key_env=KEY_ENV,
        billing="replicate.com/account/billing",
        refused=(400, 404, 409, 422),
    )


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}
