"""hermes_nb: Hermes Agent plugins in Jupyter — web search, extraction and image generation.

The package root is lazy: names below are imported on first use, so ``import hermes_nb`` and
``%load_ext hermes_nb`` stay fast and have no side effects.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hermes_nb._version import __version__

#: public name → "module" (a submodule) or "module:attribute"
_EXPORTS: dict[str, str] = {
    # SDK facade
    "search": "hermes_nb.web:search",
    "asearch": "hermes_nb.web:asearch",
    "extract": "hermes_nb.web:extract",
    "aextract": "hermes_nb.web:aextract",
    "crawl": "hermes_nb.web:crawl",
    "acrawl": "hermes_nb.web:acrawl",
    "search_many": "hermes_nb.batch:search_many",
    "asearch_many": "hermes_nb.batch:asearch_many",
    "extract_many": "hermes_nb.batch:extract_many",
    "aextract_many": "hermes_nb.batch:aextract_many",
    "imagine": "hermes_nb.images:imagine",
    "aimagine": "hermes_nb.images:aimagine",
    "imagine_many": "hermes_nb.batch:imagine_many",
    "aimagine_many": "hermes_nb.batch:aimagine_many",
    "video": "hermes_nb.videos:video",
    "avideo": "hermes_nb.videos:avideo",
    "video_many": "hermes_nb.batch:video_many",
    "avideo_many": "hermes_nb.batch:avideo_many",
    "load_plugins": "hermes_nb.plugins.loader:load_plugins",
    "providers": "hermes_nb.catalog:providers",
    "plugins": "hermes_nb.plugins",  # the package, callable: hn.plugins() lists the plugins
    # namespaces
    "batch": "hermes_nb.batch",
    "config": "hermes_nb.config",
    "tools": "hermes_nb.tools",
    "hooks": "hermes_nb.plugins.hooks",
    "errors": "hermes_nb.errors",
    "testing": "hermes_nb.testing",
    "store": "hermes_nb.store",
    "cache": "hermes_nb.cache",
    "index": "hermes_nb.store:index",
    # results
    "SearchResult": "hermes_nb.web.results:SearchResult",
    "SearchHit": "hermes_nb.web.results:SearchHit",
    "ExtractResult": "hermes_nb.web.results:ExtractResult",
    "CrawlResult": "hermes_nb.web.results:CrawlResult",
    "Page": "hermes_nb.web.results:Page",
    "ImageResult": "hermes_nb.images.results:ImageResult",
    "ImageGallery": "hermes_nb.images.results:ImageGallery",
    "VideoResult": "hermes_nb.videos.results:VideoResult",
    # plugin authoring
    "WebSearchProvider": "hermes_nb.plugins.web_provider:WebSearchProvider",
    "ImageGenProvider": "hermes_nb.plugins.image_provider:ImageGenProvider",
    "VideoGenProvider": "hermes_nb.plugins.video_provider:VideoGenProvider",
    "HermesError": "hermes_nb.errors:HermesError",
    # IPython extension
    "load_ipython_extension": "hermes_nb.notebook.magics:load_ipython_extension",
    "unload_ipython_extension": "hermes_nb.notebook.magics:unload_ipython_extension",
}

__all__ = [
    "__version__",
    "CrawlResult",
    "ExtractResult",
    "HermesError",
    "ImageGallery",
    "ImageGenProvider",
    "ImageResult",
    "Page",
    "SearchHit",
    "SearchResult",
    "VideoGenProvider",
    "VideoResult",
    "WebSearchProvider",
    "acrawl",
    "aextract",
    "aextract_many",
    "aimagine",
    "aimagine_many",
    "asearch",
    "asearch_many",
    "batch",
    "avideo",
    "avideo_many",
    "cache",
    "config",
    "crawl",
    "errors",
    "extract",
    "extract_many",
    "hooks",
    "imagine",
    "imagine_many",
    "index",
    "load_ipython_extension",
    "load_plugins",
    "plugins",
    "providers",
    "search",
    "search_many",
    "store",
    "testing",
    "tools",
    "unload_ipython_extension",
    "video",
    "video_many",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from hermes_nb import batch, cache, config, errors, plugins, store, testing, tools
    from hermes_nb.batch import (
        aextract_many,
        aimagine_many,
        asearch_many,
        avideo_many,
        extract_many,
        imagine_many,
        search_many,
        video_many,
    )
    from hermes_nb.catalog import providers
    from hermes_nb.errors import HermesError
    from hermes_nb.images import aimagine, imagine
    from hermes_nb.images.results import ImageGallery, ImageResult
    from hermes_nb.notebook.magics import load_ipython_extension, unload_ipython_extension
    from hermes_nb.plugins import hooks
    from hermes_nb.plugins.image_provider import ImageGenProvider
    from hermes_nb.plugins.loader import load_plugins
    from hermes_nb.plugins.video_provider import VideoGenProvider
    from hermes_nb.plugins.web_provider import WebSearchProvider
    from hermes_nb.store import index
    from hermes_nb.videos import avideo, video
    from hermes_nb.videos.results import VideoResult
    from hermes_nb.web import acrawl, aextract, asearch, crawl, extract, search
    from hermes_nb.web.results import CrawlResult, ExtractResult, Page, SearchHit, SearchResult


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'hermes_nb' has no attribute {name!r}")
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    value = getattr(module, attribute) if attribute else module
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


from hermes_nb import _wiring  # noqa: E402 - last: the package namespace above must exist first

_wiring.wire()
