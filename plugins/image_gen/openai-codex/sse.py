"""Server-sent events of a Responses stream → the generated image (unknown event types are skipped)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


def events(text: str) -> Iterator[dict[str, Any]]:
    """JSON payloads of an SSE body (``event:``/``data:`` lines; comments and ``[DONE]`` skipped)."""
    name = ""
    lines: list[str] = []
    for raw in [*text.splitlines(), ""]:
        if raw == "":
            data = "\n".join(lines).strip()
            if data and data != "[DONE]":
                try:
                    payload = json.loads(data)
                except ValueError:
                    payload = None
                if isinstance(payload, dict):
                    payload.setdefault("type", name)
                    yield payload
            name, lines = "", []
        elif raw.startswith(":"):
            continue
        elif raw.startswith("event:"):
            name = raw[6:].strip()
        elif raw.startswith("data:"):
            lines.append(raw[5:].lstrip())


@dataclass
class Outcome:
    """What a stream produced: the final image (else the last partial one), its item, the usage, errors."""

    image_b64: str = ""
    partial_b64: str = ""
    partials: int = 0
    item: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] = field(default_factory=dict)
    text: str = ""


def _take_item(outcome: Outcome, item: Any) -> None:
    if not isinstance(item, dict):
        return
    if item.get("type") == "image_generation_call":
        if isinstance(item.get("result"), str) and item["result"]:
            outcome.image_b64 = item["result"]
            outcome.item = {k: v for k, v in item.items() if k != "result"}
        elif item.get("status") == "failed" and not outcome.error:
            outcome.error = {"code": "image_generation_failed", "message": "the image_generation call failed"}
    elif item.get("type") == "message":
        for part in item.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "output_text":
                outcome.text += str(part.get("text") or "")


def read(text: str) -> Outcome:
    """Fold the stream's events into an ``Outcome``."""
    outcome = Outcome()
    for event in events(text):
        kind = str(event.get("type") or "")
        if kind.endswith("image_generation_call.partial_image"):
            if isinstance(event.get("partial_image_b64"), str):
                outcome.partial_b64 = event["partial_image_b64"]
                outcome.partials += 1
        elif kind == "response.output_item.done":
            _take_item(outcome, event.get("item"))
        elif kind in ("response.completed", "response.failed", "response.incomplete"):
            found = event.get("response")
            response: dict[str, Any] = found if isinstance(found, dict) else {}
            for item in response.get("output") or []:
                _take_item(outcome, item)
            if isinstance(response.get("usage"), dict):
                outcome.usage = response["usage"]
            if isinstance(response.get("error"), dict):
                outcome.error = response["error"]
            elif kind == "response.incomplete" and not outcome.image_b64:
                details = response.get("incomplete_details") or {}
                outcome.error = {"code": "incomplete", "message": f"response incomplete: {details}"}
        elif kind == "error":
            outcome.error = {"code": event.get("code"), "message": event.get("message")}
    return outcome
