"""A local ComfyUI server: ``POST /prompt`` a workflow in API format, poll ``/history/<id>``, ``GET /view``.

The bundled ``default_workflow.json`` (SDXL text-to-image) and user workflows share one mechanism:
named placeholders. A string that is exactly ``"{{name}}"`` becomes the value itself (a number stays a
number); ``{{name}}`` inside a longer string is replaced as text. Names: ``prompt``,
``negative_prompt``, ``width``, ``height``, ``seed``, ``steps``, ``cfg``, ``model`` and any keyword
option passed to ``hn.imagine`` (``hn.imagine("…", denoise=0.6)`` fills ``{{denoise}}``).
"""

from __future__ import annotations

import json
import random
import re
import uuid
from pathlib import Path
from typing import Any

import httpx

from hermes_nb.provider_api import (
    Backoff,
    HermesError,
    ImageGenProvider,
    ImageRequest,
    InvalidInputError,
    NetworkError,
    ParseError,
    PolledJob,
    ProviderError,
    ProviderUnavailableError,
    config,
    configured_model,
    json_or_none,
    save_bytes_image,
)

DEFAULT_MODEL = "sd_xl_base_1.0.safetensors"
DEFAULT_STEPS = 20
DEFAULT_CFG = 7.0
WORKFLOW_FILE = Path(__file__).with_name("default_workflow.json")
SIZES = {"landscape": (1216, 832), "square": (1024, 1024), "portrait": (832, 1216)}  # SDXL buckets
BACKOFF = Backoff(start=0.25, factor=1.5, cap=1.0)
_WHOLE = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
_INNER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_SIZE = re.compile(r"^\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*$")
START_HINT = (
    "start ComfyUI (python main.py --listen 127.0.0.1 --port 8188), then "
    "hn.config.set('image_gen.comfyui.base_url', 'http://127.0.0.1:8188')"
)


class ComfyUIImageProvider(ImageGenProvider):
    """Your own ComfyUI; free and local. Chosen only when configured (it is never auto-detected)."""

    name = "comfyui"
    display_name = "ComfyUI (local)"
    default_base_url = "http://127.0.0.1:8188"
    badge, tag = "local", "your ComfyUI server: bundled SDXL workflow or your own"
    install_hint = START_HINT
    accepts_seed, accepts_negative_prompt = True, True
    accepts_sizes = ("any",)  # WIDTHxHEIGHT, multiples of 8
    creative_controls = ("any",)  # every option fills a {{name}} placeholder of your workflow

    def is_available(self) -> bool:
        # No key to detect: a configured base URL or an explicit choice says a server is meant to run.
        return (
            bool(config.get("image_gen.comfyui.base_url"))
            or str(config.get("image_gen.provider") or "").strip().lower() == self.name
        )

    def list_models(self) -> list[dict[str, Any]]:
        model = configured_model(self.name, DEFAULT_MODEL)
        return [
            {"id": str(model), "display": "checkpoint (ckpt_name) of the workflow", "price": "free (local)"}
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        values = _values(request.prompt, request.aspect_ratio, request.model, request.options)
        workflow = fill(load_workflow(request.options.get("workflow")), values)
        base = self.base_url()
        timeout = request.timeout_s
        job = PolledJob(self.name, "ComfyUI", timeout_s=timeout, backoff=BACKOFF, label="comfyui")
        try:
            # Queuing twice would run the workflow twice: no retry once the POST was sent.
            queued = self.send(
                "POST",
                f"{base}/prompt",
                json={"prompt": workflow, "client_id": uuid.uuid4().hex},
                timeout=min(timeout, 30.0),
                error_map=_error_for,
            )
            prompt_id = str(self.json_answer(queued).get("prompt_id") or "")
            if not prompt_id:
                raise ParseError("ComfyUI queued the prompt without a prompt_id", provider=self.name)

            def poll(**limits: float) -> Any:
                history = self.send("GET", f"{base}/history/{prompt_id}", error_map=_error_for, **limits)
                return self.json_answer(history).get(prompt_id)

            def cancel() -> None:  # take the job off the queue: nobody waits for it any more
                self.send("POST", f"{base}/queue", json={"delete": [prompt_id]}, timeout=5.0, retry=False)

            entry = job.wait(poll, _finished, cancel=cancel)
            image = _first_image(entry)
            data = self.send(
                "GET", f"{base}/view", params=image, timeout=min(timeout, 60.0), error_map=_error_for
            ).content
        except NetworkError as exc:  # connection refused: no server there (timeouts stay timeouts)
            raise ProviderUnavailableError(
                f"ComfyUI is not reachable at {base} ({exc}); {START_HINT}", provider=self.name
            ) from exc
        path = save_bytes_image(data, prefix=self.name, extension=Path(image["filename"]).suffix or "png")
        return self.answer(
            request,
            path,
            seed=values["seed"],
            steps=values["steps"],
            prompt_id=prompt_id,
            cost={"usd": 0.0, "estimated": False},  # your own hardware
        )


def _values(prompt: str, aspect: str, model: str, options: dict[str, Any]) -> dict[str, Any]:
    width, height = SIZES[aspect]
    size = options.get("size")
    if size:
        match = _SIZE.match(str(size))
        if not match:
            raise InvalidInputError(f"comfyui size must be 'WIDTHxHEIGHT', got {size!r}")
        width, height = int(match.group(1)), int(match.group(2))
        if width % 8 or height % 8:
            raise InvalidInputError(f"comfyui sizes are multiples of 8, got {width}x{height}")
    seed = options.get("seed")
    values: dict[str, Any] = {
        k: v for k, v in options.items() if k not in ("workflow", "size") and v is not None
    }
    values.update(
        prompt=prompt,
        negative_prompt=str(options.get("negative_prompt") or ""),
        width=width,
        height=height,
        seed=int(seed) if seed is not None else random.SystemRandom().randrange(2**48),
        steps=int(options.get("steps") or config.get("image_gen.comfyui.steps") or DEFAULT_STEPS),
        cfg=float(options.get("cfg") or DEFAULT_CFG),
        model=model,
    )
    return values


def load_workflow(path: Any = None) -> dict[str, Any]:
    """The user's workflow (``workflow=`` or ``image_gen.comfyui.workflow``), else the bundled one."""
    chosen = path or config.get("image_gen.comfyui.workflow")
    source = Path(str(chosen)).expanduser() if chosen else WORKFLOW_FILE
    try:
        graph = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInputError(f"cannot read the ComfyUI workflow {source}: {exc}") from exc
    except ValueError as exc:
        raise InvalidInputError(f"the ComfyUI workflow {source} is not valid JSON: {exc}") from exc
    if isinstance(graph, dict) and "nodes" in graph and "links" in graph:
        raise InvalidInputError(
            f"{source} is a ComfyUI UI workflow; export it with 'Save (API Format)' (enable dev mode options)"
        )
    if (
        not isinstance(graph, dict)
        or not graph
        or not all(isinstance(n, dict) and "class_type" in n for n in graph.values())
    ):
        raise InvalidInputError(
            f"{source} is not a ComfyUI workflow in API format ({{id: {{class_type, inputs}}}})"
        )
    return graph


def fill(graph: Any, values: dict[str, Any]) -> Any:
    """``graph`` with every ``{{name}}`` placeholder replaced; an unknown name is ``InvalidInputError``."""

    def value_of(name: str) -> Any:
        if name not in values:
            known = ", ".join(sorted(values))
            raise InvalidInputError(
                f"the ComfyUI workflow has a placeholder {{{{{name}}}}} with no value; pass {name}=... "
                f"to hn.imagine or use one of: {known}"
            )
        return values[name]

    if isinstance(graph, dict):
        return {k: fill(v, values) for k, v in graph.items()}
    if isinstance(graph, list):
        return [fill(v, values) for v in graph]
    if isinstance(graph, str):
        whole = _WHOLE.match(graph)
        if whole:
            return value_of(whole.group(1))
        return _INNER.sub(lambda m: str(value_of(m.group(1))), graph)
    return graph


def _finished(entry: Any) -> dict[str, Any] | None:
    """The history entry once done, ``None`` before; an execution error or interruption raises (naming
    the node). ``/history/<id>`` answers ``{}`` until the prompt has run."""
    if not isinstance(entry, dict):
        return None
    status = _dict(entry.get("status"))
    state = str(status.get("status_str") or "")
    for message in status.get("messages") or []:
        if not (isinstance(message, list) and len(message) == 2 and isinstance(message[1], dict)):
            continue
        kind, data = message
        if kind == "execution_error":
            raise ProviderError(
                f"ComfyUI failed in node {data.get('node_id')} ({data.get('node_type')}): "
                f"{data.get('exception_type', 'error')}: {data.get('exception_message', '').strip()}",
                provider="comfyui",
            )
        if kind == "execution_interrupted":
            raise ProviderError("ComfyUI's run was interrupted (Cancel or /interrupt)", provider="comfyui")
    if state == "error":
        raise ProviderError("ComfyUI reported an error for this prompt", provider="comfyui")
    done = bool(status.get("completed")) or state == "success" or (not status and bool(entry.get("outputs")))
    return entry if done else None


def _first_image(entry: dict[str, Any]) -> dict[str, str]:
    found = []
    outputs = _dict(entry.get("outputs"))
    for node in outputs.values():
        for image in (node or {}).get("images") or []:
            if isinstance(image, dict) and image.get("filename"):
                found.append(image)
    if not found:
        raise ProviderError(
            "ComfyUI finished but the workflow saved no image; it needs a SaveImage (or PreviewImage) node",
            provider="comfyui",
        )
    best = next((i for i in found if i.get("type") == "output"), found[0])
    return {
        "filename": str(best["filename"]),
        "subfolder": str(best.get("subfolder") or ""),
        "type": str(best.get("type") or "output"),
    }


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error_for(response: httpx.Response) -> HermesError | None:
    """``/prompt`` 400s carry ``node_errors``: one line per node, kept in ``details["node_errors"]``."""
    body = json_or_none(response)
    status = response.status_code
    if status == 403:
        return ProviderError(
            "ComfyUI refused the request (403): a proxy or --enable-cors-header setting may reject "
            "this client's Host/Origin",
            provider="comfyui",
            status=status,
        )
    if not isinstance(body, dict):
        return None
    error = _dict(body.get("error"))
    node_errors = _dict(body.get("node_errors"))
    lines = []
    for node_id, info in node_errors.items():
        info = info if isinstance(info, dict) else {}
        for item in info.get("errors") or []:
            item = item if isinstance(item, dict) else {}
            detail = str(item.get("details") or "").strip()
            lines.append(
                f"node {node_id} ({info.get('class_type', '?')}): {item.get('message', 'error')}"
                + (f" — {detail}" if detail else "")
            )
    if status == 400:
        message = str(error.get("message") or "ComfyUI rejected the workflow")
        text = message + ("\n" + "\n".join(lines) if lines else "")
        return InvalidInputError(
            f"ComfyUI: {text}", provider="comfyui", status=status, details={"node_errors": node_errors}
        )
    return None
