"""Emulated DeepInfra OpenAI-compatible images: ``POST {base}/images/generations`` under ``/v1/openai``.

Bearer auth; an unknown key answers 401 ``{"detail": {"error": …}}``; a model id that is not
``owner/name`` answers 404 (DeepInfra's model ids always are). The answer is OpenAI's
``{"created", "data": [{"b64_json", "revised_prompt"}]}``; ``emu.deepinfra_answer = "url"`` returns a
``url`` on the emulator's file store instead. 402 says the balance is exhausted.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from hermes_nb.testing.fakes import MIME, Call, FakeRoutes, Response, render, store_file

__all__ = ["register", "DeepInfraApi"]


def _detail(status: int, message: str) -> Response:
    return Response.json({"detail": {"error": message}}, status)


class DeepInfraApi:
    name = "deepinfra"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 402:
            return _detail(402, "Your account balance is exhausted; add a payment method.")
        return _detail(status, f"Emulated error {status}")

    def handle(self, call: Call) -> Response:
        if call.subpath != "/images/generations" or call.request.method != "POST":
            return _detail(404, "Not Found")
        if call.rejects_bearer():
            return _detail(401, "Unauthorized: invalid or missing API token")
        params = call.request.json
        if not isinstance(params, dict) or not isinstance(params.get("prompt"), str) or not params["prompt"]:
            return _detail(422, "prompt: field required")
        model = str(params.get("model") or "")
        if "/" not in model:
            return _detail(404, f"Model is not available: {model!r}")
        try:
            width, height = (int(v) for v in str(params.get("size") or "1024x1024").split("x"))
        except ValueError:
            return _detail(422, "size: expected WIDTHxHEIGHT")
        data = render(f"deepinfra|{call.emu.seed}|{model}|{params['prompt']}", width, height, "png")
        item: dict[str, Any] = {"revised_prompt": params["prompt"]}
        if call.emu.deepinfra_answer == "url":
            item["url"] = store_file(call.emu, data, "png", MIME["png"], ephemeral=False)
        else:
            item["b64_json"] = base64.b64encode(data).decode("ascii")
        return Response.json({"created": int(time.time()), "data": [] if call.empty else [item]})


def register(routes: FakeRoutes) -> None:
    routes.add(DeepInfraApi(), prefix="/deepinfra/v1/openai")
    routes.option("deepinfra_answer", "b64")
