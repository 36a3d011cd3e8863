"""Emulated OpenAI Videos API (the ``/videos`` paths of the OpenAI OpenAPI description).

``POST /videos`` (JSON ``CreateVideoJsonBody``) answers a ``VideoResource`` ``queued``; each
``GET /videos/{id}`` moves it on (``queued`` → ``in_progress`` → ``completed`` after
``emu.openai_video_polls`` polls; ``None``: never), ``GET /videos/{id}/content`` gives the MP4
(``?variant=thumbnail`` a JPEG), ``DELETE /videos/{id}`` deletes it. A prompt holding the
emulator's moderation word ends ``failed`` with ``moderation_blocked``. Served under
``/openai-video/v1`` (the image fake owns ``/openai``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, mask_key, render, video_clip

__all__ = ["register", "OpenAIVideoApi", "SIZES", "SECONDS", "MODELS"]

SIZES = ("720x1280", "1280x720", "1024x1792", "1792x1024")
SECONDS = ("4", "8", "12")
MODELS = ("sora-2", "sora-2-pro", "sora-2-2025-10-06", "sora-2-pro-2025-10-06", "sora-2-2025-12-08")
_MAX_JOBS = 256


@dataclass
class _Job:
    id: str
    model: str
    prompt: str
    size: str
    seconds: str
    reference: str | None
    created_at: int
    polls: int = 0
    deleted: bool = False
    failed: bool = False


def _error(message: str, status: int, code: str | None = None, param: str | None = None) -> Response:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return Response.json({"error": {"message": message, "type": kind, "param": param, "code": code}}, status)


class OpenAIVideoApi:
    """``/videos`` create, retrieve, delete and content; Bearer keys, 401 for a bad one."""

    name = "openai-video"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = {"retry-after": str(int(retry_after))} if retry_after is not None else {}
        response = _error(
            f"Emulated error {status}", status, "rate_limit_exceeded" if status == 429 else None
        )
        response.headers.update(headers)
        return response

    def handle(self, call: Call) -> Response:
        key = call.bearer()
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            shown = mask_key(key or "")
            return _error(f"Incorrect API key provided: {shown}.", 401, "invalid_api_key")
        parts = [p for p in call.subpath.split("/") if p]
        method = call.request.method
        if parts == ["videos"] and method == "POST":
            return self._create(call)
        if len(parts) >= 2 and parts[0] == "videos":
            with call.emu.state_lock:
                job = call.emu.state.get("openai_videos", {}).get(parts[1])
            if job is None or job.deleted:
                return _error(f"Video '{parts[1]}' not found", 404, "video_not_found")
            if len(parts) == 2 and method == "GET":
                return Response.json(self._resource(call, job, poll=True))
            if len(parts) == 2 and method == "DELETE":
                with call.emu.state_lock:
                    job.deleted = True
                return Response.json({"id": job.id, "object": "video.deleted", "deleted": True})
            if parts[2:] == ["content"] and method == "GET":
                return self._content(call, job)
        return _error("Not found", 404)

    def _create(self, call: Call) -> Response:
        body = call.request.json
        if not isinstance(body, dict):
            return _error("The request body must be a JSON object.", 400)
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip() or len(prompt) > 32000:
            return _error(
                "Missing required parameter: 'prompt'.", 400, "missing_required_parameter", "prompt"
            )
        model = body.get("model", "sora-2")
        if model not in MODELS:
            return _error(f"Invalid model: {model!r}.", 400, "invalid_value", "model")
        size, seconds = body.get("size", "720x1280"), body.get("seconds", "4")
        if size not in SIZES:
            return _error(
                f"Invalid size {size!r}; supported: {', '.join(SIZES)}.", 400, "invalid_value", "size"
            )
        if seconds not in SECONDS:
            return _error(
                f"Invalid seconds {seconds!r}; supported: 4, 8, 12.", 400, "invalid_value", "seconds"
            )
        if size in ("1024x1792", "1792x1024") and not str(model).startswith("sora-2-pro"):
            return _error(f"{size} is only available with sora-2-pro.", 400, "invalid_value", "size")
        reference = body.get("input_reference")
        url = reference.get("image_url") if isinstance(reference, dict) else None
        if reference is not None and not isinstance(url, str):
            return _error(
                "input_reference needs image_url or file_id.", 400, "invalid_value", "input_reference"
            )
        unknown = set(body) - {"model", "prompt", "size", "seconds", "input_reference"}
        if unknown:
            return _error(
                f"Unrecognized request argument supplied: {sorted(unknown)[0]}", 400, "unknown_parameter"
            )
        emu = call.emu
        with emu.state_lock:
            jobs: dict[str, _Job] = emu.state.setdefault("openai_videos", {})
            number = emu.state["openai_video_counter"] = emu.state.get("openai_video_counter", 0) + 1
            video_id = f"video_{emu.rng('openai-video', number).getrandbits(64):016x}"
            jobs[video_id] = _Job(video_id, str(model), prompt, size, seconds, url, int(time.time()))
            while len(jobs) > _MAX_JOBS:
                jobs.pop(next(iter(jobs)))
            job = jobs[video_id]
        return Response.json(self._resource(call, job, poll=False))

    def _status(self, call: Call, job: _Job, poll: bool) -> str:
        with call.emu.state_lock:
            if poll:
                job.polls += 1
            if call.emu.MODERATION_WORD in job.prompt.lower():
                job.failed = True
            if job.failed:
                return "failed"
            needed = call.emu.openai_video_polls
            if needed is not None and job.polls >= needed:
                return "completed"
            return "queued" if job.polls == 0 else "in_progress"

    def _resource(self, call: Call, job: _Job, *, poll: bool) -> dict[str, Any]:
        status = self._status(call, job, poll)
        needed = call.emu.openai_video_polls or 10
        done = status == "completed"
        error = {
            "code": "moderation_blocked",
            "message": "Your request was blocked by our moderation system.",
        }
        return {
            "id": job.id,
            "object": "video",
            "model": job.model,
            "status": status,
            "progress": 100 if done else min(99, int(100 * job.polls / max(1, needed))),
            "created_at": job.created_at,
            "completed_at": job.created_at + 1 if done else None,
            "expires_at": job.created_at + 86400 if done else None,
            "prompt": job.prompt,
            "size": job.size,
            "seconds": job.seconds,
            "remixed_from_video_id": None,
            "error": error if status == "failed" else None,
        }

    def _content(self, call: Call, job: _Job) -> Response:
        if self._status(call, job, poll=False) != "completed":
            return _error(
                "Video is not ready yet; wait until its status is completed.", 400, "video_not_ready"
            )
        variant = call.request.param("variant") or "video"
        if variant == "thumbnail":
            width, height = (int(v) for v in job.size.split("x"))
            data = render(f"openai-video|{job.id}", max(16, width // 10), max(16, height // 10), "jpeg")
            return Response(200, data, "image/jpeg")
        if variant != "video":
            return _error(f"Invalid variant {variant!r}.", 400, "invalid_value", "variant")
        key = f"openai-video|{job.model}|{job.prompt}|{job.size}|{job.seconds}|{job.reference}"
        return Response(200, b"" if call.empty else video_clip(key), "video/mp4")


def register(routes: FakeRoutes) -> None:
    routes.option("openai_video_polls", 2)  # polls until completed; None: never completes
    routes.add(OpenAIVideoApi(), prefix="/openai-video/v1", base_url_key="video_gen.openai.base_url")
