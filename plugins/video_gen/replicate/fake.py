"""Emulated Replicate predictions for video models (``/models/{owner}/{name}/predictions``).

A prediction ``starting`` on create (``Prefer: wait`` is honoured by answering at once), then
``processing``, then ``succeeded`` after ``emu.replicate_video_polls`` polls (``None``: never) with
``output`` a temporary MP4 URL; ``POST /predictions/{id}/cancel`` cancels. Errors are RFC 7807
problem bodies; a bad token is 401. Served under ``/replicate-video/v1`` (the image fake owns
``/replicate``).
"""

from __future__ import annotations

import json
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, store_file, video_clip

__all__ = ["register", "ReplicateVideoApi"]

_PREFIX = "/replicate-video/v1"


def _problem(status: int, title: str, detail: str) -> Response:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return Response(status, json.dumps(body).encode(), "application/problem+json")


class ReplicateVideoApi:
    name = "replicate-video"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return _problem(status, "Emulated error", f"status {status}")

    def handle(self, call: Call) -> Response:
        if call.rejects_bearer():
            return _problem(401, "Unauthenticated", "You did not pass a valid authentication token")
        parts = [p for p in call.subpath.split("/") if p]
        method, emu = call.request.method, call.emu
        if len(parts) == 4 and parts[0] == "models" and parts[3] == "predictions" and method == "POST":
            body = call.request.json
            data = body.get("input") if isinstance(body, dict) else None
            if not isinstance(data, dict) or not str(data.get("prompt") or "").strip():
                return _problem(422, "Input validation failed", "input.prompt: field required")
            with emu.state_lock:
                jobs: dict[str, dict[str, Any]] = emu.state.setdefault("replicate_videos", {})
                number = emu.state["replicate_video_counter"] = (
                    emu.state.get("replicate_video_counter", 0) + 1
                )
                pid = f"rv{number:06d}"
                jobs[pid] = {
                    "model": f"{parts[1]}/{parts[2]}",
                    "input": dict(data),
                    "polls": 0,
                    "status": "starting",
                }
            return Response.json(self._view(call, pid, jobs[pid]), 201)
        if len(parts) >= 2 and parts[0] == "predictions":
            with emu.state_lock:
                job = emu.state.get("replicate_videos", {}).get(parts[1])
            if job is None:
                return _problem(404, "Not found", "prediction not found")
            if parts[2:] == ["cancel"] and method == "POST":
                with emu.state_lock:
                    job["status"] = "canceled"
                return Response.json(self._view(call, parts[1], job))
            if len(parts) == 2 and method == "GET":
                with emu.state_lock:
                    job["polls"] += 1
                    needed = emu.replicate_video_polls
                    if job["status"] not in ("canceled", "succeeded"):
                        done = needed is not None and job["polls"] >= needed
                        job["status"] = "succeeded" if done else "processing"
                return Response.json(self._view(call, parts[1], job))
        return _problem(404, "Not found", "no such route")

    def _view(self, call: Call, pid: str, job: dict[str, Any]) -> dict[str, Any]:
        base = f"{call.emu.url}{_PREFIX}/predictions/{pid}"
        output = None
        if job["status"] == "succeeded":
            if "url" not in job:
                data = b"" if call.empty else video_clip(f"replicate|{job['model']}|{job['input']}")
                job["url"] = store_file(call.emu, data, "mp4", "video/mp4")
            output = job["url"]
        urls = {"get": base, "cancel": f"{base}/cancel"}
        return {"id": pid, "model": job["model"], "input": job["input"], "status": job["status"],
                "output": output, "error": None, "urls": urls}  # fmt: skip


def register(routes: FakeRoutes) -> None:
    routes.option("replicate_video_polls", 2)
    routes.add(ReplicateVideoApi(), prefix=_PREFIX, base_url_key="video_gen.replicate.base_url")
