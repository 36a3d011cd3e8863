"""``hermes_cli.models``: DeepInfra's endpoint and its tagged model catalog (deepinfra image plugin)."""

from __future__ import annotations

import logging
from typing import Any

from hermes_nb import config
from hermes_nb.errors import HermesError
from hermes_nb.net.http_client import get_client

HERMES_NAME = "hermes_cli.models"
__all__ = ["deepinfra_base_url", "_fetch_deepinfra_models_by_tag"]

log = logging.getLogger(__name__)

DEEPINFRA_DEFAULT_BASE_URL = "https://api.deepinfra.com/v1/openai"


def deepinfra_base_url(section: dict[str, Any] | None = None) -> str:
    """The section's ``base_url``, else ``DEEPINFRA_BASE_URL``, else DeepInfra's OpenAI-compatible root."""
    configured = section.get("base_url") if isinstance(section, dict) else None
    if isinstance(configured, str) and configured.strip():
        return configured.strip().rstrip("/")
    return (config.resolve_key("DEEPINFRA_BASE_URL") or DEEPINFRA_DEFAULT_BASE_URL).rstrip("/")


def _fetch_deepinfra_models_by_tag(
    tag: str, section: dict[str, Any] | None = None
) -> list[dict[str, Any]] | None:
    """Catalog entries whose ``metadata.tags`` hold ``tag``; ``None`` when the catalog cannot be read."""
    url = f"{deepinfra_base_url(section)}/models"
    headers = {}
    key = config.resolve_key("DEEPINFRA_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        params = {"filter": "true", "sort_by": "hermes"}
        client = get_client("deepinfra")
        body = client.get_json(url, params=params, headers=headers, timeout=10.0, retry=False)
    except HermesError as exc:
        log.debug("DeepInfra catalog unavailable: %s", exc)
        return None
    items = body.get("data") if isinstance(body, dict) else body
    if not isinstance(items, list):
        return None
    found = []
    for item in items:
        metadata = item.get("metadata") if isinstance(item, dict) else None
        tags = metadata.get("tags") if isinstance(metadata, dict) else None
        if isinstance(tags, list) and tag in tags:
            found.append(item)
    return found
