"""The bundled offline ``local`` provider: FTS5 over the store, loaded like any plugin."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from paths import REPO

import hermes_nb as hn
from hermes_nb import config, store, web
from hermes_nb.errors import ProviderNotConfiguredError
from hermes_nb.plugins.registry import web_providers
from hermes_nb.web import selection

PLUGIN_DIR = REPO / "plugins" / "web" / "local"


def _import_plugin() -> ModuleType:
    """Import the plugin's provider module as a submodule of its folder, the way the loader does."""
    name = "hermes_plugins_test_local"
    package = ModuleType(name)
    package.__path__ = [str(PLUGIN_DIR)]  # a folder without __init__.py: the manifest names the class
    sys.modules[name] = package
    return importlib.import_module(f"{name}.provider")


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> None:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    web_providers.register(_import_plugin().LocalProvider())


def test_manifest() -> None:
    manifest = yaml.safe_load((PLUGIN_DIR / "plugin.yaml").read_text(encoding="utf-8"))
    assert manifest["kind"] == "backend" and manifest["provides_web_providers"] == ["local"]
    assert "requires_env" not in manifest


def test_unavailable_while_the_store_is_empty(local: None, hermetic: Path) -> None:
    provider = web_providers.get("local")
    assert provider is not None and selection.tier_of(provider) == "offline"
    assert not provider.is_available() and not (hermetic / store.FILENAME).exists()
    with pytest.raises(ProviderNotConfiguredError):
        web.search("anything")


def test_searches_extracted_pages_and_indexed_folders(local: None, tmp_path: Path) -> None:
    store.get_store().put_page("https://a.test/", "Notebook kernels", "How a Jupyter kernel runs code.")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "k.md").write_text("# Kernel gateway\nRemote kernel setup.", encoding="utf-8")
    store.index_folder(folder)

    result = web.search("kernel", 5)
    assert result.provider == "local" and len(result) == 2
    assert {h.title for h in result} == {"Notebook kernels", "Kernel gateway"}
    assert [h.position for h in result] == [1, 2]
    assert web.search("nothing-matches-this", backend="local").hits == []


def test_a_reindex_shows_at_once_in_local_search(local: None, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "old.md").write_text("# Old lighthouse\nThe lighthouse keeper's log.", encoding="utf-8")
    (folder / "kept.md").write_text("# Kept lighthouse\nA second lighthouse note.", encoding="utf-8")
    hn.index(folder)
    first = hn.search("lighthouse", 5, backend="local")
    assert {h.title for h in first} == {"Old lighthouse", "Kept lighthouse"} and not first.cached

    (folder / "old.md").unlink()
    (folder / "new.md").write_text("# New lighthouse\nJust added.", encoding="utf-8")
    assert hn.index(folder)["removed"] == 1
    again = hn.search("lighthouse", 5, backend="local")
    assert {h.title for h in again} == {"Kept lighthouse", "New lighthouse"} and not again.cached
    assert hn.cache.stats()["searches"] == 0  # local answers are a view of the store: never cached


def test_local_searches_are_still_recorded_and_replayed(local: None, tmp_path: Path) -> None:
    store.get_store().put_page("https://a.test/", "Notebook kernels", "How a Jupyter kernel runs code.")
    cassette = tmp_path / "local.hnb.jsonl"
    with hn.cache.record(cassette):
        recorded = hn.search("kernel", 3, backend="local")
    store.get_store().clear("pages")
    config.set("cache.replay_file", str(cassette))
    replayed = hn.search("kernel", 3, backend="local")
    assert replayed.cached and [h.url for h in replayed] == [h.url for h in recorded]


def test_local_is_the_last_auto_candidate(local: None) -> None:
    from hermes_nb.plugins.web_provider import WebSearchProvider

    class Keyless(WebSearchProvider):
        @property
        def name(self) -> str:
            return "keyless"

        def is_available(self) -> bool:
            return True

        def is_keyless_available(self) -> bool:
            return True

    store.get_store().put_page("https://a.test/", "A", "alpha")
    web_providers.register(Keyless())
    assert [p.name for p in selection.candidates("search")] == ["keyless", "local"]
    config.set("web.search_backend", "local")
    assert selection.resolve("search").name == "local"


def test_loaded_through_the_plugin_loader(hermetic: Path) -> None:
    from hermes_nb.plugins import loader

    loader.load_plugins(force=True)
    provider = web_providers.get("local")
    assert provider is not None and web_providers.owner("local") == "web/local"
    store.get_store().put_page("https://b.test/", "Offline", "search without a network")
    assert web.search("network", backend="local").urls == ["https://b.test/"]
