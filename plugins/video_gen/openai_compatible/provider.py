"""A video server that speaks OpenAI's ``POST /videos`` shape, chosen and described by configuration alone.

DeepInfra, OpenRouter and self-hosted servers answer the same asynchronous job API; pointing
``video_gen.openai_compatible.base_url`` at one and naming ``video_gen.openai_compatible.model`` is
the whole set-up. The key is read from the variable ``video_gen.openai_compatible.env_var`` names
(``OPENAI_COMPATIBLE_API_KEY`` by default; empty for a keyless server). Options ride as Hermes's
compatible base sends them: ``seconds``, ``size`` (the resolution), and ``image_url``,
``aspect_ratio``, ``negative_prompt``, ``seed`` as extra fields; the finished job's ``data[].url``
is downloaded at once, else ``GET /videos/{id}/content``.
"""

from __future__ import annotations

from typing import Any

from hermes_nb.provider_api import (
    OpenAICompatibleVideoGenProvider,
    ProviderNotConfiguredError,
    VideoRequest,
    config,
    key_configured,
)

SECTION = "video_gen.openai_compatible"


class OpenAICompatibleVideoProvider(OpenAICompatibleVideoGenProvider):
    """The configured OpenAI-compatible video server."""

    name = "openai_compatible"
    display_name = "OpenAI-compatible"
    tier = "commercial"
    default_base_url = ""  # nothing until video_gen.openai_compatible.base_url is set
    badge, tag = "config", "any POST /videos server (DeepInfra, OpenRouter, self-hosted)"
    install_hint = f'set {SECTION}.base_url and {SECTION}.model (hn.config.set("{SECTION}.base_url", …))'
    modalities = ("text", "image")
    supports_negative_prompt = True
    accepts_seed = True
    max_duration = 20

    @property
    def key_env(self) -> str:  # type: ignore[override]
        value = config.get(f"{SECTION}.env_var", "OPENAI_COMPATIBLE_API_KEY")
        return str(value or "").strip()

    @property
    def price_per_second(self) -> float | None:  # type: ignore[override]
        value = config.get(f"{SECTION}.price_per_second")
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def is_available(self) -> bool:
        return bool(self.base_url()) and (not self.key_env or key_configured(self.key_env))

    def list_models(self) -> list[dict[str, Any]]:
        model = config.get(f"{SECTION}.model")
        return [{"id": str(model)}] if model else []

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key()}"} if self.key_env else {}

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        if not self.base_url():
            raise ProviderNotConfiguredError(
                f"no OpenAI-compatible video server is set: {self.install_hint}", provider=self.name
            )
        return super()._generate(request)
