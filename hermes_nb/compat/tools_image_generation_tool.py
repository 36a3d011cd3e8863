"""``tools.image_generation_tool``: Hermes's in-tree FAL pipeline, served by hermes_nb's bundled fal provider.

Hermes's own ``image_gen/fal`` plugin is a thin wrapper around this module, so it reaches fal.ai
through the bundled provider (its base URL, retries and error classes, ``FAL_KEY``). The bundled
code is loaded from its file under a private name, so a user plugin that replaces ``fal`` does not
end up calling itself.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType
from typing import Any

from hermes_nb import config
from hermes_nb.plugins.discovery import bundled_plugins_dir

HERMES_NAME = "tools.image_generation_tool"
__all__ = ["FAL_MODELS", "DEFAULT_MODEL", "check_fal_api_key", "_resolve_fal_model", "image_generate_tool"]

_MODULE = "hermes_nb_bundled_fal_provider"


def _bundled_fal() -> ModuleType:
    loaded = sys.modules.get(_MODULE)
    if loaded is not None:
        return loaded
    root = bundled_plugins_dir()
    path = root / "image_gen" / "fal" / "provider.py" if root is not None else None
    if path is None or not path.is_file():
        raise ImportError(
            "tools.image_generation_tool needs hermes_nb's bundled fal plugin, which is not installed",
            name=HERMES_NAME,
        )
    spec = importlib.util.spec_from_file_location(_MODULE, path)
    assert spec is not None and spec.loader is not None, "a .py file always has a loader"
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(_MODULE, None)
        raise
    return module


def _provider() -> Any:
    return _bundled_fal().FalImageProvider()


def _models() -> dict[str, dict[str, Any]]:
    provider = _provider()
    table = getattr(_bundled_fal(), "MODELS", {})
    references = int(provider.capabilities().get("max_reference_images") or 0)
    models = {}
    for row in provider.list_models():
        entry = table.get(row["id"])
        edit = entry[3] if isinstance(entry, tuple) and len(entry) > 3 else None
        models[row["id"]] = {
            "display": row.get("display", row["id"]),
            "speed": row.get("speed", ""),
            "strengths": row.get("strengths", ""),
            "price": row.get("price", ""),
            "edit_endpoint": edit,
            "max_reference_images": references if edit else 0,
        }
    return models


FAL_MODELS: dict[str, dict[str, Any]] = _models()
DEFAULT_MODEL: str = str(_provider().default_model())


def check_fal_api_key() -> bool:
    """True when ``FAL_KEY`` is set (hermes_nb has no managed gateway)."""
    return bool(config.resolve_key("FAL_KEY"))


def _resolve_fal_model() -> tuple[str, dict[str, Any]]:
    """The configured fal model (``image_gen.fal.model``, then ``image_gen.model``) if known, else default."""
    for key in ("image_gen.fal.model", "image_gen.model"):
        wanted = config.get(key)
        if isinstance(wanted, str) and wanted in FAL_MODELS:
            return wanted, FAL_MODELS[wanted]
    return DEFAULT_MODEL, FAL_MODELS.get(DEFAULT_MODEL, {})


def image_generate_tool(prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> str:
    """Generate (or edit, given ``image_url``/``reference_image_urls``) with fal; a JSON string result."""
    model, _meta = _resolve_fal_model()
    kwargs.setdefault("model", model)
    result = _provider().generate(prompt, aspect_ratio, **kwargs)
    return json.dumps(result, default=str)
