"""The provider-author API is pinned, and bundled plugins import hermes_nb only through it."""

from __future__ import annotations

import ast
from pathlib import Path

from paths import REPO

from hermes_nb import provider_api

PLUGINS = REPO / "plugins"

EXPECTED = {
    "WebSearchProvider", "ImageGenProvider", "failed_page",
    "extracted_page", "KeyedHttpProvider", "web_hits", "search_envelope", "error_detail", "json_objects",
    "extract_each",
    "HermesError", "InvalidInputError", "ProviderError", "ProviderNotConfiguredError", "ProviderAuthError",
    "RateLimitedError", "ProviderUnavailableError", "ParseError", "TransportError", "NetworkError",
    "TimeoutError_", "ContentError", "ContentBlockedError", "ContentFetchError", "ContentPolicyError",
    "StoreError", "error_for_status", "error_from_code",
    "HttpClient", "get_client", "RETRY_UNSENT", "MIN_POLL_TIMEOUT_S", "FetchedContent", "fetch", "check_url",
    "mcp_call_tool", "mcp_tool_text",
    "config", "get_provider_env",
    "VALID_ASPECT_RATIOS", "DEFAULT_ASPECT_RATIO", "resolve_aspect_ratio", "configured_model",
    "save_b64_image", "save_bytes_image", "save_url_image", "success_response", "error_response",
    "error_response_for", "answer_or_error", "reference_sources", "read_image_source",
    "Document", "convert_fetched", "html_signals", "html_converter_ready", "kind_of", "crawl_site",
    "progress", "on_reset", "get_store", "STORE_FILENAME",
    # provider kit (issue 19): the image template, polled jobs, keys, JSON answers
    "ImageRequest", "PolledJob", "Backoff", "require_key", "key_configured",
    "json_object", "json_or_none", "retry_after_s", "vendor_error", "vendor_message",
    "first_item",  # the first object of an OpenAI-style data list
    "errors",  # the error tree as a namespace, for providers that name many of its classes
    # video generation (issue 21)
    "VideoGenProvider", "VideoRequest", "OpenAICompatibleVideoGenProvider", "save_b64_video",
    "save_bytes_video", "save_url_video", "video_success_response", "video_error_response",
}  # fmt: skip


def test_names_are_pinned() -> None:
    assert set(provider_api.__all__) == EXPECTED


def test_every_name_resolves() -> None:
    for name in provider_api.__all__:
        assert getattr(provider_api, name) is not None, name


def _hermes_nb_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [n for n in names if n == "hermes_nb" or n.startswith("hermes_nb.")]
    return found


def test_bundled_plugins_import_only_the_provider_api() -> None:
    # a plugin's fake.py (its vendor API in the emulator) builds on hermes_nb.testing.fakes instead
    allowed = {"fake.py": "hermes_nb.testing.fakes"}
    offenders = {
        str(path.relative_to(PLUGINS)): bad
        for path in sorted(PLUGINS.rglob("*.py"))
        if (bad := [n for n in _hermes_nb_imports(path)
                    if n != allowed.get(path.name, "hermes_nb.provider_api")])
    }
    assert offenders == {}, f"bundled plugins must import hermes_nb only via provider_api: {offenders}"


def _imports_fake(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or "", *(f"{node.module or ''}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(n == "fake" or n.endswith(".fake") or n.startswith("fake.") for n in names):
            return True
    return False


def test_no_provider_imports_its_fake() -> None:
    fakes = sorted(PLUGINS.rglob("fake.py"))
    assert len(fakes) >= 20, "the bundled fakes moved: the scan would check nothing"
    sources = [p for p in PLUGINS.rglob("*.py") if p.name != "fake.py"]
    offenders = [str(p.relative_to(PLUGINS)) for p in sources if _imports_fake(p)]
    assert offenders == [], f"a provider must never import its fake.py (the emulator's side): {offenders}"
