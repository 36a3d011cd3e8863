"""The provider-author API: everything a web or image provider plugin needs from hermes_nb, in one place.

Bundled plugins import hermes_nb only through this module (and the Hermes import names where they
mirror a Hermes plugin), and so should third-party ones: the names below are pinned by a test and
stay stable while the modules behind them move.

    from hermes_nb.provider_api import WebSearchProvider, get_client, config, ProviderAuthError

- base classes: ``WebSearchProvider``, ``ImageGenProvider`` (Hermes's contracts); ``extracted_page`` /
  ``failed_page`` for a per-URL extract row
- keyed web providers: ``KeyedHttpProvider`` (key check, base URL, shared client, standard error
  map), ``web_hits`` (hit rows from a field map), ``search_envelope``, ``error_detail``,
  ``json_objects``, ``extract_each`` (pages read one by one)
- errors: the ``hermes_nb.errors`` tree (raise these; the SDK turns them into envelopes and messages),
  by name or as ``errors.<Name>`` where a provider names many of them
- HTTP: ``get_client(provider)`` (retries, limits, redaction), ``RETRY_UNSENT`` for paid POSTs,
  ``fetch`` / ``check_url`` for user-supplied URLs (SSRF guard), ``mcp_call_tool`` / ``mcp_tool_text``
  for a vendor's public MCP endpoint (keyless modes)
- keys and settings: ``config.get(key)``, ``config.resolve_key(*names)``, ``get_provider_env(name)``
- HTTP answers: ``json_object`` (the body as a JSON object, else ``PARSE_ERROR``); for error maps
  ``vendor_error`` (401/403, 402, 429, 400/404/422 in the usual words), ``vendor_message``,
  ``json_or_none``, ``retry_after_s``
- asynchronous jobs: ``PolledJob`` (poll with ``Backoff`` to a deadline, cancel at it; injectable clock)
- keys: ``require_key`` (the standard "needs an API key" error) and ``key_configured``
- images: subclass ``ImageGenProvider`` with class attributes and write ``_generate(request:
  ImageRequest)`` (``generate`` is a template: aspect, model, references, errors → Hermes's envelope);
  Hermes's helpers (``save_b64_image``, ``save_bytes_image``, ``success_response`` …),
  ``answer_or_error`` (a hand-written ``generate`` body: errors become Hermes's error envelope),
  ``reference_sources`` and ``read_image_source`` for reference images
- videos: subclass ``VideoGenProvider`` (or ``OpenAICompatibleVideoGenProvider`` for a ``POST /videos``
  API) and write ``_generate(request: VideoRequest)``; ``save_bytes_video`` / ``save_b64_video`` /
  ``save_url_video`` (sniffed, capped, atomic), ``video_success_response`` / ``video_error_response``
- content: ``convert_fetched`` (bytes → Markdown), ``Document``, ``crawl_site`` (the built-in crawler)
- the rest: ``progress`` (a bar only when someone watches), ``on_reset`` (clear caches between tests),
  ``get_store`` (the local store, for offline providers)
"""

from __future__ import annotations

from hermes_nb import config, errors
from hermes_nb._state import on_reset
from hermes_nb.errors import (
    ContentBlockedError,
    ContentError,
    ContentFetchError,
    ContentPolicyError,
    HermesError,
    InvalidInputError,
    NetworkError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
    TransportError,
    error_for_status,
    error_from_code,
)
from hermes_nb.net.fetch import FetchedContent, fetch
from hermes_nb.net.http_client import RETRY_UNSENT, HttpClient, get_client
from hermes_nb.net.mcp import call_tool as mcp_call_tool
from hermes_nb.net.mcp import tool_text as mcp_tool_text
from hermes_nb.net.url_guard import check_url
from hermes_nb.plugins.image_download import read_image_source
from hermes_nb.plugins.image_provider import (
    DEFAULT_ASPECT_RATIO,
    VALID_ASPECT_RATIOS,
    ImageGenProvider,
    ImageRequest,
    answer_or_error,
    configured_model,
    error_response,
    error_response_for,
    first_item,
    reference_sources,
    resolve_aspect_ratio,
    save_b64_image,
    save_bytes_image,
    save_url_image,
    success_response,
)
from hermes_nb.plugins.keyed_http import (
    KeyedHttpProvider,
    error_detail,
    extract_each,
    json_objects,
    search_envelope,
    web_hits,
)
from hermes_nb.plugins.polled_job import MIN_POLL_TIMEOUT_S, Backoff, PolledJob
from hermes_nb.plugins.provider_keys import key_configured, require_key
from hermes_nb.plugins.vendor_answers import (
    json_object,
    json_or_none,
    retry_after_s,
    vendor_error,
    vendor_message,
)
from hermes_nb.plugins.video_provider import (
    OpenAICompatibleVideoGenProvider,
    VideoGenProvider,
    VideoRequest,
    save_b64_video,
    save_bytes_video,
    save_url_video,
)
from hermes_nb.plugins.video_provider import error_response as video_error_response
from hermes_nb.plugins.video_provider import success_response as video_success_response
from hermes_nb.plugins.web_provider import WebSearchProvider, extracted_page, failed_page, get_provider_env
from hermes_nb.progress import progress
from hermes_nb.store import FILENAME as STORE_FILENAME
from hermes_nb.store import StoreError, get_store
from hermes_nb.web.content import Document, convert_fetched, html_converter_ready, html_signals, kind_of
from hermes_nb.web.crawler import crawl as crawl_site

__all__ = [
    # base classes
    "WebSearchProvider",
    "ImageGenProvider",
    "failed_page",
    "extracted_page",
    # keyed JSON-over-HTTP web providers
    "KeyedHttpProvider",
    "web_hits",
    "search_envelope",
    "error_detail",
    "json_objects",
    "extract_each",
    # errors
    "errors",
    "HermesError",
    "InvalidInputError",
    "ProviderError",
    "ProviderNotConfiguredError",
    "ProviderAuthError",
    "RateLimitedError",
    "ProviderUnavailableError",
    "ParseError",
    "TransportError",
    "NetworkError",
    "TimeoutError_",
    "ContentError",
    "ContentBlockedError",
    "ContentFetchError",
    "ContentPolicyError",
    "StoreError",
    "error_for_status",
    "error_from_code",
    # HTTP
    "HttpClient",
    "get_client",
    "RETRY_UNSENT",
    "MIN_POLL_TIMEOUT_S",
    "FetchedContent",
    "fetch",
    "check_url",
    "mcp_call_tool",
    "mcp_tool_text",
    "json_object",
    "json_or_none",
    "retry_after_s",
    "vendor_error",
    "vendor_message",
    # asynchronous jobs
    "PolledJob",
    "Backoff",
    # keys and settings
    "config",
    "get_provider_env",
    "require_key",
    "key_configured",
    # images
    "VALID_ASPECT_RATIOS",
    "DEFAULT_ASPECT_RATIO",
    "ImageRequest",
    "resolve_aspect_ratio",
    "configured_model",
    "save_b64_image",
    "save_bytes_image",
    "save_url_image",
    "success_response",
    "error_response",
    "error_response_for",
    "answer_or_error",
    "reference_sources",
    "read_image_source",
    "first_item",
    # videos
    "VideoGenProvider",
    "VideoRequest",
    "OpenAICompatibleVideoGenProvider",
    "save_b64_video",
    "save_bytes_video",
    "save_url_video",
    "video_success_response",
    "video_error_response",
    # content
    "Document",
    "convert_fetched",
    "html_signals",
    "html_converter_ready",
    "kind_of",
    "crawl_site",
    # the rest
    "progress",
    "on_reset",
    "get_store",
    "STORE_FILENAME",
]
