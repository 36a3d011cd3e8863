"""Emulated fal.ai queue for video endpoints: submit, status, result, cancel (the image fake's queue shape).

``POST {prefix}/{owner}/{app}[/{sub}]`` answers a ticket whose ``status_url``, ``response_url`` and
``cancel_url`` live under ``{owner}/{app}/requests/{id}`` (no subpath, as fal's queue does); a job
completes after ``emu.fal_video_polls`` status polls (``None``: never); the result is
``{"video": {"url", "content_type", "file_size"}, "seed"}`` with the URL a temporary file. Served under
``/fal-video`` (the image fake owns ``/fal``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, store_file, video_clip

__all__ = ["register", "FalVideoApi"]

_PREFIX = "/fal-video"


@dataclass
class _Job:
    request_id: str
    app: str
    endpoint: str
    params: dict[str, Any]
    polls: int = 0
    cancelled: bool = False
    result: dict[str, Any] | None = None


class FalVideoApi:
    name = "fal-video"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return Response.json({"detail": f"Emulated error {status}"}, status)

    def handle(self, call: Call) -> Response:
        if call.rejects_token("Key"):
            return Response.json({"detail": "Unauthorized"}, 401)
        parts = [p for p in call.subpath.split("/") if p]
        if "requests" in parts:
            return self._request(call, parts)
        if call.request.method != "POST" or len(parts) < 2:
            return Response.json({"detail": "Not Found"}, 404)
        params = call.request.json
        if not isinstance(params, dict) or not str(params.get("prompt") or "").strip():
            loc = ["body", "prompt"]
            return Response.json(
                {"detail": [{"loc": loc, "msg": "field required", "type": "value_error"}]}, 422
            )
        if parts[-1] == "image-to-video" and not (params.get("image_url") or params.get("start_image_url")):
            loc = ["body", "image_url"]
            return Response.json(
                {"detail": [{"loc": loc, "msg": "field required", "type": "value_error"}]}, 422
            )
        emu = call.emu
        with emu.state_lock:
            jobs: dict[str, _Job] = emu.state.setdefault("fal_video_jobs", {})
            number = emu.state["fal_video_counter"] = emu.state.get("fal_video_counter", 0) + 1
            request_id = str(uuid.UUID(int=emu.rng("fal-video", number).getrandbits(128)))
            app = "/".join(parts[:2])
            jobs[request_id] = _Job(request_id, app, "/".join(parts), dict(params))
        base = f"{emu.url}{_PREFIX}/{app}/requests/{request_id}"
        return Response.json({"request_id": request_id, "status_url": f"{base}/status", "response_url": base,
                              "cancel_url": f"{base}/cancel", "queue_position": 0})  # fmt: skip

    def _request(self, call: Call, parts: list[str]) -> Response:
        index = parts.index("requests")
        tail = parts[index + 1 :]
        with call.emu.state_lock:
            job = call.emu.state.get("fal_video_jobs", {}).get(tail[0]) if tail else None
        if job is None or "/".join(parts[:index]) != job.app:
            return Response.json({"detail": "Request not found"}, 404)
        action, method = (tail[1] if len(tail) > 1 else ""), call.request.method
        if action == "cancel" and method == "PUT":
            with call.emu.state_lock:
                job.cancelled = True
            return Response.json({"status": "CANCELLATION_REQUESTED"}, 202)
        if action == "status" and method == "GET":
            with call.emu.state_lock:
                job.polls += 1
                needed = call.emu.fal_video_polls
                done = job.cancelled or (needed is not None and job.polls >= needed)
            body: dict[str, Any] = {
                "status": "COMPLETED" if done else "IN_PROGRESS",
                "request_id": job.request_id,
            }
            if job.cancelled:
                body["error"] = "Request was cancelled"
            return Response.json(body, 200 if done else 202)
        if action == "" and method == "GET":
            if job.result is None:
                seconds = str(job.params.get("duration", "5")).rstrip("s")
                data = b"" if call.empty else video_clip(f"fal-video|{job.endpoint}|{job.params}")
                url = store_file(call.emu, data, "mp4", "video/mp4")
                job.result = {"video": {"url": url, "content_type": "video/mp4", "file_size": len(data)},
                              "seed": job.params.get("seed", 42), "duration": seconds}  # fmt: skip
            return Response.json(job.result)
        return Response.json({"detail": "Not Found"}, 404)


def register(routes: FakeRoutes) -> None:
    routes.option("fal_video_polls", 2)
    routes.add(FalVideoApi(), prefix=_PREFIX, base_url_key="video_gen.fal.base_url")
