"""Emulated Gemini API long-running video operations (Veo): ``models/{model}:predictLongRunning``.

The operation is ``done`` after ``emu.veo_polls`` polls of ``GET /{operation name}`` (``None``:
never); its response names a file ``video.uri`` under ``/files/{id}:download`` on this same API,
served only with the key (``x-goog-api-key``). ``POST {operation}:cancel`` cancels. The moderation
word in a prompt gives no sample and ``raiMediaFilteredReasons``. Served under ``/gemini-video/v1beta``.
"""

from __future__ import annotations

from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, video_clip

__all__ = ["register", "VeoApi", "MODELS"]

_PREFIX = "/gemini-video/v1beta"
MODELS = ("veo-3.1-generate-preview", "veo-3.1-fast-generate-preview", "veo-3.0-generate-001")


def _error(status: int, message: str, state: str) -> Response:
    return Response.json({"error": {"code": status, "message": message, "status": state}}, status)


class VeoApi:
    name = "gemini-video"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return _error(
            status, f"Emulated error {status}", "UNAVAILABLE" if status >= 500 else "INVALID_ARGUMENT"
        )

    def handle(self, call: Call) -> Response:
        key = call.header("x-goog-api-key")
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return _error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT")
        path, method, emu = call.subpath.strip("/"), call.request.method, call.emu
        if path.startswith("models/") and path.endswith(":predictLongRunning") and method == "POST":
            model = path[len("models/") : -len(":predictLongRunning")]
            if model not in MODELS:
                return _error(404, f"models/{model} is not found", "NOT_FOUND")
            body = call.request.json
            instances = body.get("instances") if isinstance(body, dict) else None
            if not isinstance(instances, list) or not instances or not str(instances[0].get("prompt") or ""):
                return _error(400, "instances[0].prompt is required", "INVALID_ARGUMENT")
            parameters = body.get("parameters") or {}
            if parameters.get("durationSeconds", 8) not in (4, 6, 8):
                return _error(400, "durationSeconds must be 4, 6 or 8", "INVALID_ARGUMENT")
            with emu.state_lock:
                ops: dict[str, dict[str, Any]] = emu.state.setdefault("veo_operations", {})
                number = emu.state["veo_counter"] = emu.state.get("veo_counter", 0) + 1
                name = f"models/{model}/operations/op{number:05d}"
                ops[name] = {"body": body, "polls": 0, "cancelled": False}
            return Response.json({"name": name})
        if path.startswith("files/") and path.endswith(":download") and method == "GET":
            with emu.state_lock:
                data = emu.state.get("veo_files", {}).get(path[len("files/") : -len(":download")])
            return (
                Response(200, data, "video/mp4")
                if data is not None
                else _error(404, "file not found", "NOT_FOUND")
            )
        if path.endswith(":cancel") and method == "POST":
            with emu.state_lock:
                op = emu.state.get("veo_operations", {}).get(path[: -len(":cancel")])
                if op is not None:
                    op["cancelled"] = True
            return Response.json({}) if op is not None else _error(404, "operation not found", "NOT_FOUND")
        if method == "GET" and "/operations/" in path:
            return self._operation(call, path)
        return _error(404, "not found", "NOT_FOUND")

    def _operation(self, call: Call, name: str) -> Response:
        emu = call.emu
        with emu.state_lock:
            op = emu.state.get("veo_operations", {}).get(name)
            if op is None:
                return _error(404, "operation not found", "NOT_FOUND")
            op["polls"] += 1
            needed = emu.veo_polls
            done = needed is not None and op["polls"] >= needed
        if op["cancelled"]:
            return Response.json({"name": name, "done": True, "error": {"code": 1, "message": "cancelled"}})
        if not done:
            return Response.json({"name": name, "metadata": {"@type": "GenerateVideoMetadata"}})
        prompt = str(op["body"]["instances"][0]["prompt"])
        if emu.MODERATION_WORD in prompt.lower():
            reasons = ["The prompt could not be submitted."]
            generated: dict[str, Any] = {"raiMediaFilteredCount": 1, "raiMediaFilteredReasons": reasons}
        else:
            file_id = name.rsplit("/", 1)[-1]
            with emu.state_lock:
                emu.state.setdefault("veo_files", {})[file_id] = (
                    b"" if call.empty else video_clip(f"veo|{op['body']}")
                )
            uri = f"{emu.url}{_PREFIX}/files/{file_id}:download?alt=media"
            generated = {"generatedSamples": [{"video": {"uri": uri}}]}
        return Response.json({"name": name, "done": True, "response": {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
            "generateVideoResponse": generated}})  # fmt: skip


def register(routes: FakeRoutes) -> None:
    routes.option("veo_polls", 2)
    routes.add(VeoApi(), prefix=_PREFIX, base_url_key="video_gen.google.base_url")
