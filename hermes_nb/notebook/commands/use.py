"""``%hermes use search|extract|crawl|image PROVIDER``: select a provider for the session (``auto``: undo)."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.commands.answers import Message

__all__ = ["run"]

_USE_KEYS = {
    "search": "web.search_backend",
    "extract": "web.extract_backend",
    "crawl": "web.crawl_backend",
    "image": "image_gen.provider",
}


def run(args: list[str]) -> Any:
    if len(args) != 2 or args[0] not in _USE_KEYS:
        raise UsageError("usage: %hermes use search|extract|crawl|image <provider>  (or 'auto')")
    from hermes_nb import config  # lazy: keeps %load_ext fast
    from hermes_nb.errors import ProviderNotFoundError  # lazy: keeps %load_ext fast
    from hermes_nb.plugins.registry import image_providers, web_providers  # lazy: keeps %load_ext fast

    capability, name = args
    key = _USE_KEYS[capability]
    if name == "auto":
        config.unset(key)
        config.set(key, None)
        return Message(f"{capability}: automatic provider selection")
    registry: Any = image_providers if capability == "image" else web_providers
    provider = registry.get(name)
    if provider is None:
        known = ", ".join(registry.names()) or "none"
        raise ProviderNotFoundError(f"no {registry.kind} provider called {name!r}; known: {known}")
    config.set(key, name)
    done = f"{capability}: using {name} ({key} = {name!r} for this session)"
    if _ready(provider, capability):
        return Message(done)
    from hermes_nb.plugins.setup_hints import setup_hint  # lazy: keeps %load_ext fast

    # Said now, not at the next search: the choice is kept, and this is what it still needs.
    return Message(f"{done}. ⚠️ {name} is not ready yet: {setup_hint(provider, registry.owner(name))}")


def _ready(provider: Any, capability: str) -> bool:
    try:
        if capability == "image":
            return bool(provider.is_available())
        from hermes_nb.web import selection  # lazy: keeps %load_ext fast

        return selection.is_available(provider)
    except Exception:
        return False
