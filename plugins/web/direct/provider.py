"""direct: keyless extract and crawl — the guarded fetch plus local conversion, no third party by default."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hermes_nb.provider_api import (
    Document,
    HermesError,
    WebSearchProvider,
    config,
    convert_fetched,
    crawl_site,
    fetch,
    kind_of,
)

from . import reader

ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"
MAX_PARALLEL = 4  # URLs fetched at once by one extract call


class DirectProvider(WebSearchProvider):
    """Fetch pages yourself (SSRF-guarded) and convert them locally; per-URL errors, never a failed call."""

    tier = "keyless"

    @property
    def name(self) -> str:
        return "direct"

    @property
    def display_name(self) -> str:
        return "Direct fetch (keyless)"

    def is_available(self) -> bool:
        return True

    def is_keyless_available(self) -> bool:
        return True

    def supports_search(self) -> bool:
        return False

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        prefer_reader = bool(kwargs.get("prefer_reader", False))
        if len(urls) <= 1:
            return [self._one(url, prefer_reader) for url in urls]
        workers = min(MAX_PARALLEL, len(urls))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="direct") as pool:
            return list(pool.map(lambda url: self._one(url, prefer_reader), urls))

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        depth = kwargs.get("depth", 2)
        return crawl_site(
            url,
            depth=depth if isinstance(depth, int) else 2,
            limit=int(kwargs.get("limit", 20)),
            delay=kwargs.get("delay"),
        )

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "free",
            "tag": "Fetches pages itself; HTML, text, JSON, CSV, feeds and PDF converted locally.",
            "env_vars": [],
        }

    def _one(self, url: str, prefer_reader: bool) -> dict[str, Any]:
        try:
            fetched = fetch(url, accept=ACCEPT)
            doc = convert_fetched(fetched)
        except HermesError as exc:
            return {"url": url, "title": "", "content": "", "raw_content": "", "error": exc.message,
                    "error_code": exc.code}
        final_url = fetched.final_url or url
        meta = dict(doc.metadata)
        meta.update(
            {
                "final_url": final_url,
                "status": fetched.status,
                "truncated": fetched.truncated,
                "bytes": len(fetched.content),
            }
        )
        if fetched.redirects:
            meta["redirects"] = list(fetched.redirects)
        if kind_of(fetched.content_type) == "html" and config.get("web.jina_fallback", False):
            doc = _with_reader(doc, fetched.text, final_url, meta, prefer_reader)
        return {
            "url": url,
            "title": doc.title or final_url,
            "content": doc.content,
            "raw_content": doc.content,
            "metadata": meta,
        }


def _with_reader(
    doc: Document, html: str, final_url: str, meta: dict[str, Any], prefer: bool
) -> Document:
    """Jina Reader's version of the page when a trigger fires; the local one on any failure."""
    why = "prefer_reader" if prefer else reader.trigger(html, doc.content)
    if why is None:
        return doc
    if not reader.may_forward(final_url):
        meta["reader_warning"] = "Jina Reader skipped: the page's address is not public"
        return doc
    try:
        better = reader.read(final_url)
    except HermesError as exc:
        meta["reader_warning"] = f"Jina Reader failed ({exc.code}); kept the local extraction"
        return doc
    meta.update(better.metadata)
    meta["reader"] = "jina"
    meta["reader_reason"] = why
    meta["third_party"] = "the URL was sent to Jina Reader (web.jina_fallback is on)"
    return Document(title=better.title or doc.title, content=better.content, metadata=meta)
