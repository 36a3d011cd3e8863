"""diffusers provider: a tiny random Stable Diffusion pipeline built offline, generated through the SDK."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from paths import REPO

from hermes_nb import config, images
from hermes_nb.errors import InvalidInputError, ProviderNotConfiguredError
from hermes_nb.plugins.registry import image_providers
from hermes_nb.store.image_files import read_provenance

pytestmark = pytest.mark.slow  # importing torch + diffusers dominates (seconds)


def provider() -> Any:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    found = image_providers.get("diffusers")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def tiny_pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random Stable Diffusion pipeline of about 250 kB, built offline (``hermes_nb.testing``)."""
    pytest.importorskip("diffusers")
    pytest.importorskip("transformers")
    from hermes_nb.testing.diffusers_pipeline import tiny_sd_pipeline

    return tiny_sd_pipeline(tmp_path_factory.mktemp("tiny-sd"))


def test_generates_offline_from_a_local_pipeline(tiny_pipeline: Path) -> None:
    provider()
    config.set("image_gen.provider", "diffusers")
    config.set("image_gen.diffusers.model", str(tiny_pipeline))
    first = images.imagine("a lower tower", aspect_ratio="landscape", seed=3, num_inference_steps=2)
    assert first.provider == "diffusers" and first.size == (96, 64) and first.seed == 3
    assert first.cost == {"usd": 0.0, "estimated": False}
    again = images.imagine("a lower tower", aspect_ratio="landscape", seed=3, num_inference_steps=2)
    assert again.image.tobytes() == first.image.tobytes()  # the seed makes it reproducible
    square = images.imagine("a lower tower", aspect_ratio="portrait", num_inference_steps=2)
    assert square.size == (64, 96) and isinstance(square.seed, int)  # a drawn seed is reported
    prov = read_provenance(first.path)
    assert (
        prov is not None
        and prov["model"] == str(tiny_pipeline)
        and prov["parameters"]["num_inference_steps"] == 2
    )


def test_configured_size(tiny_pipeline: Path) -> None:
    provider()
    config.set("image_gen.diffusers.size", "80x40")
    config.set("image_gen.diffusers.model", str(tiny_pipeline))
    result = images.imagine("x", backend="diffusers", num_inference_steps=1)
    assert result.size == (80, 40)


def test_model_that_is_not_in_the_local_cache(tmp_path: Path) -> None:
    pytest.importorskip("diffusers")
    provider()
    with pytest.raises(ProviderNotConfiguredError, match="image_gen.diffusers.model"):
        images.imagine("x", backend="diffusers")  # installed libraries alone are not "available"
    config.set("image_gen.diffusers.model", "nobody/not-in-cache-model")
    with pytest.raises(ProviderNotConfiguredError, match="offline"):
        images.imagine("x", backend="diffusers")


def test_missing_dependency_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    found = provider()
    mod = sys.modules[type(found).__module__]
    monkeypatch.setattr(mod, "_missing_dependencies", lambda: ["torch"])
    assert not found.is_available()
    envelope = found.generate("x", model="whatever")
    assert envelope["error_type"] == "missing_dependency" and "hermes_nb[diffusers]" in envelope["error"]
    config.set("image_gen.provider", "diffusers")
    with pytest.raises(ProviderNotConfiguredError, match=r"hermes_nb\[diffusers\]"):
        images.imagine("x")


def test_text_only(tmp_path: Path) -> None:
    found = provider()
    config.set("image_gen.diffusers.model", str(tmp_path))
    assert found.capabilities()["max_reference_images"] == 0
    with pytest.raises(InvalidInputError):
        images.imagine("x", backend="diffusers", reference_images="a.png")


def _pipeline_calls(monkeypatch: pytest.MonkeyPatch, found: Any) -> list[int]:
    """Spy on the plugin's pipeline runs: the number of prompts in each call."""
    import sys

    module = sys.modules[type(found).__module__]
    real = module._run_pipeline
    calls: list[int] = []

    def counting(pipe: Any, group: list[Any], *args: Any) -> Any:
        calls.append(len(group))
        return real(pipe, group, *args)

    monkeypatch.setattr(module, "_run_pipeline", counting)
    return calls


def test_imagine_many_groups_prompts_into_one_pipeline_call(
    tiny_pipeline: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_nb import batch

    found = provider()
    config.set("image_gen.provider", "diffusers")
    config.set("image_gen.diffusers.model", str(tiny_pipeline))
    calls = _pipeline_calls(monkeypatch, found)
    prompts = ["a lower tower", "a wider tower", "the lowest tower", "a newer tower"]
    grouped = batch.imagine_many(prompts, seed=5, concurrency=4, progress=False, num_inference_steps=2)
    assert all(getattr(r, "provider", None) == "diffusers" for r in grouped), [repr(r) for r in grouped]
    assert sum(calls) == 4
    assert max(calls) > 1  # concurrent prompts shared a pipeline call (4 threads, batch size 4)
    config.set("image_gen.diffusers.batch_size", 1)
    calls.clear()
    alone = batch.imagine_many(
        prompts, seed=5, concurrency=4, progress=False, new=True, num_inference_steps=2
    )
    assert calls == [1, 1, 1, 1]
    for together, single in zip(grouped, alone, strict=True):  # an image's seed decides it, grouped or not
        assert together.size == single.size and together.seed == single.seed == 5


def test_a_failing_group_fails_every_caller_and_a_lone_call_still_runs() -> None:
    import importlib.util
    import sys
    import threading

    where = REPO / "plugins" / "image_gen" / "diffusers" / "batching.py"
    spec = importlib.util.spec_from_file_location("diffusers_batching", where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["diffusers_batching"] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("diffusers_batching", None)
    batcher = module.Batcher()
    seen: list[list[str]] = []

    def run(group: list[Any]) -> list[str]:
        seen.append([job.prompt for job in group])
        if any(job.prompt == "bad" for job in group):
            raise RuntimeError("boom")
        return [job.prompt.upper() for job in group]

    assert batcher.submit("k", module.Job("alone", None), 4, run) == "ALONE"
    results: dict[str, Any] = {}

    def call(prompt: str) -> None:
        try:
            results[prompt] = batcher.submit("k", module.Job(prompt, None), 8, run)
        except RuntimeError as exc:
            results[prompt] = exc

    threads = [threading.Thread(target=call, args=(p,)) for p in ("a", "b", "bad", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(sum(seen[1:], [])) == ["a", "b", "bad", "c"]  # every job ran exactly once
    for prompt in ("a", "b", "c"):
        grouped_with_bad = any(prompt in group and "bad" in group for group in seen)
        expected_failure = isinstance(results[prompt], RuntimeError)
        assert expected_failure if grouped_with_bad else results[prompt] == prompt.upper()
    assert isinstance(results["bad"], RuntimeError)
