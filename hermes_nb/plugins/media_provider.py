"""What image and video providers share: declared metadata, the key, the base URL, the model choice,
the shared client and Hermes's setup schema.

``ImageGenProvider`` and ``VideoGenProvider`` (Hermes's two media contracts) both build on
``MediaProvider``; ``section`` names their configuration section (``image_gen`` / ``video_gen``), so
``<section>.<name>.base_url`` and ``<section>.<name>.model`` are read the same way for both.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from hermes_nb import config
from hermes_nb.plugins.provider_keys import KeyEnv, key_configured, key_names, require_key
from hermes_nb.plugins.vendor_answers import json_object

if TYPE_CHECKING:
    import httpx

    from hermes_nb.net.http_client import ErrorMap

__all__ = ["MediaProvider", "configured_model"]


def configured_model(
    provider: str, default: str | None, *, env: str | None = None, section: str = "image_gen"
) -> str | None:
    """A provider's model when none is passed: ``env`` var → ``<section>.<provider>.model`` →
    ``<section>.model`` → ``default``."""
    return (
        (os.environ.get(env, "").strip() if env else "")
        or config.get(f"{section}.{provider}.model")
        or config.get(f"{section}.model")
        or default
    )


class MediaProvider:
    """The metadata and helpers image and video providers have in common (see the module docstring)."""

    #: ``image_gen`` or ``video_gen``: the configuration section of this kind of provider.
    section: ClassVar[str] = ""

    # -- what the SDK reads (every name here is part of the contract; defaults are Hermes's) --
    #: ``"commercial"`` (needs a key) or ``"local"``; empty: derived from the setup schema's keys.
    tier: str = ""
    #: Other names ``<section>.provider`` / ``backend=`` accept for this provider.
    aliases: tuple[str, ...] = ()
    #: Where to get a key or read the docs (listings, the "needs an API key" error).
    docs_url: str = ""
    #: The environment variable(s) holding the API key; empty: no key (``is_available`` is True).
    key_env: KeyEnv = ""
    #: Read before ``<section>.<name>.model`` when the model is chosen (e.g. ``OPENAI_IMAGE_MODEL``).
    model_env: str = ""
    #: The vendor's endpoint; ``<section>.<name>.base_url`` overrides it (the emulator sets that).
    default_base_url: str = ""
    #: How it is billed, for listings.
    price_note: str = ""
    #: ``get_setup_schema``: a short badge (``paid``, ``local``), a one-line tag, an install/setup hint.
    badge: str = ""
    tag: str = ""
    install_hint: str = ""

    @property
    def name(self) -> str:  # each media contract declares it abstract, with its own meaning
        raise NotImplementedError

    @property
    def display_name(self) -> str:
        return self.name.title()

    def is_available(self) -> bool:
        """Cheap and offline: a provider with ``key_env`` is available once its key is set."""
        return key_configured(self.key_env) if key_names(self.key_env) else True

    def list_models(self) -> list[dict[str, Any]]:
        return []

    def default_model(self) -> str | None:
        raise NotImplementedError  # each contract keeps Hermes's own rule for it

    def resolve_model(self, model: str | None = None) -> str | None:
        """Argument → ``model_env`` → ``<section>.<name>.model`` → ``<section>.model`` → the default."""
        if model:
            return str(model)
        chosen = configured_model(
            self.name.strip().lower(), self.default_model(), env=self.model_env or None, section=self.section
        )
        return str(chosen) if chosen else None

    def get_setup_schema(self) -> dict[str, Any]:
        """Hermes's shape, built from ``display_name``, ``badge``, ``tag``, ``key_env``, ``docs_url``."""
        schema: dict[str, Any] = {
            "name": self.display_name,
            "badge": self.badge,
            "tag": self.tag,
            "env_vars": [
                {"key": key, "prompt": f"{self.display_name} API key", "url": self.docs_url}
                for key in key_names(self.key_env)
            ],
        }
        if self.install_hint:
            schema["install"] = self.install_hint
        return schema

    # -- helpers for bundled providers --
    def api_key(self) -> str:
        """The key from ``key_env``, or the standard "needs an API key" error naming the fix."""
        return require_key(self.name, self.key_env, self.display_name, self.docs_url)

    def base_url(self) -> str:
        """``<section>.<name>.base_url`` or ``default_base_url``, without a trailing slash."""
        return str(config.get(f"{self.section}.{self.name}.base_url") or self.default_base_url).rstrip("/")

    def send(self, method: str, url: str, *, error_map: ErrorMap | None = None, **kw: Any) -> httpx.Response:
        """One request through the shared client (retries, limits, redaction), errors by ``error_map``.

        A POST starts paid work: once it may have reached the vendor it is never sent again
        (``RETRY_UNSENT``), unless ``retry=`` says otherwise; other methods retry as usual.
        """
        from hermes_nb.net.http_client import RETRY_UNSENT, get_client

        kw.setdefault("retry", RETRY_UNSENT if method.upper() == "POST" else True)
        return get_client(self.name).request(method, url, error_map=error_map, **kw)

    def json_answer(self, response: httpx.Response) -> dict[str, Any]:
        """The answer's JSON object, or ``PARSE_ERROR`` naming this provider."""
        return json_object(response, self.name, self.display_name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"
