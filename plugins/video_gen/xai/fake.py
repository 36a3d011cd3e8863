"""Emulated xAI Grok Imagine video: ``POST /videos/generations`` → ``{request_id}``; ``GET /videos/{id}``.

A request is ``pending`` until it has been polled ``emu.xai_video_polls`` times (``None``: never),
then ``done`` with ``video.url`` — a temporary file on the emulator — its ``duration`` and
``usage.cost_in_usd_ticks``. The moderation word in a prompt ends it ``failed``. A bad key is 401.
Served under xAI's prefix ``/xai/v1`` (``/videos`` only; the image and search fakes share it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, store_file, video_clip

__all__ = ["register", "XaiVideoApi", "RATIOS", "RESOLUTIONS", "MODELS", "TICKS_PER_SECOND"]

RATIOS = ("1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3")
RESOLUTIONS = ("480p", "720p")
MODELS = ("grok-imagine-video", "grok-imagine-video-1.5")
TICKS_PER_SECOND = 500_000_000  # $0.05 per second (1 tick = 1e-10 USD), an emulator figure
_MAX_JOBS = 256


@dataclass
class _Request:
    id: str
    payload: dict[str, Any]
    polls: int = 0
    answer: dict[str, Any] | None = field(default=None, repr=False)


def _error(message: str, status: int) -> Response:
    return Response.json({"code": "Client specified an invalid argument", "error": message}, status)


class XaiVideoApi:
    name = "xai-video"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        response = _error(f"Emulated error {status}", status)
        if retry_after is not None:
            response.headers["retry-after"] = str(int(retry_after))
        return response

    def handle(self, call: Call) -> Response:
        if call.rejects_bearer():
            return _error("Incorrect API key provided: check your key at console.x.ai", 401)
        parts = [p for p in call.subpath.split("/") if p]
        if parts == ["videos", "generations"] and call.request.method == "POST":
            return self._submit(call)
        if len(parts) == 2 and parts[0] == "videos" and call.request.method == "GET":
            return self._status(call, parts[1])
        return _error("Not found", 404)

    def _submit(self, call: Call) -> Response:
        body = call.request.json
        if not isinstance(body, dict):
            return _error("body must be a JSON object", 400)
        prompt, model = body.get("prompt"), body.get("model", "grok-imagine-video")
        duration = body.get("duration", 8)
        ratio, resolution = body.get("aspect_ratio", "16:9"), body.get("resolution", "720p")
        problems = [
            "prompt is required" if not isinstance(prompt, str) or not prompt.strip() else "",
            f"unknown model {model}" if model not in MODELS else "",
            "" if isinstance(duration, int) and not isinstance(duration, bool) and 1 <= duration <= 15
            else "duration must be an integer from 1 to 15",
            f"aspect_ratio must be one of {RATIOS}" if ratio not in RATIOS else "",
            f"resolution must be one of {RESOLUTIONS}" if resolution not in RESOLUTIONS else "",
            "image and reference_images cannot be combined"
            if body.get("image") and body.get("reference_images") else "",
            "grok-imagine-video-1.5 needs an image"
            if model == "grok-imagine-video-1.5" and not body.get("image") else "",
        ]  # fmt: skip
        refs = body.get("reference_images") or []
        if len(refs) > 7 or not all(isinstance(r, dict) and isinstance(r.get("url"), str) for r in refs):
            problems.append("reference_images: at most 7 objects with a url")
        image = body.get("image")
        if image is not None and not (isinstance(image, dict) and isinstance(image.get("url"), str)):
            problems.append("image must be an object with a url")
        message = next((p for p in problems if p), "")
        if message:
            return _error(message, 400)
        emu = call.emu
        with emu.state_lock:
            jobs: dict[str, _Request] = emu.state.setdefault("xai_videos", {})
            number = emu.state["xai_video_counter"] = emu.state.get("xai_video_counter", 0) + 1
            request_id = f"{emu.rng('xai-video', number).getrandbits(128):032x}"
            jobs[request_id] = _Request(request_id, dict(body))
            while len(jobs) > _MAX_JOBS:
                jobs.pop(next(iter(jobs)))
        return Response.json({"request_id": request_id})

    def _status(self, call: Call, request_id: str) -> Response:
        emu = call.emu
        with emu.state_lock:
            job = emu.state.get("xai_videos", {}).get(request_id)
            if job is None:
                return _error(f"no video request {request_id}", 404)
            job.polls += 1
            needed = emu.xai_video_polls
            ready = needed is not None and job.polls >= needed
        payload = job.payload
        if emu.MODERATION_WORD in str(payload["prompt"]).lower():
            return Response.json(
                {"status": "failed", "error": {"message": "The prompt was rejected by moderation"}}
            )
        if not ready:
            return Response.json({"status": "pending"})
        if job.answer is None:
            duration = int(payload.get("duration", 8))
            key = f"xai-video|{payload}"
            url = store_file(emu, b"" if call.empty else video_clip(key), "mp4", "video/mp4")
            answer = {
                "status": "done",
                "model": payload.get("model", "grok-imagine-video"),
                "video": {"url": url, "duration": duration, "respect_moderation": True},
                "usage": {"cost_in_usd_ticks": TICKS_PER_SECOND * duration},
            }
            with emu.state_lock:
                job.answer = job.answer or answer
        return Response.json(job.answer)


def register(routes: FakeRoutes) -> None:
    routes.option("xai_video_polls", 2)  # polls until done; None: never
    routes.add(XaiVideoApi(), prefix="/xai/v1", paths=("/videos",), base_url_key="video_gen.xai.base_url")
