"""``hermes_cli.runtime_provider``: the ``(base_url, api_key)`` of an OpenAI-compatible model provider.

Keys come from the session, the environment or ``$HERMES_HOME/.env``; base URLs from
``<NAME>_BASE_URL`` or the provider's public endpoint. Nous Portal needs Hermes's OAuth login,
which hermes_nb does not run, so it resolves without a key (its plugins report unavailable).
"""

from __future__ import annotations

from typing import Any

from hermes_nb import config

HERMES_NAME = "hermes_cli.runtime_provider"
__all__ = ["resolve_runtime_provider"]

#: provider → (key variable, base-URL variable, default base URL)
_PROVIDERS: dict[str, tuple[str, str, str]] = {
    "openrouter": ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "xai": ("XAI_API_KEY", "XAI_BASE_URL", "https://api.x.ai/v1"),
    "deepinfra": ("DEEPINFRA_API_KEY", "DEEPINFRA_BASE_URL", "https://api.deepinfra.com/v1/openai"),
    "nous": ("", "NOUS_BASE_URL", "https://inference-api.nousresearch.com/v1"),
}


def resolve_runtime_provider(requested: str | None = None, *args: Any, **kwargs: Any) -> dict[str, str]:
    """``{"provider", "api_key", "base_url", "source"}`` for ``requested``; ``ValueError`` if unknown."""
    name = (requested or "openrouter").strip().lower()
    if name not in _PROVIDERS:
        raise ValueError(
            f"runtime provider {requested!r} is not available in hermes_nb; "
            f"use one of {', '.join(_PROVIDERS)}"
        )
    key_var, url_var, default_url = _PROVIDERS[name]
    api_key = (config.resolve_key(key_var) or "") if key_var else ""
    base_url = (config.resolve_key(url_var) or default_url).rstrip("/")
    source = "env" if api_key else "none"
    return {"provider": name, "api_key": api_key, "base_url": base_url, "source": source}
