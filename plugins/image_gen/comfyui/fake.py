"""Emulated ComfyUI: ``/prompt`` validation with ``node_errors``, ``/history``, ``/view`` (reference §7)."""

from __future__ import annotations

import hashlib
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, render

__all__ = ["register", "ComfyUIApi", "CHECKPOINTS", "PENDING_POLLS"]

CHECKPOINTS = ("sd_xl_base_1.0.safetensors", "v1-5-pruned-emaonly.safetensors")
#: ``/history/<id>`` answers ``{}`` this many times before the run completes
PENDING_POLLS = 2
#: class_type -> required inputs (a small part of ``/object_info``)
_NODES: dict[str, tuple[str, ...]] = {
    "CheckpointLoaderSimple": ("ckpt_name",),
    "CLIPTextEncode": ("text", "clip"),
    "EmptyLatentImage": ("width", "height", "batch_size"),
    "KSampler": (
        "seed",
        "steps",
        "cfg",
        "sampler_name",
        "scheduler",
        "denoise",
        "model",
        "positive",
        "negative",
        "latent_image",
    ),
    "VAEDecode": ("samples", "vae"),
    "SaveImage": ("filename_prefix", "images"),
    "PreviewImage": ("images",),
}
_SAMPLERS = ("euler", "euler_ancestral", "dpmpp_2m", "dpmpp_2m_sde", "ddim")


def _node_error(class_type: str, kind: str, message: str, details: str, name: str) -> dict[str, Any]:
    return {
        "errors": [
            {"type": kind, "message": message, "details": details, "extra_info": {"input_name": name}}
        ],
        "dependent_outputs": [],
        "class_type": class_type,
    }


class ComfyUIApi:
    """A ComfyUI that renders deterministic images; a prompt containing "crash" fails in KSampler."""

    name = "comfyui"

    @staticmethod
    def _state(call: Call) -> dict[str, Any]:
        """This emulator's ComfyUI state (call with ``emu.state_lock`` held)."""
        return call.emu.state.setdefault("comfyui", {"jobs": {}, "files": {}, "count": 0})

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return Response.text("500: Internal Server Error", status)

    def handle(self, call: Call) -> Response:
        path = call.subpath[4:] if call.subpath.startswith("/api/") else call.subpath
        method = call.request.method
        if path == "/prompt" and method == "POST":
            return self._queue(call)
        if path.startswith("/history/") and method == "GET":
            return self._history(call, path.removeprefix("/history/"))
        if path == "/view" and method == "GET":
            return self._view(call)
        if path == "/queue" and method == "POST":
            body = call.json_body
            with call.emu.state_lock:
                for pid in body.get("delete") or []:
                    self._state(call)["jobs"].pop(str(pid), None)
            return Response(200, b"")
        if path == "/system_stats" and method == "GET":
            return Response.json({"system": {"comfyui_version": "0.3.emulated"}, "devices": []})
        return Response.text("404: Not Found", 404)

    # -- /prompt --------------------------------------------------------------------------
    def _queue(self, call: Call) -> Response:
        body = call.json_body
        graph = body.get("prompt")
        if not isinstance(graph, dict) or not graph:
            error = {"type": "no_prompt", "message": "No prompt provided", "details": "", "extra_info": {}}
            return Response.json({"error": error, "node_errors": {}}, 400)
        node_errors: dict[str, Any] = {}
        outputs = []
        for node_id, node in graph.items():
            class_type = node.get("class_type") if isinstance(node, dict) else None
            if class_type not in _NODES:
                error = {
                    "type": "invalid_prompt",
                    "message": f"Cannot execute because node {class_type} does not exist.",
                    "details": f"Node ID '#{node_id}'",
                    "extra_info": {},
                }
                return Response.json({"error": error, "node_errors": {}}, 400)
            problem = self._check(graph, node_id, class_type, node.get("inputs") or {})
            if problem:
                node_errors[node_id] = problem
            if class_type in ("SaveImage", "PreviewImage"):
                outputs.append(node_id)
        if not outputs:
            error = {
                "type": "prompt_no_outputs",
                "message": "Prompt has no outputs",
                "details": "",
                "extra_info": {},
            }
            return Response.json({"error": error, "node_errors": {}}, 400)
        if node_errors:
            error = {
                "type": "prompt_outputs_failed_validation",
                "message": "Prompt outputs failed validation",
                "details": "",
                "extra_info": {},
            }
            return Response.json({"error": error, "node_errors": node_errors}, 400)
        with call.emu.state_lock:
            state = self._state(call)
            state["count"] += 1
            number = state["count"]
            prompt_id = hashlib.sha256(f"{call.emu.seed}|{number}".encode()).hexdigest()[:8] + "-emu"
            state["jobs"][prompt_id] = {"graph": graph, "polls": 0, "outputs": outputs, "number": number}
        return Response.json({"prompt_id": prompt_id, "number": number, "node_errors": {}})

    @staticmethod
    def _check(graph: dict[str, Any], node_id: str, class_type: str, inputs: dict[str, Any]) -> Any:
        for name in _NODES[class_type]:
            if name not in inputs:
                return _node_error(
                    class_type, "required_input_missing", "Required input is missing", name, name
                )
            value = inputs[name]
            if isinstance(value, list) and (len(value) != 2 or str(value[0]) not in graph):
                return _node_error(
                    class_type, "bad_linked_input", "Bad linked input, must be a length-2 list", name, name
                )
        if class_type == "CheckpointLoaderSimple" and inputs["ckpt_name"] not in CHECKPOINTS:
            return _node_error(
                class_type,
                "value_not_in_list",
                "Value not in list",
                f"ckpt_name: '{inputs['ckpt_name']}' not in {list(CHECKPOINTS)}",
                "ckpt_name",
            )
        if class_type == "KSampler" and inputs["sampler_name"] not in _SAMPLERS:
            return _node_error(
                class_type,
                "value_not_in_list",
                "Value not in list",
                f"sampler_name: '{inputs['sampler_name']}' not in {list(_SAMPLERS)}",
                "sampler_name",
            )
        if class_type == "EmptyLatentImage":
            for name in ("width", "height"):
                value = inputs[name]
                if not isinstance(value, int) or not 16 <= value <= 16384:
                    return _node_error(
                        class_type,
                        "value_smaller_than_min" if isinstance(value, int) else "invalid_input_type",
                        f"Value {value!r} invalid for {name}",
                        f"{name}: {value!r}",
                        name,
                    )
        return None

    # -- /history and /view ----------------------------------------------------------------
    def _history(self, call: Call, prompt_id: str) -> Response:
        with call.emu.state_lock:
            job = self._state(call)["jobs"].get(prompt_id)
            if job is None:
                return Response.json({})
            job["polls"] += 1
            if job["polls"] <= PENDING_POLLS:
                return Response.json({})
        graph = job["graph"]
        text = " ".join(
            str(n["inputs"].get("text", ""))
            for n in graph.values()
            if n.get("class_type") == "CLIPTextEncode"
        )
        messages: list[Any] = [["execution_start", {"prompt_id": prompt_id}]]
        if "crash" in text.lower():
            sampler = next(k for k, n in graph.items() if n["class_type"] == "KSampler")
            messages.append(
                [
                    "execution_error",
                    {
                        "prompt_id": prompt_id,
                        "node_id": sampler,
                        "node_type": "KSampler",
                        "exception_message": "CUDA out of memory. Tried to allocate 2.00 GiB\n",
                        "exception_type": "torch.OutOfMemoryError",
                        "traceback": ["..."],
                    },
                ]
            )
            status = {"status_str": "error", "completed": False, "messages": messages}
            return Response.json(
                {
                    prompt_id: {
                        "prompt": [job["number"], prompt_id, graph, {}, []],
                        "outputs": {},
                        "status": status,
                    }
                }
            )
        outputs = {}
        for node_id in job["outputs"]:
            filename = self._render(call, graph, node_id, job["number"])
            kind = "output" if graph[node_id]["class_type"] == "SaveImage" else "temp"
            outputs[node_id] = {"images": [{"filename": filename, "subfolder": "", "type": kind}]}
        messages.append(["execution_success", {"prompt_id": prompt_id}])
        status = {"status_str": "success", "completed": True, "messages": messages}
        entry = {
            "prompt": [job["number"], prompt_id, graph, {}, job["outputs"]],
            "outputs": outputs,
            "status": status,
        }
        return Response.json({prompt_id: entry})

    def _render(self, call: Call, graph: dict[str, Any], node_id: str, number: int) -> str:
        latent: dict[str, Any] = next(
            (n["inputs"] for n in graph.values() if n["class_type"] == "EmptyLatentImage"), {}
        )
        width, height = int(latent.get("width", 512)), int(latent.get("height", 512))
        key = hashlib.sha256(repr(sorted(graph.items())).encode()).hexdigest()
        png = render(f"comfyui|{call.emu.seed}|{key}", min(width, 2048), min(height, 2048))
        prefix = str(graph[node_id]["inputs"].get("filename_prefix") or "ComfyUI")
        filename = f"{prefix}_{number:05d}_.png"
        with call.emu.state_lock:
            self._state(call)["files"][filename] = png
        return filename

    def _view(self, call: Call) -> Response:
        filename = call.request.param("filename") or ""
        if ".." in filename or filename.startswith("/"):
            return Response.text("400: Bad Request", 400)
        with call.emu.state_lock:
            data = self._state(call)["files"].get(filename)
        if data is None:
            return Response.text("404: Not Found", 404)
        return Response(200, data, "image/png")


def register(routes: FakeRoutes) -> None:
    routes.add(ComfyUIApi())
