"""Emulated Replicate predictions API: create (201, ``Prefer: wait``), get, cancel (reference §6).

``emu.replicate_polls_to_complete`` GETs end a prediction (``None``: never). With ``0`` a
``Prefer: wait`` create answers ``succeeded`` at once; otherwise the wait "returns early" with
``starting``, as the live API does for slow models. Prompts containing ``emu.MODERATION_WORD`` fail
with FLUX's NSFW error. Outputs are ephemeral ``/files`` URLs. Errors are RFC 7807 problem bodies.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from hermes_nb.testing.fakes import MIME, Call, FakeRoutes, Response, render, sizes, store_file

__all__ = ["register", "ReplicateApi", "VERSIONS", "RATIO_SIZES"]

#: official model → its current version id (emulator values, 64 hex like the real ones)
VERSIONS = {
    "black-forest-labs/flux-schnell": "5f24084160c9089501c1b3545d9be3c27883ae2239b6f412990e82d4a6210f8f",
    "black-forest-labs/flux-dev": "6e4a938f85952bdabcc15aa329178c4d681c52bf25a0342403287dc26944661d",
    "black-forest-labs/flux-1.1-pro": "80a09d66baa990429c2f5ae8a4306bf778a1b3775afd01cc2cc8bdbe9033769c",
}
#: FLUX at one megapixel, sides multiples of 16 (hermes_nb choice; Replicate does not publish them)
RATIO_SIZES = sizes(
    "1:1=1024x1024 16:9=1344x768 21:9=1536x640 3:2=1216x832 2:3=832x1216 4:5=896x1088 5:4=1088x896 "
    "3:4=896x1152 4:3=1152x896 9:16=768x1344 9:21=640x1536"
)
_FORMATS = {"webp": "webp", "jpg": "jpeg", "png": "png"}
_NSFW = "NSFW content detected in all outputs. Try running it again, or try a different prompt."
_MAX_PREDICTIONS = 256


@dataclass
class _Prediction:
    id: str
    model: str
    version: str
    input: dict[str, Any]
    created_at: str
    polls: int = 0
    status: str = "starting"
    output: list[str] | None = None
    error: str | None = None


def _problem(status: int, title: str, detail: str, headers: dict[str, str] | None = None) -> Response:
    body = {
        "type": f"https://replicate.com/docs/errors#{status}",
        "title": title,
        "status": status,
        "detail": detail,
    }
    return Response(status, Response.json(body).body, "application/problem+json", dict(headers or {}))


class ReplicateApi:
    """``POST {base}/models/{owner}/{name}/predictions``, ``POST {base}/predictions``, ``GET …/{id}``."""

    name = "replicate"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = (
            {"Retry-After": str(int(retry_after if retry_after is not None else 30))} if status == 429 else {}
        )
        if status == 429:
            return _problem(
                429,
                "Request was throttled",
                "Request was throttled. Your rate limit resets in ~30s.",
                headers,
            )
        if status == 402:
            return _problem(402, "Insufficient credit", "You have insufficient credit to run this model.")
        if status >= 500:
            return _problem(status, "Internal Server Error", "An unexpected error occurred.")
        return _problem(status, "Emulated error", f"Emulated error {status}")

    def handle(self, call: Call) -> Response:
        token = call.bearer()
        if call.auth_fail or not token or token == call.emu.BAD_KEY:
            return _problem(401, "Unauthenticated", "You did not pass a valid authentication token")
        parts = [p for p in call.subpath.split("/") if p]
        method = call.request.method
        if method == "POST" and len(parts) == 4 and parts[0] == "models" and parts[3] == "predictions":
            model = f"{parts[1]}/{parts[2]}"
            if model not in VERSIONS:
                return _problem(404, "Not found", f"Model {model} not found")
            return self._create(call, model, VERSIONS[model])
        if method == "POST" and parts == ["predictions"]:
            version = str(call.json_body.get("version") or "").rsplit(":", 1)[-1]
            pinned = next((m for m, v in VERSIONS.items() if v == version), None)
            if pinned is None:
                return _problem(422, "Invalid version or not permitted", "Invalid version or not permitted")
            return self._create(call, pinned, version)
        if len(parts) >= 2 and parts[0] == "predictions":
            with call.emu.state_lock:
                prediction = call.emu.state.get("replicate_predictions", {}).get(parts[1])
            if prediction is None:
                return _problem(404, "Not found", "The requested resource could not be found.")
            if method == "GET" and len(parts) == 2:
                self._advance(call, prediction, poll=True)
                return Response.json(self._body(call, prediction))
            if method == "POST" and parts[2:] == ["cancel"]:
                with call.emu.state_lock:
                    if prediction.status in ("starting", "processing"):
                        prediction.status = "canceled"
                return Response.json(self._body(call, prediction))
        return _problem(404, "Not found", "The requested resource could not be found.")

    def _create(self, call: Call, model: str, version: str) -> Response:
        emu = call.emu
        model_input = call.json_body.get("input")
        if not isinstance(model_input, dict):
            return _problem(422, "Input validation failed", "- input: input is required")
        invalid = _validate(model_input)
        if invalid:
            return _problem(422, "Input validation failed", invalid)
        with emu.state_lock:
            table: dict[str, _Prediction] = emu.state.setdefault("replicate_predictions", {})
            number = emu.state["replicate_counter"] = emu.state.get("replicate_counter", 0) + 1
            pid = uuid.UUID(int=emu.rng("replicate", number).getrandbits(128)).hex[:26]
            created = datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")
            prediction = table[pid] = _Prediction(pid, model, version, dict(model_input), created)
            while len(table) > _MAX_PREDICTIONS:
                table.pop(next(iter(table)))
        if _prefers_wait(call.header("prefer")):
            self._advance(call, prediction, poll=False)
        return Response.json(self._body(call, prediction), 201)

    def _advance(self, call: Call, prediction: _Prediction, *, poll: bool) -> None:
        emu = call.emu
        with emu.state_lock:
            if prediction.status not in ("starting", "processing"):
                return
            if poll:
                prediction.polls += 1
            needed = emu.replicate_polls_to_complete
            if needed is None or prediction.polls < needed:
                prediction.status = "processing" if prediction.polls else "starting"
                return
        self._finish(call, prediction)

    def _finish(self, call: Call, prediction: _Prediction) -> None:
        emu, params = call.emu, prediction.input
        prompt = str(params["prompt"])
        if emu.MODERATION_WORD in prompt.lower() and not params.get("disable_safety_checker"):
            status, error, outputs = "failed", _NSFW, None
        else:
            width, height = RATIO_SIZES[str(params.get("aspect_ratio", "1:1"))]
            fmt = _FORMATS[str(params.get("output_format", "webp"))]
            outputs = []
            for i in range(0 if call.empty else int(params.get("num_outputs", 1))):
                seed = params.get("seed")
                key = f"replicate|{emu.seed}|{prediction.model}|{prompt}|{seed}|{width}x{height}|{i}"
                data = render(key, width, height, fmt)
                outputs.append(store_file(emu, data, "jpg" if fmt == "jpeg" else fmt, MIME[fmt]))
            status, error = "succeeded", None
        with emu.state_lock:
            if prediction.status in ("starting", "processing"):
                prediction.status, prediction.error, prediction.output = status, error, outputs

    def _body(self, call: Call, prediction: _Prediction) -> dict[str, Any]:
        base = f"{call.emu.base_url('replicate')}/predictions/{prediction.id}"
        done = prediction.status in ("succeeded", "failed", "canceled")
        with call.emu.state_lock:
            output = list(prediction.output) if prediction.output is not None else None
        return {
            "id": prediction.id,
            "model": prediction.model,
            "version": prediction.version,
            "input": prediction.input,
            "logs": "Using seed: 42\n" if done else "",
            "output": output,
            "data_removed": False,
            "error": prediction.error,
            "status": prediction.status,
            "created_at": prediction.created_at,
            "started_at": prediction.created_at if prediction.status != "starting" else None,
            "completed_at": prediction.created_at if done else None,
            "metrics": {"predict_time": 0.61, "total_time": 0.83} if done else {},
            "urls": {
                "get": base,
                "cancel": f"{base}/cancel",
                "stream": f"{base}/stream",
                "web": f"https://replicate.com/p/{prediction.id}",
            },
        }


def _prefers_wait(header: str | None) -> bool:
    """``Prefer: wait`` or ``Prefer: wait=N`` with N in 1..60."""
    match = re.fullmatch(r"\s*wait(?:\s*=\s*(\d+))?\s*", header or "")
    if match is None:
        return False
    return match.group(1) is None or 1 <= int(match.group(1)) <= 60


def _validate(params: dict[str, Any]) -> str | None:
    """Cog's validation message for the first bad input, else None."""
    prompt = params.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return "- input: prompt is required"
    ratio = params.get("aspect_ratio", "1:1")
    if ratio not in RATIO_SIZES:
        allowed = ", ".join(f"'{r}'" for r in RATIO_SIZES)
        return f"- input.aspect_ratio: aspect_ratio must be one of the following: {allowed}"
    outputs = params.get("num_outputs", 1)
    if not isinstance(outputs, int) or not 1 <= outputs <= 4:
        return "- input.num_outputs: Must be less than or equal to 4"
    if params.get("output_format", "webp") not in _FORMATS:
        return "- input.output_format: output_format must be one of the following: 'webp', 'jpg', 'png'"
    seed = params.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        return "- input.seed: Invalid type. Expected: integer"
    return None


def register(routes: FakeRoutes) -> None:
    routes.option("replicate_polls_to_complete", 2)  # 0: a Prefer: wait create answers succeeded
    routes.add(ReplicateApi(), prefix="/replicate/v1")
