"""Emulated OpenAI-compatible video server (the DeepInfra / self-hosted shape of ``POST /videos``).

``POST /videos`` takes ``model``, ``prompt`` and optional ``seconds``, ``size``, ``image_url``,
``aspect_ratio``, ``negative_prompt``, ``seed``; the job is ``queued``, then ``processing``, then
``succeeded`` after ``emu.compat_video_polls`` polls (``None``: never) with ``data: [{url}]`` (a
temporary file). ``DELETE /videos/{id}`` cancels. Any Bearer key but the bad one passes, and none
(a keyless self-hosted server).
"""

from __future__ import annotations

from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, store_file, video_clip

__all__ = ["register", "CompatibleVideoApi"]

_FIELDS = {"model", "prompt", "seconds", "size", "image_url", "aspect_ratio", "negative_prompt", "seed"}


class CompatibleVideoApi:
    name = "openai-compatible-video"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return Response.json({"error": {"message": f"Emulated error {status}"}}, status)

    def handle(self, call: Call) -> Response:
        key = call.bearer()
        if call.auth_fail or key == call.emu.BAD_KEY:  # no key at all: a keyless self-hosted server
            return Response.json({"error": {"message": "invalid API key"}}, 401)
        parts = [p for p in call.subpath.split("/") if p]
        method, emu = call.request.method, call.emu
        if parts == ["videos"] and method == "POST":
            body = call.request.json
            if (
                not isinstance(body, dict)
                or not str(body.get("prompt") or "").strip()
                or not body.get("model")
            ):
                return Response.json({"error": {"message": "model and prompt are required"}}, 422)
            if set(body) - _FIELDS:
                return Response.json(
                    {"error": {"message": f"unknown fields {sorted(set(body) - _FIELDS)}"}}, 422
                )
            with emu.state_lock:
                jobs: dict[str, dict[str, Any]] = emu.state.setdefault("compat_videos", {})
                number = emu.state["compat_video_counter"] = emu.state.get("compat_video_counter", 0) + 1
                job_id = f"job-{number}"
                jobs[job_id] = {"body": dict(body), "polls": 0, "cancelled": False, "url": None}
            return Response.json({"id": job_id, "object": "video", "status": "queued"})
        if len(parts) == 2 and parts[0] == "videos":
            with emu.state_lock:
                job = emu.state.get("compat_videos", {}).get(parts[1])
            if job is None:
                return Response.json({"error": {"message": "job not found"}}, 404)
            if method == "DELETE":
                with emu.state_lock:
                    job["cancelled"] = True
                return Response.json({"id": parts[1], "status": "cancelled"})
            if method == "GET":
                return Response.json(self._status(call, parts[1], job))
        return Response.json({"error": {"message": "not found"}}, 404)

    def _status(self, call: Call, job_id: str, job: dict[str, Any]) -> dict[str, Any]:
        emu = call.emu
        with emu.state_lock:
            job["polls"] += 1
            needed = emu.compat_video_polls
            if job["cancelled"]:
                return {"id": job_id, "status": "cancelled"}
            if needed is None or job["polls"] < needed:
                return {"id": job_id, "status": "processing"}
        if job["url"] is None:
            job["url"] = store_file(
                emu, b"" if call.empty else video_clip(f"compat|{job['body']}"), "mp4", "video/mp4"
            )
        return {"id": job_id, "status": "succeeded", "seconds": job["body"].get("seconds"),
                "data": [{"url": job["url"]}]}  # fmt: skip


def register(routes: FakeRoutes) -> None:
    routes.option("compat_video_polls", 2)
    routes.keys("OPENAI_COMPATIBLE_API_KEY")
    routes.add(CompatibleVideoApi(), prefix="/openai-compatible-video/v1",
               base_url_key="video_gen.openai_compatible.base_url")  # fmt: skip
