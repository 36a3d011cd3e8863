"""The emulated OpenAI Videos API answers as OpenAI's own OpenAPI document says; the provider asks so.

The document is read from ``shared/reference/openapi/openai.yaml`` (``tests/vendor_docs.py``), never
copied into the repository.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from fixtures.clocks import FakeClock, fake_job_clock
from vendor_docs import SKIP_REASON, SPEC_DIR, document

import hermes_nb as hn
from hermes_nb import config

pytestmark = pytest.mark.skipif(SPEC_DIR is None, reason=SKIP_REASON)


def _components() -> dict[str, Any]:
    return document("openai")["components"]  # OpenAI's own document, read from outside the repository


def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = {"$ref": f"#/components/schemas/{name}", "components": _components()}
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    clock: FakeClock = fake_job_clock(monkeypatch)
    assert clock.now == 0
    with Emulator(seed=0) as emulator, use_emulator(emulator):
        config.set("video_gen.provider", "openai")
        yield emulator


def test_requests_and_answers_follow_the_openapi_schemas(emu: Any) -> None:
    import httpx

    hn.video("a slow pan over hills", duration=8, aspect_ratio="9:16")
    create = emu.requests_for("openai-video")[0]
    _validator("CreateVideoJsonBody").validate(create.json)
    key = config.resolve_key("OPENAI_API_KEY")
    base = emu.base_url("openai-video")
    made = httpx.post(f"{base}/videos", json={"prompt": "x", "model": "sora-2-pro", "size": "1792x1024"},
                      headers={"Authorization": f"Bearer {key}"}).json()  # fmt: skip
    resource = _validator("VideoResource")
    resource.validate(made)
    for _ in range(3):  # queued → in_progress → completed: each answer is a VideoResource
        answer = httpx.get(f"{base}/videos/{made['id']}", headers={"Authorization": f"Bearer {key}"}).json()
        resource.validate(answer)
    assert answer["status"] == "completed" and answer["completed_at"] is not None
    failed = httpx.post(f"{base}/videos", json={"prompt": f"a {emu.MODERATION_WORD} scene"},
                        headers={"Authorization": f"Bearer {key}"}).json()  # fmt: skip
    resource.validate(
        httpx.get(f"{base}/videos/{failed['id']}", headers={"Authorization": f"Bearer {key}"}).json()
    )
