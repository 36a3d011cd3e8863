"""Replicate predictions: create with ``Prefer: wait``, poll ``urls.get`` until a terminal state, download.

``owner/name`` runs an official model (``POST /models/{owner}/{name}/predictions``);
``owner/name:<version id>`` pins a version (``POST /predictions {"version": id}``). A wait that
returns early (``starting``/``processing``) is normal: the prediction is polled, within
``image_gen.timeout``, and cancelled when the deadline passes so that it stops billing. Output URLs
expire, so the image is downloaded before ``generate`` returns. Errors are RFC 7807 problem bodies.
"""

from __future__ import annotations

import logging
import re
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
    get_client,
    save_b64_image,
    save_url_image,
    success_response,
)

log = logging.getLogger(__name__)

KEY_ENV = "REPLICATE_API_TOKEN"
DEFAULT_BASE_URL = "https://api.replicate.com/v1"
VENDOR_HOST = "api.replicate.com"
DEFAULT_MODEL = "black-forest-labs/flux-schnell"
#: id → (label, documented USD per image; Replicate reports only ``metrics.predict_time``)
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
POLL_START, POLL_FACTOR, POLL_MAX = 0.5, 1.5, 2.0
_MODEL_ID = re.compile(r"^[\w.-]+/[\w.-]+$")
_VERSION_ID = re.compile(r"^[0-9a-f]{64}$")


class ReplicateImageProvider(ImageGenProvider):
    """Replicate image models; the image is downloaded at once (output URLs expire)."""

    # Injectable for tests (fake clock): polling must not sleep for real in the suite.
    _sleep = staticmethod(time.sleep)
    _clock = staticmethod(time.monotonic)

    @property
    def name(self) -> str:
        return "replicate"

    @property
    def display_name(self) -> str:
        return "Replicate"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"~${price}/image" if price else "billed by run time"}
            for mid, (label, price) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text"],
            "max_reference_images": 0,
            "seed": True,
            "negative_prompt": False,
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "Replicate",
            "badge": "paid",
            "tag": "FLUX and other image models; owner/name or owner/name:version",
            "env_vars": [
                {
                    "key": KEY_ENV,
                    "prompt": "Replicate API token",
                    "url": "https://replicate.com/account/api-tokens",
                }
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

        def run(aspect: str) -> dict[str, Any]:
            if image_url or reference_image_urls:
                raise InvalidInputError(
                    "the replicate provider takes no reference images (text-to-image only)"
                )
            return self._generate(prompt, aspect, model, kwargs)

        return answer_or_error(self.name, prompt, aspect_ratio, model, run)

    def _generate(self, prompt: str, aspect: str, model: str, options: dict[str, Any]) -> dict[str, Any]:
        prompt = (prompt or "").strip()
        if not prompt:
            raise InvalidInputError("prompt is required for image generation")
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"Replicate needs an API token: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        base = str(config.get("image_gen.replicate.base_url") or DEFAULT_BASE_URL).rstrip("/")
        model_name, _, version = model.partition(":")
        if not _MODEL_ID.match(model_name) or (version and not _VERSION_ID.match(version)):
            raise InvalidInputError(
                f"Replicate model {model!r} is not 'owner/name' or 'owner/name:<64-hex version id>'"
            )
        model_input: dict[str, Any] = {"prompt": prompt, "aspect_ratio": ASPECTS[aspect]}
        model_input.update({k: v for k, v in options.items() if k in OPTIONS and v is not None})
        body: dict[str, Any] = {"input": model_input}
        if version:
            url = f"{base}/predictions"
            body["version"] = version
        else:
            url = f"{base}/models/{model_name}/predictions"
        timeout = float(config.get("image_gen.timeout", 120.0))
        wait = max(1, min(MAX_WAIT_S, int(timeout)))
        headers = {"Authorization": f"Bearer {key}"}
        client = get_client(self.name)
        started = self._clock()
        # A second create would run (and bill) a second prediction: no retry once sent.
        created = client.request(
            "POST",
            url,
            json=body,
            headers={**headers, "Prefer": f"wait={wait}", "Cancel-After": f"{max(5, int(timeout))}s"},
            timeout=wait + 15.0,
            error_map=_error_for,
            retry=RETRY_UNSENT,
        )
        prediction = self._wait(client, _json(created), base, headers, started, timeout, model)
        image = self._download(prediction.get("output"), timeout)
        price = MODELS.get(model_name, ("", None))[1]
        metrics = _obj(prediction.get("metrics"))
        return success_response(
            image=image,
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            extra={
                "seed": options.get("seed"),
                "replicate_aspect_ratio": model_input["aspect_ratio"],
                "prediction_id": prediction.get("id"),
                "predict_time": metrics.get("predict_time"),
                "cost": {"usd": price, "estimated": True} if price is not None else None,
            },
        )

    def _wait(
        self,
        client: Any,
        prediction: dict[str, Any],
        base: str,
        headers: dict[str, str],
        started: float,
        timeout: float,
        model: str,
    ) -> dict[str, Any]:
        """Poll ``urls.get`` until succeeded/failed/canceled/aborted, backing off 0.5 s → 2 s."""
        from hermes_nb.provider_api import progress

        pid = str(prediction.get("id") or "")
        urls = _obj(prediction.get("urls"))
        get_url = _trusted(urls.get("get"), base) or (f"{base}/predictions/{pid}" if pid else "")
        interval = POLL_START
        with progress(None, f"replicate {model}") as bar:
            while True:
                status = str(prediction.get("status") or "")
                if status == "succeeded":
                    return prediction
                if status in FAILED:
                    raise _failure(status, prediction.get("error"))
                if status not in WAITING:
                    raise ParseError(f"Replicate reported an unknown status {status!r}", provider=self.name)
                if not get_url:
                    raise ParseError("Replicate answered without a prediction id", provider=self.name)
                left = timeout - (self._clock() - started)
                if left <= 0:
                    self._cancel(client, urls.get("cancel"), base, pid, headers)
                    raise TimeoutError_(
                        f"Replicate prediction {pid} did not finish within image_gen.timeout={timeout:g}s "
                        '(cancelled); raise it with hn.config.set("image_gen.timeout", 300)',
                        provider=self.name,
                    )
                self._sleep(max(0.0, min(interval, left)))
                interval = min(interval * POLL_FACTOR, POLL_MAX)
                left = timeout - (self._clock() - started)
                if left <= 0:  # the deadline passed while sleeping: cancel (above), no doomed request
                    continue
                prediction = _json(
                    client.request(
                        "GET",
                        get_url,
                        headers=headers,
                        # one poll gets at least MIN_POLL_TIMEOUT_S; the SDK's deadline bounds the whole call
                        timeout=max(MIN_POLL_TIMEOUT_S, min(left, 30.0)),
                        deadline=max(MIN_POLL_TIMEOUT_S, left),
                        error_map=_error_for,
                    )
                )
                bar.update()

    def _cancel(self, client: Any, url: Any, base: str, pid: str, headers: dict[str, str]) -> None:
        """Best effort: a prediction nobody waits for should stop billing."""
        target = _trusted(url, base) or (f"{base}/predictions/{pid}/cancel" if pid else "")
        if not target:
            return
        try:
            client.request("POST", target, headers=headers, timeout=10.0, retry=False)
        except HermesError as exc:
            log.info("could not cancel Replicate prediction %s: %s", pid, exc)

    def _download(self, output: Any, timeout: float) -> str:
        first = output[0] if isinstance(output, list) and output else output
        if not isinstance(first, str) or not first:
            raise ProviderError(
                "Replicate's prediction succeeded without an output image", provider=self.name
            )
        if first.startswith("data:"):
            return str(save_b64_image(first, prefix=self.name))
        if not first.startswith(("https://", "http://")):
            raise ParseError(
                f"Replicate returned an output that is not a URL: {first[:80]!r}", provider=self.name
            )
        # Output URLs expire (about an hour): keep the bytes now, never hand the URL out.
        return str(save_url_image(first, prefix=self.name, timeout=min(timeout, 60.0)))


def _failure(status: str, error: Any) -> HermesError:
    message = str(error or f"prediction {status}")
    if "nsfw" in message.lower():
        return ContentPolicyError(
            f"Replicate's safety checker refused the image: {message}", provider="replicate"
        )
    if status == "failed":
        return ProviderError(f"Replicate prediction failed: {message}", provider="replicate")
    return ProviderError(f"Replicate prediction was {status}: {message}", provider="replicate")


def _trusted(url: Any, base: str) -> str | None:
    """``url`` when it is on Replicate's API host or the configured base's origin (it gets the token)."""
    if not isinstance(url, str) or not url:
        return None
    got, want = urlsplit(url), urlsplit(base)
    if (got.scheme, got.netloc) == (want.scheme, want.netloc):
        return url
    return url if got.scheme == "https" and got.hostname == VENDOR_HOST else None


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as exc:
        raise ParseError("Replicate answered with invalid JSON; try again", provider="replicate") from exc
    if not isinstance(body, dict):
        raise ParseError("Replicate answered with JSON that is not an object", provider="replicate")
    return body


def _error_for(response: httpx.Response) -> HermesError | None:
    """RFC 7807 ``{"type","title","status","detail"}`` problem bodies."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    problem = body if isinstance(body, dict) else {}
    message = str(problem.get("detail") or problem.get("title") or f"HTTP {status}")
    if status in (401, 403):
        return ProviderAuthError(
            f"Replicate rejected the token ({message}); check {KEY_ENV}", provider="replicate", status=status
        )
    if status == 402:
        return ProviderError(
            f"Replicate needs credit on the account ({message}); see replicate.com/account/billing",
            provider="replicate",
            status=status,
        )
    if status == 429:
        retry_after = response.headers.get("retry-after")
        return RateLimitedError(
            f"Replicate rate limit: {message}",
            provider="replicate",
            status=status,
            retry_after=float(retry_after) if retry_after and retry_after.isdigit() else None,
        )
    if status in (400, 404, 409, 422):
        return InvalidInputError(
            f"Replicate refused the request: {message}", provider="replicate", status=status
        )
    return None


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}
