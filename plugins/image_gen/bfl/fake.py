"""Emulated Black Forest Labs FLUX API: submit ``/v1/{model}``, poll ``/v1/get_result`` (reference §8).

Auth is the ``x-key`` header. Submits answer ``{"id", "polling_url", "cost", "input_mp",
"output_mp"}``; ``emu.bfl_polls_to_complete`` polls later the task is ``Ready`` (``None``: never)
with ``result.sample`` on the ephemeral ``/files`` store. Prompts containing ``emu.MODERATION_WORD``
end ``Request Moderated``. Errors: FastAPI ``detail`` (422) and ``{"error", "message", "retry_after"}``
(429). Credit costs here are emulator values.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from hermes_nb.testing.fakes import MIME, Call, FakeRoutes, Response, render, sizes, store_file

__all__ = ["register", "BflApi", "MODELS"]

#: model → (credits per megapixel of output, side multiple, max side, references accepted)
MODELS: dict[str, tuple[float, int, int, int]] = {
    "flux-2-pro": (3.0, 16, 2048, 8),
    "flux-2-max": (7.0, 16, 2048, 8),
    "flux-2-flex": (6.0, 16, 2048, 8),
    "flux-2-klein-4b": (1.4, 16, 2048, 4),
    "flux-2-klein-9b": (1.5, 16, 2048, 4),
    "flux-pro-1.1": (4.0, 32, 1440, 0),
    "flux-pro-1.1-ultra": (6.0, 0, 0, 0),
    "flux-dev": (2.5, 32, 1440, 0),
}
_ULTRA_RATIOS = sizes(
    "21:9=2048x880 16:9=2048x1152 4:3=1856x1392 1:1=1536x1536 3:4=1392x1856 9:16=1152x2048 "
    "9:21=880x2048"
)
_MAX_TASKS = 256


@dataclass
class _Task:
    id: str
    model: str
    params: dict[str, Any]
    width: int
    height: int
    polls: int = 0
    sample: str | None = None


def _detail(field: str, msg: str, type_: str = "value_error") -> Response:
    return Response.json({"detail": [{"loc": ["body", field], "msg": msg, "type": type_}]}, 422)


class BflApi:
    """``POST {base}/v1/{model}`` submits; ``GET {base}/v1/get_result?id=…`` polls."""

    name = "bfl"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            wait = int(retry_after) if retry_after is not None else 5
            return Response.json(
                {
                    "error": "rate_limit_exceeded",
                    "message": "Too many concurrent requests",
                    "retry_after": wait,
                },
                429,
                {"Retry-After": str(wait)},
            )
        if status == 402:
            return Response.json({"detail": "Insufficient credits"}, 402)
        if status == 422:
            return _detail("prompt", "Emulated validation error")
        return Response.json(
            {"detail": "Internal Server Error" if status >= 500 else f"Emulated error {status}"}, status
        )

    def handle(self, call: Call) -> Response:
        key = call.header("x-key")
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return Response.json(
                {"detail": "Not authenticated - Invalid Authentication"}, 403 if key else 401
            )
        parts = [p for p in call.subpath.split("/") if p]
        if len(parts) != 2 or parts[0] != "v1":
            return Response.json({"detail": "Not Found"}, 404)
        if parts[1] == "get_result" and call.request.method == "GET":
            return self._poll(call, call.request.param("id") or "")
        if call.request.method == "POST" and parts[1] in MODELS:
            return self._submit(call, parts[1])
        return Response.json({"detail": "Not Found"}, 404)

    def _submit(self, call: Call, model: str) -> Response:
        emu, params = call.emu, call.request.json
        if not isinstance(params, dict):
            return _detail("__root__", "Input should be a valid dictionary", "dict_type")
        size = self._size(model, params)
        if isinstance(size, Response):
            return size
        width, height = size
        with emu.state_lock:
            tasks: dict[str, _Task] = emu.state.setdefault("bfl_tasks", {})
            number = emu.state["bfl_counter"] = emu.state.get("bfl_counter", 0) + 1
            task_id = str(uuid.UUID(int=emu.rng("bfl", number).getrandbits(128)))
            tasks[task_id] = _Task(task_id, model, dict(params), width, height)
            while len(tasks) > _MAX_TASKS:
                tasks.pop(next(iter(tasks)))
        refs = sum(1 for k in params if k.startswith("input_image"))
        output_mp = round(width * height / 1_000_000, 2)
        return Response.json(
            {
                "id": task_id,
                "polling_url": f"{emu.base_url('bfl')}/v1/get_result?id={task_id}",
                "cost": round(MODELS[model][0] * max(1.0, output_mp), 2),
                "input_mp": float(refs),
                "output_mp": output_mp,
            }
        )

    @staticmethod
    def _size(model: str, params: dict[str, Any]) -> tuple[int, int] | Response:
        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return _detail("prompt", "Field required", "missing")
        _credits, multiple, max_side, max_refs = MODELS[model]
        refs = [k for k in params if k.startswith("input_image")]
        if len(refs) > max_refs:
            return _detail(refs[-1], f"{model} accepts at most {max_refs} input images", "extra_forbidden")
        for name in refs:
            if not isinstance(params[name], str) or not params[name]:
                return _detail(name, "Input should be a URL or base64 encoded image", "string_type")
        if params.get("output_format", "jpeg") not in ("jpeg", "png", "webp"):
            return _detail("output_format", "Input should be 'jpeg', 'png' or 'webp'", "enum")
        tolerance = params.get("safety_tolerance", 2)
        if not isinstance(tolerance, int) or not 0 <= tolerance <= 6:
            return _detail("safety_tolerance", "Input should be less than or equal to 6", "less_than_equal")
        if multiple == 0:  # ultra: aspect ratio instead of a size
            ratio = params.get("aspect_ratio", "16:9")
            if ratio not in _ULTRA_RATIOS:
                return _detail("aspect_ratio", "Aspect ratio must be between 21:9 and 9:21")
            return _ULTRA_RATIOS[ratio]
        width, height = params.get("width", 1024), params.get("height", 768)
        for name, side in (("width", width), ("height", height)):
            if not isinstance(side, int) or not 256 <= side <= max_side:
                return _detail(name, f"Input should be between 256 and {max_side}", "less_than_equal")
            if side % multiple:
                return _detail(name, f"Input should be a multiple of {multiple}", "multiple_of")
        return width, height

    def _poll(self, call: Call, task_id: str) -> Response:
        emu = call.emu
        with emu.state_lock:
            task = emu.state.get("bfl_tasks", {}).get(task_id)
            if task is not None:
                task.polls += 1
        if task is None:
            return Response.json(
                {"id": task_id, "status": "Task not found", "result": None, "progress": None, "details": None}
            )
        needed = emu.bfl_polls_to_complete
        body: dict[str, Any] = {"id": task_id, "result": None, "progress": None, "details": None}
        if needed is None or task.polls < needed:
            return Response.json({**body, "status": "Pending", "progress": min(0.9, 0.3 * task.polls)})
        prompt = str(task.params["prompt"])
        if emu.MODERATION_WORD in prompt.lower():
            return Response.json(
                {
                    **body,
                    "status": "Request Moderated",
                    "details": {"Moderation Reasons": ["Derivative Works Filter"]},
                }
            )
        fmt = str(task.params.get("output_format", "jpeg"))
        with emu.state_lock:
            sample = task.sample
        if sample is None:
            seed = task.params.get("seed", emu.rng("bfl-seed", task_id).randrange(2**31))
            data = (
                b""
                if call.empty
                else render(
                    f"bfl|{emu.seed}|{task.model}|{prompt}|{seed}|{task.width}x{task.height}",
                    task.width,
                    task.height,
                    fmt,
                )
            )
            sample = store_file(
                emu, data, "jpg" if fmt == "jpeg" else fmt, MIME[fmt], ephemeral=False
            )
            with emu.state_lock:
                task.sample = task.sample or sample
                task.params.setdefault("seed", seed)
                sample = task.sample
        result = {
            "sample": sample,
            "prompt": prompt,
            "seed": task.params["seed"],
            "start_time": 0.0,
            "end_time": 0.9,
            "duration": 0.9,
        }
        return Response.json({**body, "status": "Ready", "result": result})


def register(routes: FakeRoutes) -> None:
    routes.option("bfl_polls_to_complete", 2)  # None: never Ready
    routes.add(BflApi())
