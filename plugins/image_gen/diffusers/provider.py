"""Local text-to-image with diffusers: a pipeline directory or a Hugging Face cache id, never a download.

The model is ``image_gen.diffusers.model`` (or the ``model`` argument): a directory written by
``save_pretrained`` or a hub id already in the local cache (``local_files_only=True``). Device:
CUDA, then Apple MPS, then CPU. Pipelines are cached per (model, device, dtype).
"""

from __future__ import annotations

import importlib.util
import io
import random
import threading
import warnings
from pathlib import Path
from typing import Any

from hermes_nb.provider_api import (
    ImageGenProvider,
    ImageRequest,
    ProviderError,
    ProviderNotConfiguredError,
    config,
    on_reset,
    save_bytes_image,
)

from .batching import Batcher, Job

INSTALL_HINT = "pip install 'hermes_nb[diffusers]'"
_DEPENDENCIES = ("torch", "diffusers", "transformers")
_ASPECT_SCALE = {"landscape": (1.5, 1.0), "square": (1.0, 1.0), "portrait": (1.0, 1.5)}

_pipelines: dict[tuple[str, str, str], Any] = {}
_lock = threading.Lock()
_load_lock = threading.Lock()
_batcher = Batcher()


@on_reset
def _forget_pipelines() -> None:
    with _lock:
        _pipelines.clear()


def _missing_dependencies() -> list[str]:
    return [name for name in _DEPENDENCIES if importlib.util.find_spec(name) is None]


def _pick_device(torch: Any) -> str:
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def _multiple_of_8(value: float) -> int:
    return max(8, int(round(value / 8.0)) * 8)


class DiffusersImageProvider(ImageGenProvider):
    """Stable Diffusion / FLUX pipelines on this machine; seeds are reproducible."""

    name = "diffusers"
    display_name = "Diffusers (local)"
    badge, tag = "local", "Stable Diffusion / FLUX on your own GPU or CPU"
    install_hint = f"{INSTALL_HINT}, then hn.config.set('image_gen.diffusers.model', '<dir or hub id>')"
    accepts_seed, accepts_negative_prompt = True, True

    def is_available(self) -> bool:
        # Installed libraries alone cannot generate anything: a local pipeline must be configured too,
        # otherwise `pip install hermes_nb[diffusers]` would make auto-selection pick an unusable provider.
        return not _missing_dependencies() and bool(config.get("image_gen.diffusers.model"))

    def list_models(self) -> list[dict[str, Any]]:
        configured = config.get("image_gen.diffusers.model")
        return [{"id": str(configured), "display": "configured local pipeline"}] if configured else []

    def resolve_model(self, model: str | None = None) -> str | None:
        """Argument → ``image_gen.diffusers.model``: a local pipeline (``image_gen.model`` is a vendor's)."""
        return str(model or config.get("image_gen.diffusers.model") or "") or None

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        missing = _missing_dependencies()
        if missing:
            raise _not_configured(
                f"diffusers needs {', '.join(missing)}: {INSTALL_HINT}", "missing_dependency"
            )
        model = request.model
        if not model:
            raise _not_configured(
                "no local pipeline configured: hn.config.set('image_gen.diffusers.model', '<dir or hub id>')"
            )
        try:
            pipe, device = _pipeline(model)
        except (OSError, ValueError) as exc:
            raise _not_configured(
                f"could not load the pipeline {model!r} offline ({type(exc).__name__}: {exc}); give a "
                "save_pretrained directory or a hub id that is already in the local cache"
            ) from exc
        import torch

        options = request.options
        seed = options.get("seed")
        seed = int(seed) if seed is not None else random.SystemRandom().randrange(2**31)
        width, height = _size(pipe, request.aspect_ratio)
        tuning = ("num_inference_steps", "guidance_scale")
        settings = {name: options[name] for name in tuning if options.get(name) is not None}
        job = Job(
            request.prompt, torch.Generator(device=device).manual_seed(seed), options.get("negative_prompt")
        )
        key = (model, device, width, height, tuple(sorted(settings.items())))
        try:
            image = _batcher.submit(
                key, job, _batch_size(), lambda group: _run_pipeline(pipe, group, width, height, settings)
            )
        except _EmptyOutputError as exc:
            raise self.no_image("the pipeline returned no image") from exc
        except (RuntimeError, ValueError, TypeError) as exc:
            raise ProviderError(
                f"the pipeline failed: {type(exc).__name__}: {exc}",
                provider=self.name,
                details={"error_type": "provider_error"},
            ) from exc
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        path = save_bytes_image(buffer.getvalue(), prefix=self.name, extension="png")
        return self.answer(
            request,
            path,
            seed=seed,
            width=width,
            height=height,
            device=device,
            num_inference_steps=settings.get("num_inference_steps"),
            cost={"usd": 0.0, "estimated": False},
        )


def _not_configured(message: str, error_type: str = "not_configured") -> ProviderNotConfiguredError:
    return ProviderNotConfiguredError(message, provider="diffusers", details={"error_type": error_type})


def _pipeline(model: str) -> tuple[Any, str]:
    import torch
    from diffusers import AutoPipelineForText2Image

    device = _pick_device(torch)
    dtype = torch.float16 if device == "cuda" else torch.float32
    source = str(Path(model).expanduser()) if Path(model).expanduser().is_dir() else model
    key = (source, device, str(dtype))
    # One load at a time: loading patches torch globally (empty "meta" weights), so two threads
    # loading at once (imagine_many's first prompts) would leave tensors without data.
    with _load_lock:
        with _lock:
            pipe = _pipelines.get(key)
        if pipe is None:
            with warnings.catch_warnings():
                # diffusers >= 0.36 renamed torch_dtype to dtype; the old name still works everywhere.
                warnings.filterwarnings("ignore", r".*torch_dtype.* is deprecated", FutureWarning)
                pipe = AutoPipelineForText2Image.from_pretrained(
                    source, local_files_only=True, torch_dtype=dtype
                )
            pipe = pipe.to(device)
            if hasattr(pipe, "set_progress_bar_config"):
                pipe.set_progress_bar_config(disable=True)
            with _lock:
                _pipelines[key] = pipe
    return pipe, device


class _EmptyOutputError(RuntimeError):
    """The pipeline answered without images."""


def _batch_size() -> int:
    try:
        return max(1, int(config.get("image_gen.diffusers.batch_size", 4) or 1))
    except (TypeError, ValueError):
        return 1


def _run_pipeline(pipe: Any, group: list[Job], width: int, height: int, options: dict[str, Any]) -> list[Any]:
    """One pipeline call for every job of ``group``: a prompt list and one seeded generator per image."""
    call: dict[str, Any] = {
        "prompt": [job.prompt for job in group],
        "width": width,
        "height": height,
        "generator": [job.generator for job in group],
        **options,
    }
    if any(job.negative_prompt for job in group):
        call["negative_prompt"] = [job.negative_prompt or "" for job in group]
    with _lock:  # one pipeline run at a time: they are not thread-safe and fill the device
        output = pipe(**call)
    images = list(getattr(output, "images", None) or [])
    if not images:
        raise _EmptyOutputError("no image")
    return images


def _size(pipe: Any, aspect: str) -> tuple[int, int]:
    """``image_gen.diffusers.size`` ("WxH" or {aspect: "WxH"}), else from the model's native size."""
    configured = config.get("image_gen.diffusers.size")
    if isinstance(configured, dict):
        configured = configured.get(aspect)
    if isinstance(configured, str) and "x" in configured:
        w, _, h = configured.lower().partition("x")
        return _multiple_of_8(float(w)), _multiple_of_8(float(h))
    unet = getattr(pipe, "unet", None) or getattr(pipe, "transformer", None)
    sample = getattr(getattr(unet, "config", None), "sample_size", None)
    scale = getattr(pipe, "vae_scale_factor", 8)
    native = int(sample) * int(scale) if isinstance(sample, int) else 512
    fw, fh = _ASPECT_SCALE[aspect]
    return _multiple_of_8(native * fw), _multiple_of_8(native * fh)
