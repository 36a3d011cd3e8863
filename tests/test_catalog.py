"""hn.providers(kind): one row per provider, rendered as a table, a DataFrame, and the README's table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.catalog import ProviderTable
from hermes_nb.plugins import upstream_providers
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


class Keyed(WebSearchProvider):
    tier = "commercial"
    docs_url = "https://keyed.example/docs?a=1&b=<2>"

    @property
    def name(self) -> str:
        return "keyed"

    @property
    def display_name(self) -> str:
        return "Keyed <Search>"

    def is_available(self) -> bool:
        return bool(config.resolve_key("KEYED_API_KEY"))

    def supports_extract(self) -> bool:
        return True

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "Keyed",
            "env_vars": [{"key": "KEYED_API_KEY", "prompt": "key", "url": "https://k.example"}],
        }


class Free(WebSearchProvider):
    @property
    def name(self) -> str:
        return "free"

    def is_available(self) -> bool:
        return False

    def is_keyless_available(self) -> bool:
        return True

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "Free",
            "env_vars": [{"key": "FREE_API_KEY", "prompt": "optional", "url": "https://f.example"}],
        }


class Painter(ImageGenProvider):
    @property
    def name(self) -> str:
        return "painter"

    def is_available(self) -> bool:
        return bool(config.resolve_key("PAINTER_KEY"))

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": "brush-1"}, {"id": "brush-2"}]

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "Painter",
            "env_vars": [{"key": "PAINTER_KEY", "prompt": "key", "url": "https://p.example"}],
        }

    def capabilities(self) -> dict[str, Any]:
        return {"modalities": ["text", "image"], "max_reference_images": 2}

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError


@pytest.fixture
def registered(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    monkeypatch.setattr(image_providers, "loader", None)
    monkeypatch.setattr(upstream_providers, "UPSTREAM_ONLY", ())  # these tests list only their own
    web_providers.register(Keyed())
    web_providers.register(Free())
    image_providers.register(Painter())
    yield


def test_web_rows_name_the_missing_variable_tier_keyless_and_docs(registered: None) -> None:
    table = hn.providers("web")
    assert isinstance(table, ProviderTable) and isinstance(table, list) and table.names() == ["free", "keyed"]
    free, keyed = table
    assert keyed.display_name == "Keyed <Search>" and keyed.tier == "commercial"
    assert keyed.capabilities == ("search", "extract")
    assert not keyed.available and "KEYED_API_KEY" in keyed.why_not and not keyed.keyless
    assert keyed.docs_url == "https://keyed.example/docs?a=1&b=<2>"
    assert free.available and free.keyless and free.tier == "keyless" and free.why_not == ""
    assert free.docs_url == "https://f.example"
    config.set_key("KEYED_API_KEY", "keyed-secret-123456")
    keyed = hn.providers("web")[1]
    assert keyed.available and keyed.why_not == "" and keyed.selected_for == ("search", "extract")


def test_renders_escaped_html_and_plain_text(registered: None) -> None:
    table = hn.providers("web")
    page = table._repr_html_()
    assert "<table" in page and "Keyed &lt;Search&gt;" in page and "<Search>" not in page
    assert 'href="https://keyed.example/docs?a=1&amp;b=&lt;2&gt;"' in page
    assert table.columns == [
        "name",
        "display name",
        "capabilities",
        "tier",
        "keyless",
        "available",
        "why not",
        "docs",
    ]
    text = repr(table)
    assert text.startswith("web providers (2)") and "KEYED_API_KEY" in text and "search, extract" in text


def test_to_pandas_keeps_every_field(registered: None) -> None:
    frame = hn.providers("web").to_pandas()
    assert list(frame["name"]) == ["free", "keyed"]
    fields = {"display_name", "capabilities", "tier", "keyless", "available", "why_not", "docs_url"}
    assert fields <= set(frame.columns)
    assert frame.loc[1, "capabilities"] == ["search", "extract"]


def test_image_rows_list_models(registered: None) -> None:
    (row,) = hn.providers("image_gen")
    assert row.models == ("brush-1", "brush-2") and row.default_model == "brush-1"
    assert row.capabilities == ("generate", "edit") and row.tier == "commercial" and not row.keyless
    assert not row.available and "PAINTER_KEY" in row.why_not and row.docs_url == "https://p.example"
    assert "models" in hn.providers("images").columns
    assert hn.providers("image").to_pandas().loc[0, "models"] == ["brush-1", "brush-2"]


def test_unknown_kind_is_invalid_input(registered: None) -> None:
    with pytest.raises(errors.InvalidInputError, match="web, image_gen, video_gen"):
        hn.providers("hologram")  # "video" is a kind now (issue 21)


def test_hermes_magic_shows_the_listing(registered: None) -> None:
    from hermes_nb.notebook import commands

    shown = commands.run(["providers", "web"])
    assert isinstance(shown, ProviderTable) and shown.kind == "web" and shown.names() == ["free", "keyed"]
    assert commands.run(["providers", "image_gen"]).names() == ["painter"]


def _readme_web_table() -> list[str]:
    start = README.index("Web providers (")
    section = README[start : README.index("Image providers (", start)]
    return [m.group(1) for m in re.finditer(r"^\| `([a-z0-9-]+)`", section, re.M)]


def test_readme_web_table_lists_exactly_the_registered_providers() -> None:
    load_plugins()
    listed = _readme_web_table()
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(hn.providers("web").names())


def test_every_bundled_web_provider_row_links_its_docs() -> None:
    load_plugins()
    assert [row.name for row in hn.providers("web") if not row.docs_url.startswith("https://")] == []



@pytest.mark.parametrize(("kind", "name"), [("web", "deepseek"), ("web", "openai-native"),
                                            ("image_gen", "meta-ai")])  # fmt: skip
def test_hermes_providers_that_cannot_run_here_have_a_row_with_the_reason(kind: str, name: str) -> None:
    load_plugins()
    row = {r.name: r for r in hn.providers(kind)}[name]
    assert not row.available and row.tier == "not in notebooks" and row.plugin == "hermes (not bundled)"
    assert len(row.why_not) > 60 and row.docs_url.startswith("https://")
    assert "not in notebooks" in repr(hn.providers(kind))


def test_a_plugin_that_provides_an_upstream_only_name_replaces_its_row(
    registered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_nb.plugins.upstream_providers import UpstreamOnly

    fake = UpstreamOnly("image_gen", "painter", "Painter", ("generate",), "cannot", "https://x.example")
    gone = UpstreamOnly("image_gen", "meta-ai", "Meta", ("generate",), "no public docs", "https://m.example")
    monkeypatch.setattr(upstream_providers, "UPSTREAM_ONLY", (fake, gone))
    rows = hn.providers("image_gen")
    assert rows.names() == ["painter", "meta-ai"] and rows[0].models == ("brush-1", "brush-2")
