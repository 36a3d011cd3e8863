"""Emulated fal.ai queue API: submit, status (no subpath), result, cancel (reference/image-apis.md §5)."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from typing import Any

from hermes_nb.testing.fakes import MIME, Call, FakeRoutes, Response, blackout, render, sizes, store_file

__all__ = ["register", "FalApi", "PRESETS"]

PRESETS = sizes(
    "square_hd=1024x1024 square=512x512 portrait_4_3=768x1024 portrait_16_9=576x1024 "
    "landscape_4_3=1024x768 landscape_16_9=1024x576"
)
_MAX_JOBS = 256


@dataclass
class _Job:
    request_id: str
    app: str  # "owner/app": where status and result live (no subpath)
    model_id: str  # the submitted path, subpath included
    params: dict[str, Any]
    polls: int = 0
    cancelled: bool = False
    result: dict[str, Any] | None = field(default=None, repr=False)


def _detail(loc: str, msg: str, type_: str = "value_error", ctx: dict[str, Any] | None = None) -> Response:
    item: dict[str, Any] = {"loc": ["body", loc], "msg": msg, "type": type_}
    if ctx:
        item["ctx"] = ctx
    return Response.json({"detail": [item]}, 422, {"x-fal-error-type": "validation_error"})


class FalApi:
    """``POST {base}/{owner}/{app}[/{sub}]`` submits; ``GET {base}/{owner}/{app}/requests/{id}[/status]``."""

    name = "fal"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = {"X-Fal-Retryable": "true" if status == 429 or status >= 500 else "false"}
        if retry_after is not None:
            headers["Retry-After"] = str(int(retry_after))
        if status == 422:
            return _detail("prompt", "Emulated validation error")
        message = {401: "Unauthorized", 429: "Rate limit exceeded"}.get(status, f"Emulated error {status}")
        if status >= 500:
            headers["x-fal-error-type"] = "internal_error"
            message = "Internal server error"
        return Response.json({"detail": message}, status, headers)

    def handle(self, call: Call) -> Response:
        auth = call.header("authorization") or ""
        scheme, _, key = auth.partition(" ")
        if not auth and not call.auth_fail:
            return Response.json({"detail": "Missing authorization header"}, 401)
        if call.auth_fail or scheme != "Key" or not key.strip() or key.strip() == call.emu.BAD_KEY:
            return Response.json({"detail": "Unauthorized"}, 401)
        parts = [p for p in call.subpath.split("/") if p]
        if "requests" in parts:
            return self._request_route(call, parts)
        if call.request.method != "POST" or len(parts) < 2:
            return Response.json({"detail": "Not Found"}, 404)
        return self._submit(call, "/".join(parts))

    def _submit(self, call: Call, model_id: str) -> Response:
        emu = call.emu
        params = call.request.json
        if not isinstance(params, dict):
            return _detail("__root__", "Input should be a valid JSON object", "type_error.dict")
        invalid = self._validate(model_id, params)
        if invalid:
            return invalid
        with emu.state_lock:
            jobs: dict[str, _Job] = emu.state.setdefault("fal_jobs", {})
            number = emu.state["fal_counter"] = emu.state.get("fal_counter", 0) + 1
            request_id = str(uuid.UUID(int=emu.rng("fal-request", number).getrandbits(128)))
            app = "/".join(model_id.split("/")[:2])
            jobs[request_id] = _Job(request_id, app, model_id, dict(params))
            while len(jobs) > _MAX_JOBS:
                jobs.pop(next(iter(jobs)))
        base = f"{emu.base_url('fal')}/{app}/requests/{request_id}"
        return Response.json(
            {
                "request_id": request_id,
                "response_url": base,
                "status_url": f"{base}/status",
                "cancel_url": f"{base}/cancel",
                "queue_position": 0,
            },
            headers={"x-fal-request-id": request_id},
        )

    @staticmethod
    def _validate(model_id: str, params: dict[str, Any]) -> Response | None:
        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return _detail("prompt", "field required", "value_error.missing")
        size = params.get("image_size", "landscape_4_3")
        if isinstance(size, dict):
            width, height = size.get("width"), size.get("height")
            if not (
                isinstance(width, int)
                and isinstance(height, int)
                and 1 <= width <= 4096
                and 1 <= height <= 4096
            ):
                return _detail("image_size", "width and height must be integers between 1 and 4096")
        elif size not in PRESETS:
            return _detail(
                "image_size",
                f"value is not a valid enumeration member; permitted: {sorted(PRESETS)}",
                "type_error.enum",
                {"enum_values": sorted(PRESETS)},
            )
        num_images = params.get("num_images", 1)
        if not isinstance(num_images, int) or not 1 <= num_images <= 4:
            return _detail(
                "num_images", "ensure this value is between 1 and 4", "value_error.number.not_in_range"
            )
        seed = params.get("seed")
        if seed is not None and not isinstance(seed, int):
            return _detail("seed", "value is not a valid integer", "type_error.integer")
        if params.get("output_format", "jpeg") not in ("jpeg", "png"):
            return _detail("output_format", "unexpected value; permitted: 'jpeg', 'png'", "value_error.const")
        if model_id.endswith("/edit"):
            urls = params.get("image_urls")
            if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
                return _detail("image_urls", "field required", "value_error.missing")
        return None

    def _request_route(self, call: Call, parts: list[str]) -> Response:
        index = parts.index("requests")
        tail = parts[index + 1 :]
        with call.emu.state_lock:
            job = call.emu.state.get("fal_jobs", {}).get(tail[0]) if tail else None
        # status and result live under owner/app only: a subpath before /requests is a 404 (reference §5)
        if job is None or index != 2 or "/".join(parts[:2]) != job.app:
            return Response.json({"detail": "Request not found"}, 404)
        action = tail[1] if len(tail) > 1 else ""
        if action == "status" and len(tail) == 2 and call.request.method == "GET":
            return self._status(call, job)
        if action == "cancel" and call.request.method == "PUT":
            return self._cancel(call, job)
        if action == "" and call.request.method == "GET":
            return self._result(call, job)
        return Response.json({"detail": "Not Found"}, 404)

    def _state(self, call: Call, job: _Job, poll: bool) -> str:
        with call.emu.state_lock:
            if poll:
                job.polls += 1
            if job.cancelled:
                return "CANCELLED"
            needed = call.emu.fal_polls_to_complete
            if job.result is not None or (needed is not None and job.polls >= needed):
                return "COMPLETED"
            return "IN_QUEUE" if job.polls <= 1 else "IN_PROGRESS"

    def _status(self, call: Call, job: _Job) -> Response:
        state = self._state(call, job, poll=True)
        logs = [{"message": "emulated inference step", "level": "INFO", "source": "user"}]
        with_logs = call.request.param("logs") in ("1", "true")
        body: dict[str, Any] = {
            "status": state,
            "response_url": f"{call.emu.base_url('fal')}/{job.app}/requests/{job.request_id}",
            "request_id": job.request_id,
        }
        if state == "IN_QUEUE":
            needed = call.emu.fal_polls_to_complete
            body["queue_position"] = max(0, (needed or 3) - job.polls - 1)
        elif state == "CANCELLED":
            body.update(status="COMPLETED", error="Request was cancelled", error_type="cancelled")
        else:
            body["logs"] = logs if with_logs else None
            if state == "COMPLETED":
                body["metrics"] = {"inference_time": 0.42}
        # fal's Inference API docs: 202 while queued or running, 200 once complete.
        return Response.json(body, 200 if body["status"] == "COMPLETED" else 202)

    def _cancel(self, call: Call, job: _Job) -> Response:
        if self._state(call, job, poll=False) == "COMPLETED":
            return Response.json({"status": "ALREADY_COMPLETED"}, 400)
        with call.emu.state_lock:
            job.cancelled = True
        return Response.json({"status": "CANCELLATION_REQUESTED"}, 202)

    def _result(self, call: Call, job: _Job) -> Response:
        state = self._state(call, job, poll=False)
        if state == "CANCELLED":
            return Response.json({"detail": "Request was cancelled"}, 400)
        if state != "COMPLETED":
            return Response.json({"detail": "Request is still in progress"}, 400)
        with call.emu.state_lock:
            result = job.result
        if result is None:
            result = self._render(call, job)
            with call.emu.state_lock:
                job.result = job.result or result
                result = job.result
        pixels = sum(img["width"] * img["height"] for img in result["images"])
        headers = {
            "x-fal-request-id": job.request_id,
            "x-fal-billable-units": str(max(1, math.ceil(pixels / 1e6))),
        }
        return Response.json(result, headers=headers)

    def _render(self, call: Call, job: _Job) -> dict[str, Any]:
        emu, params = call.emu, job.params
        prompt = str(params["prompt"])
        size = params.get("image_size", "landscape_4_3")
        width, height = (size["width"], size["height"]) if isinstance(size, dict) else PRESETS[size]
        fmt = params.get("output_format", "jpeg")
        seed = params.get("seed")
        if seed is None:
            seed = emu.rng("fal-seed", job.request_id).randrange(2**31)
        flagged = (
            emu.MODERATION_WORD in prompt.lower() and params.get("enable_safety_checker", True) is not False
        )
        images = []
        for i in range(0 if call.empty else int(params.get("num_images", 1))):
            if flagged:
                data = blackout(width, height, fmt)
            else:
                sources = params.get("image_urls")
                key = f"fal|{job.model_id}|{prompt}|{seed}|{width}x{height}|{fmt}|{sources}|{i}"
                data = render(key, width, height, fmt)
            mime = MIME[fmt]
            url = store_file(emu, data, fmt, mime, ephemeral=False)
            images.append(
                {
                    "url": url,
                    "width": width,
                    "height": height,
                    "content_type": mime,
                    "file_name": url.rsplit("/", 1)[-1],
                    "file_size": len(data),
                }
            )
        return {
            "images": images,
            "timings": {"inference": 0.42},
            "seed": seed,
            "has_nsfw_concepts": [flagged] * len(images),
            "prompt": prompt,
        }


def register(routes: FakeRoutes) -> None:
    routes.option("fal_polls_to_complete", 3)  # None: never completes
    routes.add(FalApi())
