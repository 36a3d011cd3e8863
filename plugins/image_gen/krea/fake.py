"""Emulated Krea API: ``POST /generate/image/krea/krea-2/{model}``, ``GET`` / ``DELETE /jobs/{id}``.

Bearer auth. A submit answers ``{"job_id", "status": "backlogged", "created_at"}``; the job becomes
``completed`` after ``emu.krea_polls_to_complete`` polls (``None``: it never finishes), passing
``queued`` and ``processing``; a completed job carries ``result.urls`` on the emulator's file store
and ``completed_at``. Prompts containing ``emu.MODERATION_WORD`` end ``failed`` with a moderation
error. ``image_style_references`` entries must be objects (a bare string is a 422, as on Krea).
Errors: ``{"message": …}`` (401/402/404/422), 429 with ``Retry-After``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from hermes_nb.testing.fakes import MIME, Call, FakeRoutes, Response, render, store_file

__all__ = ["register", "KreaApi"]

MODELS = ("medium", "large", "medium-turbo")
ASPECTS = {"1:1": (1024, 1024), "4:3": (1184, 888), "3:2": (1248, 832), "16:9": (1376, 768),
           "2.35:1": (1536, 656), "4:5": (912, 1136), "2:3": (832, 1248), "9:16": (768, 1376)}  # fmt: skip
CREATIVITY = ("raw", "low", "medium", "high")
_WAITING = ("queued", "processing")
_MAX_JOBS = 256


@dataclass
class _Job:
    id: str
    model: str
    params: dict[str, Any]
    polls: int = 0
    status: str = "backlogged"
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())
    urls: list[str] = field(default_factory=list)


def _message(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response.json({"message": message}, status, headers)


class KreaApi:
    name = "krea"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            wait = str(int(retry_after if retry_after is not None else 2))
            return _message(429, "Too many concurrent jobs", {"Retry-After": wait})
        if status == 402:
            return _message(402, "Insufficient compute units")
        return _message(status, f"Emulated error {status}")

    def handle(self, call: Call) -> Response:
        if call.rejects_bearer():
            return _message(401, "Invalid API token")
        parts = [p for p in call.subpath.split("/") if p]
        method = call.request.method
        if method == "POST" and parts[:4] == ["generate", "image", "krea", "krea-2"] and len(parts) == 5:
            if parts[4] not in MODELS:
                return _message(404, f"Unknown model krea-2/{parts[4]}")
            return self._submit(call, parts[4])
        if len(parts) == 2 and parts[0] == "jobs" and method in ("GET", "DELETE"):
            return self._job(call, parts[1], cancel=method == "DELETE")
        return _message(404, "Not Found")

    def _submit(self, call: Call, model: str) -> Response:
        params = call.request.json
        if not isinstance(params, dict) or not isinstance(params.get("prompt"), str) or not params["prompt"]:
            return _message(422, "prompt: Required")
        if str(params.get("aspect_ratio") or "1:1") not in ASPECTS:
            return _message(422, f"aspect_ratio: Invalid enum value {params.get('aspect_ratio')!r}")
        if str(params.get("creativity") or "medium") not in CREATIVITY:
            return _message(422, f"creativity: Invalid enum value {params.get('creativity')!r}")
        for ref in params.get("image_style_references") or []:
            if not isinstance(ref, dict):
                return _message(422, "image_style_references.0: Expected object, received string")
        if len(params.get("moodboards") or []) > 1:
            return _message(422, "moodboards: Array must contain at most 1 element(s)")
        emu = call.emu
        with emu.state_lock:
            jobs: dict[str, _Job] = emu.state.setdefault("krea_jobs", {})
            number = emu.state["krea_counter"] = emu.state.get("krea_counter", 0) + 1
            job = _Job(str(uuid.UUID(int=emu.rng("krea", number).getrandbits(128))), model, dict(params))
            jobs[job.id] = job
            while len(jobs) > _MAX_JOBS:
                jobs.pop(next(iter(jobs)))
        return Response.json({"job_id": job.id, "status": job.status, "created_at": job.created})

    def _job(self, call: Call, job_id: str, *, cancel: bool) -> Response:
        emu = call.emu
        with emu.state_lock:
            job = emu.state.get("krea_jobs", {}).get(job_id)
            if job is None:
                return _message(404, "Job not found")
            if cancel:
                if job.status not in ("completed", "failed"):
                    job.status = "cancelled"
                return Response.json({"job_id": job.id, "status": job.status})
            job.polls += 1
            done_after = emu.krea_polls_to_complete
            finishing = job.status in ("backlogged", *_WAITING) and done_after is not None
            if finishing and job.polls >= done_after:
                job.status = "failed" if emu.MODERATION_WORD in job.params["prompt"].lower() else "completed"
            elif job.status in ("backlogged", *_WAITING):
                job.status = _WAITING[min(job.polls - 1, len(_WAITING) - 1)]
            status = job.status
        body: dict[str, Any] = {"job_id": job.id, "status": status, "created_at": job.created, "result": None}
        if status == "failed":
            body["result"] = {"error": "Prompt flagged by moderation"}
        if status == "completed":
            if not job.urls and not call.empty:
                width, height = ASPECTS[str(job.params.get("aspect_ratio") or "1:1")]
                seed = job.params.get("seed", 0)
                text = f"krea|{emu.seed}|{job.model}|{job.params['prompt']}|{seed}"
                data = render(text, width, height, "png")
                job.urls = [store_file(emu, data, "png", MIME["png"], ephemeral=False)]
            body["result"] = {"urls": list(job.urls)}
            body["completed_at"] = datetime.now(timezone.utc).isoformat()
        return Response.json(body)


def register(routes: FakeRoutes) -> None:
    routes.add(KreaApi())
    routes.option("krea_polls_to_complete", 2)
