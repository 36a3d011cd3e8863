"""ComfyUI provider against the emulated server: workflows, placeholders, polling, node and run errors."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.clocks import FakeClock, fake_provider_clock
from paths import REPO

from hermes_nb import config, images
from hermes_nb.errors import (
    InvalidInputError,
    ProviderError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    TimeoutError_,
)
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import image_providers
from hermes_nb.testing import Emulator, fake_module, use_emulator

emulated = fake_module("comfyui")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_provider_clock(monkeypatch, "comfyui")


@pytest.fixture
def emu(clock: FakeClock) -> Iterator[Emulator]:
    with Emulator(seed=0) as emulator, use_emulator(emulator, ["comfyui"]):
        config.set("image_gen.provider", "comfyui")
        yield emulator


def _graph(emu: Emulator) -> dict[str, Any]:
    posts = [r for r in emu.requests_for("comfyui") if r.method == "POST"]
    return posts[0].json["prompt"]


def test_default_workflow_queue_poll_view(emu: Emulator, clock: FakeClock) -> None:
    result = images.imagine("a red fox", seed=42, negative_prompt="blurry")
    calls = [(r.method, r.path) for r in emu.requests_for("comfyui")]
    pid = calls[1][1].rsplit("/", 1)[1]
    assert calls == [
        ("POST", "/comfyui/prompt"),
        ("GET", f"/comfyui/history/{pid}"),
        ("GET", f"/comfyui/history/{pid}"),
        ("GET", f"/comfyui/history/{pid}"),
        ("GET", "/comfyui/view"),
    ]
    assert clock.sleeps == [0.25, 0.375]  # backs off between polls, never sleeps for real
    graph = _graph(emu)
    assert graph["6"]["inputs"]["text"] == "a red fox"
    assert graph["7"]["inputs"]["text"] == "blurry"
    assert (graph["5"]["inputs"]["width"], graph["5"]["inputs"]["height"]) == (1216, 832)
    assert graph["3"]["inputs"]["seed"] == 42 and graph["3"]["inputs"]["steps"] == 20
    assert graph["3"]["inputs"]["cfg"] == 7.0
    assert graph["4"]["inputs"]["ckpt_name"] == "sd_xl_base_1.0.safetensors"
    view = emu.requests_for("comfyui")[-1]
    assert view.param("filename", "").startswith("hermes_nb_") and view.param("type") == "output"
    assert (result.width, result.height) == (1216, 832) and result.seed == 42
    assert result.cost == {"usd": 0.0, "estimated": False}
    assert "client_id" in emu.requests_for("comfyui")[0].json


def test_size_steps_model_and_seed_reproducibility(emu: Emulator) -> None:
    config.set("image_gen.comfyui.steps", 8)
    first = images.imagine("x", seed=7, size="640x480", model="v1-5-pruned-emaonly.safetensors")
    graph = _graph(emu)
    assert (graph["5"]["inputs"]["width"], graph["5"]["inputs"]["height"]) == (640, 480)
    assert graph["3"]["inputs"]["steps"] == 8
    assert graph["4"]["inputs"]["ckpt_name"] == "v1-5-pruned-emaonly.safetensors"
    images.imagine("x", seed=7, size="640x480", model="v1-5-pruned-emaonly.safetensors", steps=8)
    posts = [r.json["prompt"] for r in emu.requests_for("comfyui") if r.path.endswith("/prompt")]
    assert posts[0] == posts[1] and first.seed == 7  # the same seed queues the same graph
    with pytest.raises(InvalidInputError, match="multiples of 8"):
        images.imagine("x", size="641x480")


def _write(tmp_path: Path, graph: dict[str, Any]) -> Path:
    path = tmp_path / "workflow_api.json"
    path.write_text(json.dumps(graph), encoding="utf-8")
    return path


def _user_graph() -> dict[str, Any]:
    default = json.loads(
        (REPO / "plugins/image_gen/comfyui/default_workflow.json").read_text()
    )
    default["3"]["inputs"]["denoise"] = "{{denoise}}"
    default["3"]["inputs"]["sampler_name"] = "dpmpp_2m"
    default["6"]["inputs"]["text"] = "masterpiece, {{prompt}}, {{style}}"
    return default


def test_user_workflow_with_named_placeholders(emu: Emulator, tmp_path: Path) -> None:
    path = _write(tmp_path, _user_graph())
    config.set("image_gen.comfyui.workflow", str(path))
    images.imagine("a castle", denoise=0.6, style="watercolour")
    graph = _graph(emu)
    assert graph["3"]["inputs"]["denoise"] == 0.6 and graph["3"]["inputs"]["sampler_name"] == "dpmpp_2m"
    assert graph["6"]["inputs"]["text"] == "masterpiece, a castle, watercolour"
    emu.reset_log()
    with pytest.raises(InvalidInputError, match=r"\{\{style\}\} with no value; pass style="):
        images.imagine("a castle", denoise=0.6)
    assert emu.requests == []  # refused before queueing


def test_workflow_argument_and_bad_files(emu: Emulator, tmp_path: Path) -> None:
    ui = _write(tmp_path, {"nodes": [], "links": [], "version": 0.4})
    with pytest.raises(InvalidInputError, match="Save \\(API Format\\)"):
        images.imagine("x", workflow=str(ui))
    with pytest.raises(InvalidInputError, match="cannot read"):
        images.imagine("x", workflow=str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        images.imagine("x", workflow=str(tmp_path / "bad.json"))
    assert emu.requests == []


def test_node_errors_are_reported_per_node(emu: Emulator) -> None:
    with pytest.raises(InvalidInputError) as info:
        images.imagine("x", model="missing.safetensors")
    message = str(info.value)
    assert "Prompt outputs failed validation" in message
    assert "node 4 (CheckpointLoaderSimple): Value not in list — ckpt_name: 'missing.safetensors'" in message
    assert info.value.details["error_type"] == "invalid_argument"


def test_execution_error_names_the_node(emu: Emulator) -> None:
    with pytest.raises(
        ProviderError, match=r"node 3 \(KSampler\): torch.OutOfMemoryError: CUDA out of memory"
    ):
        images.imagine("crash the sampler")


def test_deadline_removes_the_job(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emulated, "PENDING_POLLS", 10_000)
    config.set("image_gen.timeout", 3)
    with pytest.raises(TimeoutError_, match="image_gen.timeout=3s"):
        images.imagine("slow")
    last = emu.requests_for("comfyui")[-1]
    assert last.method == "POST" and last.path == "/comfyui/queue" and "delete" in last.json


def test_server_errors_and_unreachable_server(emu: Emulator) -> None:
    config.set("web.max_retries", 0)
    emu.fail("comfyui", "500")
    with pytest.raises(ProviderError):
        images.imagine("x")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config.set("image_gen.comfyui.base_url", f"http://127.0.0.1:{port}")
    with pytest.raises(ProviderUnavailableError, match="not reachable.*start ComfyUI"):
        images.imagine("x")


def test_capabilities_refuse_references_before_any_request(emu: Emulator, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="does not accept reference images"):
        images.imagine("x", reference_images=str(tmp_path / "a.png"))
    assert emu.requests == []


def test_available_only_when_configured() -> None:
    load_plugins()
    provider = image_providers.get("comfyui")
    assert provider is not None and not provider.is_available()
    with pytest.raises(ProviderNotConfiguredError, match="start ComfyUI"):
        images.imagine("x", backend="comfyui")
    config.set("image_gen.provider", "comfyui")
    assert provider.is_available()
