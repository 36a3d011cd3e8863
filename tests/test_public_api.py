"""The public API is pinned: adding or removing a name is a deliberate change to this list."""

from __future__ import annotations

import subprocess
import sys

import hermes_nb

EXPECTED = {
    "__version__",
    "search", "asearch", "extract", "aextract", "crawl", "acrawl",
    "search_many", "extract_many",
    "imagine", "aimagine", "imagine_many",
    "asearch_many", "aextract_many", "aimagine_many", "batch",
    "load_plugins", "providers", "plugins",
    "config", "tools", "hooks", "errors", "testing", "store", "cache", "index",
    "SearchResult", "SearchHit", "ExtractResult", "CrawlResult", "Page",
    "ImageResult", "ImageGallery",
    "WebSearchProvider", "ImageGenProvider", "HermesError",
    "load_ipython_extension", "unload_ipython_extension",
    # video generation (issue 21)
    "video", "avideo", "video_many", "avideo_many", "VideoResult", "VideoGenProvider",
}


def test_exported_names_are_pinned() -> None:
    assert set(hermes_nb.__all__) == EXPECTED


def test_every_exported_name_resolves() -> None:
    for name in hermes_nb.__all__:
        assert getattr(hermes_nb, name) is not None, name


def test_unknown_attribute_raises_attribute_error() -> None:
    try:
        hermes_nb.no_such_name  # noqa: B018 - the attribute access is the test
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_has_no_side_effects() -> None:
    code = (
        "import sys, hermes_nb\n"
        "heavy = [m for m in ('IPython', 'PIL', 'trafilatura', 'httpx', 'hermes_plugins', 'ipywidgets')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert out.stderr == ""


def test_hn_plugins_is_the_package_and_lists_the_plugins() -> None:
    """``hn.plugins()`` lists plugins beside ``hn.providers()``; the package stays a package."""
    import importlib

    import hermes_nb.plugins.loader as loader_module

    assert hermes_nb.plugins is importlib.import_module("hermes_nb.plugins")  # one object, still a module
    assert hermes_nb.plugins.loader is loader_module  # attributes and submodule imports work as before
    from hermes_nb.plugins import registry  # noqa: F401 - the import itself is the check

    table = hermes_nb.plugins()
    assert "web/ddgs" in table.names() and table.columns[:2] == ["plugin", "version"]
    row = next(r for r in table if r.key == "web/ddgs")
    assert row.source == "bundled" and row.available is None  # not imported yet: not asked
    checked = {r.key: r for r in hermes_nb.plugins(check=True)}
    assert checked["web/ddgs"].available is True and "web:ddgs" in checked["web/ddgs"].provides
    assert "<table" in table._repr_html_() and repr(table).startswith("plugins (")


def test_hn_plugins_works_in_a_fresh_interpreter() -> None:
    code = (
        "import hermes_nb as hn\n"
        "import hermes_nb.plugins.registry\n"  # the submodule import sets the attribute: still callable
        "print(len(hn.plugins()) > 10, callable(hn.plugins), hn.plugins.registry.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "hermes_nb.plugins.registry"]
