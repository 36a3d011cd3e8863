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
    "load_plugins", "providers",
    "config", "tools", "hooks", "errors", "testing", "store", "cache", "index",
    "SearchResult", "SearchHit", "ExtractResult", "CrawlResult", "Page",
    "ImageResult", "ImageGallery",
    "WebSearchProvider", "ImageGenProvider", "HermesError",
    "load_ipython_extension", "unload_ipython_extension",
    # video generation (issue 21)
    "video", "avideo", "video_many", "VideoResult", "VideoGenProvider",
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
